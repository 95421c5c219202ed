"""Fold and replica aggregations against hand computations, and fold-by-fold stopping."""

from __future__ import annotations

import math

import pytest

import treefarm as tf
from treefarm.exceptions import StudyError
from treefarm.storage import TrialState
from treefarm.study import aggregate, bias_variance, evaluate_folds, mean_plus_std

# two replicas x three folds; entries 1, 2, 3, 3, 2, 7: mean 3, max 7
L = [[1.0, 2.0, 3.0], [3.0, 2.0, 7.0]]


def test_mean_and_max() -> None:
    assert aggregate(L, "mean") == 3.0
    assert aggregate(L, "max") == 7.0
    assert aggregate([4.0, 1.0], "mean") == 2.5  # a 1-d array is one replica


def test_mean_plus_k_std_uses_the_sample_std_over_every_entry() -> None:
    # squared deviations from 3: 4, 1, 0, 0, 1, 16 -> 22; / (6 - 1) = 4.4
    assert mean_plus_std(L, 2.0) == pytest.approx(3.0 + 2.0 * math.sqrt(4.4))
    assert aggregate(L, "mean+std", k=0.5) == pytest.approx(3.0 + 0.5 * math.sqrt(4.4))
    assert mean_plus_std([[5.0]], 3.0) == 5.0  # one entry: no spread


def test_bias_variance_pair_averages_each_folds_variance_across_replicas() -> None:
    # per fold, across replicas (ddof=1): (1, 3) -> 2, (2, 2) -> 0, (3, 7) -> 8; mean 10/3
    bias, variance = bias_variance(L)
    assert bias == 3.0 and variance == pytest.approx(10.0 / 3.0)
    assert bias_variance([1.0, 2.0, 6.0]) == (3.0, 0.0)  # one replica: no variance


def test_bad_fold_losses_and_names_are_refused_naming_them() -> None:
    with pytest.raises(StudyError, match=r"how must be one of .* how='median'"):
        aggregate(L, "median")
    with pytest.raises(StudyError, match="every fold loss must be finite"):
        aggregate([1.0, math.nan])
    with pytest.raises(StudyError, match=r"shape=\(0,\)"):
        aggregate([])
    with pytest.raises(StudyError, match="n_folds=0"):
        evaluate_folds(lambda r, f: 0.0, n_folds=0)


def test_evaluate_folds_returns_and_stores_every_fold_loss() -> None:
    out = evaluate_folds(lambda r, f: L[r][f], n_folds=3, n_replicas=2, how="bias")
    assert out["loss"] == 3.0 and out["variance"] == pytest.approx(10.0 / 3.0)
    assert out["fold_losses"] == L and out["std"] == pytest.approx(math.sqrt(4.4))

    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, seed=0)
    study.optimize(lambda p: evaluate_folds(lambda r, f: L[r][f] + p["x"], n_folds=3, n_replicas=2), 2)
    for t in study.trials:
        x = t.params["x"]
        assert t.value == pytest.approx(3.0 + x)
        assert t.user_attrs["fold_losses"] == [[v + x for v in row] for row in L]


def test_a_trial_with_a_bad_first_fold_stops_there() -> None:
    """Partial aggregates are reported fold by fold, so a median rule stops a bad trial
    after its first fold, and only that fold was evaluated."""
    calls: list[tuple[float, int]] = []

    def objective(p: dict, trial: tf.Trial) -> dict:
        def fold_loss(replica: int, fold: int) -> float:
            calls.append((p["level"], fold))
            return p["level"] + 0.1 * fold

        return evaluate_folds(fold_loss, n_folds=4, n_replicas=2, trial=trial)

    study = tf.Study.create(
        space={"level": tf.Real(0.0, 10.0)}, seed=0, pruner=tf.MedianPruner(n_startup_trials=2)
    )
    for level in (1.0, 2.0, 9.0, 1.5):
        study.enqueue({"level": level})
    study.optimize(objective, 4)
    states = [t.state for t in study.trials]
    assert states == [TrialState.COMPLETE, TrialState.COMPLETE, TrialState.PRUNED, TrialState.COMPLETE]
    bad = study.trials[2]
    assert bad.value == 9.0 and bad.system_attrs["pruned_step"] == 1
    assert bad.user_attrs["fold_losses"] == [[9.0], [9.0]]
    assert [f for level, f in calls if level == 9.0] == [0, 0]


