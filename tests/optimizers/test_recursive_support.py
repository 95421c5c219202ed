"""Which algorithms search a recursive space, and what the others tell the user."""

from __future__ import annotations

import pytest

import treefarm as tf
from treefarm.optimizers.registry import recursive_algos
from treefarm.testing.optimizer_suite import SPACES

RECURSIVE_ALGOS = recursive_algos()


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


def test_the_recursive_ones_are_the_classes_that_say_so() -> None:
    """Read from each registered class, so a new optimizer is named by its own attribute."""
    assert RECURSIVE_ALGOS == ["auto", "grammar", "tpe", "gp", "anneal", "nsga2", "random"]
    assert not any(tf.optimizers.optimizer_class(a).searches_recursive for a in ("cmaes", "grid", "qmc"))
