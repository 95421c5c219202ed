"""The early-stopping examples: an MLP by epochs under ASHA, and the k-fold x replica closure test."""

from __future__ import annotations

import numpy as np
import pytest

import treefarm as tf
from tests.test_examples import load
from treefarm.study import bias_variance


def test_closure_test_stores_bias_variance_and_every_fold_and_stops_bad_trials() -> None:
    ex = load("closure_test")
    study = ex.main(n_trials=15, seed=0)
    best = study.best_trial
    losses = np.array(best.user_attrs["fold_losses"])
    assert losses.shape == (ex.N_REPLICAS, ex.N_FOLDS)
    assert losses[1, 2] == pytest.approx(ex.fold_loss(dict(best.params), 1, 2))
    assert (best.value, best.user_attrs["variance"]) == pytest.approx(bias_variance(losses))
    pruned = [t for t in study.trials if t.state is tf.TrialState.PRUNED]
    assert pruned and all(len(t.intermediate) < ex.N_FOLDS for t in pruned)
    assert best.value < 0.05  # a smooth fit to a law sampled with noise sd 0.3


def test_mlp_trains_at_most_the_budget_and_asha_prunes() -> None:
    pytest.importorskip("sklearn")
    ex = load("mlp_epochs")
    study = tf.Study.create(space=ex.space, algo="random", seed=0, pruner=ex.pruner(3))
    study.optimize(ex.objective, 6)
    assert all(len(t.intermediate) <= 3 for t in study.trials)
    assert any(t.state is tf.TrialState.PRUNED for t in study.trials)
    assert study.best_value < 0.5  # ten classes: chance is 0.9
