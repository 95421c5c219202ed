"""``minimize`` takes ``n_trials`` (Optuna's and ``Study.optimize``'s name) as its budget."""

from __future__ import annotations

import pytest

import treefarm as tf


def test_n_trials_is_the_budget() -> None:
    result = tf.minimize(lambda p: p["x"], {"x": tf.Real(0, 1)}, n_trials=7, storage=None, algo="random")
    assert len(result.trials) == 7


def test_both_names_at_once_are_refused_naming_both() -> None:
    with pytest.raises(tf.StudyError, match=r"max_evals or its alias n_trials, not both, but got max_evals=5, n_trials=7"):
        tf.minimize(lambda p: p["x"], {"x": tf.Real(0, 1)}, max_evals=5, n_trials=7, storage=None)


def test_a_bad_n_trials_is_named_as_given() -> None:
    with pytest.raises(tf.StudyError, match=r"^n_trials must be an integer >= 1, but got n_trials=0$"):
        tf.minimize(lambda p: p["x"], {"x": tf.Real(0, 1)}, n_trials=0, storage=None)
