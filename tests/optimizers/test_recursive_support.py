"""Which algorithms search a recursive space, and what the others tell the user."""

from __future__ import annotations

import pytest

import treefarm as tf
from treefarm.optimizers.base import RECURSIVE_ALGOS
from treefarm.testing.optimizer_suite import SPACES


@pytest.mark.parametrize("algo", RECURSIVE_ALGOS)
def test_every_named_algorithm_searches_a_recursive_space(algo: str) -> None:
    study = tf.Study.create(space=SPACES["recursive"](), algo=algo, seed=0)
    study.optimize(lambda expression: float(len(repr(expression))), n_trials=12)
    assert [t.state for t in study.trials] == [tf.TrialState.COMPLETE] * 12
    assert len({repr(t.params) for t in study.trials}) == 12, "each trial a new configuration"


@pytest.mark.parametrize("algo", sorted(set(tf.optimizers.available()) - set(RECURSIVE_ALGOS)))
def test_the_others_refuse_it_naming_the_ones_that_search_it(algo: str) -> None:
    study = tf.Study.create(space=SPACES["recursive"](), algo=algo, seed=0)
    with pytest.raises(tf.TreefarmError, match=rf"algo='{algo}'.*recursive.*'grammar'.*'tpe'") as caught:
        study.ask()
    assert all(f"'{name}'" in str(caught.value) for name in RECURSIVE_ALGOS)
