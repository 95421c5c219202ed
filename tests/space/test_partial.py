"""Partial configurations: checked as a person states them, completed to a whole one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import treefarm as tf
from treefarm.exceptions import ConfigError
from treefarm.space.partial import check_partial, complete_partial

SPACE = {
    "lr": tf.Real(1e-4, 1e-0, log=True),
    "model": tf.Join(svm={"C": tf.Real(1e-3, 1e3, log=True)}, tree={"depth": tf.Int(1, 9)}),
    "k": tf.Choice("a", "b", "c"),
}


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_whole_configuration_completes_to_itself(seed: int) -> None:
    config = tf.sample(SPACE, seed)
    assert complete_partial(SPACE, dict(config)) == config
    assert check_partial(SPACE, dict(config)) == dict(config)


def test_unstated_decisions_take_the_implied_option_or_the_priors_median() -> None:
    whole = complete_partial(SPACE, {"model.tree.depth": 3})
    assert dict(whole) == {"lr": pytest.approx(1e-2), "model": "tree", "model.tree.depth": 3, "k": "b"}
    tf.validate(SPACE, dict(whole))


def test_completing_names_the_address_that_does_not_fit() -> None:
    with pytest.raises(ConfigError, match=r"model\.svm\.C"):
        complete_partial(SPACE, {"model": "tree", "model.svm.C": 1.0})
    with pytest.raises(ConfigError, match="depth"):
        complete_partial(SPACE, {"model.tree.depth": 99})


def test_the_error_carries_the_address_at_fault() -> None:
    with pytest.raises(ConfigError) as caught:
        check_partial({"depth": tf.Int(1, 10), "max_depth": tf.Int(1, 10)}, {"depth": 3, "max_depth": 15})
    assert caught.value.address == "max_depth"


def test_an_address_below_a_root_join_implies_its_option() -> None:
    svc = tf.op(lambda C: ("svc", C), name="SVC")
    lr = tf.op(lambda C: ("lr", C), name="LR")
    space = svc(C=tf.Real(1e-2, 1e3, log=True)) | lr(C=tf.Real(1e-3, 1e2, log=True))
    assert check_partial(space, {"SVC.C": 1.0}) == {"_": "SVC", "SVC.C": 1.0}
    assert check_partial(space, {"LR.C": 1.0}) == {"_": "LR", "LR.C": 1.0}
    assert dict(complete_partial(space, {"LR.C": 1.0}))["_"] == "LR"