def test_the_variance_of_each_aggregation_by_hand() -> None:
    # L's six entries have sample variance 22 / 5 = 4.4; its replica means are 2 and 4
    # (sample variance 2), so the mean's variance over two independent replicas is 2 / 2
    assert tf.study.aggregate_variance(L, "mean") == pytest.approx(1.0)
    assert tf.study.aggregate_variance(L, "bias") == pytest.approx(1.0)
    assert tf.study.aggregate_variance([1.0, 2.0, 3.0, 3.0, 2.0, 7.0], "mean") == pytest.approx(4.4 / 6)
    assert tf.study.aggregate_variance(L, "max") == pytest.approx(4.4)
    # mean + k std: var(mean) + k^2 var(std) = 4.4 / 6 + 4 * 4.4 / (2 * 5)
    assert tf.study.aggregate_variance(L, "mean+std", k=2.0) == pytest.approx(4.4 / 6 + 1.76)
    assert tf.study.aggregate_variance([[5.0]], "mean") == 0.0  # one entry: nothing known
    with pytest.raises(StudyError, match="how='median'"):
        tf.study.aggregate_variance(L, "median")


def test_fold_spread_reaches_the_optimizer_as_each_trial_loss_variance() -> None:
    """evaluate_folds stores the variance of the (partial) aggregate, and the
    study's history hands it to the optimizer: a pure function of the stored trials."""

    def objective(p: dict, trial: tf.Trial) -> dict:
        return evaluate_folds(lambda r, f: p["level"] + L[r][f], n_folds=3, n_replicas=2, trial=trial)

    study = tf.Study.create(
        space={"level": tf.Real(0.0, 10.0)},
        seed=0,
        pruner=tf.MedianPruner(n_startup_trials=1),
        direction="maximize",
    )
    for level in (1.0, 0.0):
        study.enqueue({"level": level})
    study.optimize(objective, 2)
    assert [t.state for t in study.trials] == [TrialState.COMPLETE, TrialState.PRUNED]
    assert study.trials[0].user_attrs["loss_variance"] == pytest.approx(1.0)
    # pruned after its first fold: replica means 1 and 3, sample variance 2, over 2 replicas
    assert study.trials[1].user_attrs["loss_variance"] == pytest.approx(1.0)
    observed = study.history().complete
    assert [o.loss for o in observed] == [-4.0, -2.0]  # maximized: negated, variances unchanged
    assert [o.loss_variance for o in observed] == pytest.approx([1.0, 1.0])


def test_a_bad_loss_variance_fails_the_trial_naming_it() -> None:
    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, seed=0)
    study.optimize(lambda p: {"loss": 1.0, "loss_variance": -2.0}, 1)
    trial = study.trials[0]
    assert trial.state is TrialState.FAILED
    assert (
        "loss_variance must be a finite number >= 0, but got loss_variance=-2.0"
        in trial.system_attrs["fail_reason"]
    )


def test_a_diverged_fold_with_a_trial_fails_it_for_that_reason() -> None:
    """A NaN fold used to fail the trial with a StorageError (NaN is not JSON):
    the reason is the diverged fold, and every fold is kept (the diverged one as null)."""
    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, seed=0)

    def objective(p: dict, trial: tf.Trial) -> dict:
        return evaluate_folds(lambda r, f: [0.3, math.nan, 0.3][f], n_folds=3, trial=trial)

    study.optimize(objective, 1)
    trial = study.trials[0]
    assert trial.state is TrialState.FAILED and "every fold loss must be finite" in trial.system_attrs["fail_reason"]
    assert trial.user_attrs["fold_losses"] == [[0.3, None]]  # the diverged fold as null
