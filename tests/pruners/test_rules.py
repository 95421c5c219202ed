"""Each pruner's decision against a hand computation on small curves."""

from __future__ import annotations

import math

import numpy as np
import pytest

import treefarm as tf
from treefarm.exceptions import StudyError
from treefarm.objectives import Objectives
from treefarm.pruners import Curves
from treefarm.pruners.hyperband import bracket_edges, bracket_of, bracket_sizes

EARLIER = {0: {1: 1.0, 2: 0.5}, 1: {1: 2.0, 2: 1.5}, 2: {1: 3.0, 2: 2.5}}


def curves(
    curve: dict[int, float], earlier: dict = EARLIER, *, number: int = 3, maximize: bool = False
) -> Curves:
    return Curves(number, curve, earlier, Objectives.single("maximize" if maximize else "minimize"))


# ------------------------------------------------------------------ median / percentile
def test_median_stops_a_trial_worse_than_the_median_of_earlier_trials_at_its_step() -> None:
    pruner = tf.MedianPruner(n_startup_trials=3)
    assert pruner.prune(curves({1: 2.5}))  # 2.5 > median(1, 2, 3) = 2
    assert not pruner.prune(curves({1: 2.0}))  # ties go on
    # judged by its best so far (1.4) against step 2's median(0.5, 1.5, 2.5) = 1.5
    assert not pruner.prune(curves({1: 2.5, 2: 1.4}))
    assert pruner.prune(curves({1: 2.5, 2: 1.6}))


def test_median_waits_for_startup_trials_and_warmup_and_judges_every_interval() -> None:
    assert not tf.MedianPruner(n_startup_trials=4).prune(curves({1: 9.0}))
    assert not tf.MedianPruner(n_startup_trials=3, n_warmup_steps=2).prune(curves({1: 9.0}))
    assert tf.MedianPruner(n_startup_trials=3, n_warmup_steps=2).prune(curves({1: 9.0, 2: 9.0}))
    assert not tf.MedianPruner(n_startup_trials=3, interval_steps=2).prune(curves({1: 9.0}))
    assert tf.MedianPruner(n_startup_trials=3, interval_steps=2).prune(curves({1: 9.0, 2: 9.0}))


def test_median_ignores_later_trials_and_follows_the_direction() -> None:
    later = {**EARLIER, 7: {1: 100.0}, 8: {1: 100.0}}
    assert tf.MedianPruner(n_startup_trials=3).prune(curves({1: 2.5}, later))
    # maximizing, the losses are -1, -2, -3: median -2; 2.5 -> -2.5 is better
    assert not tf.MedianPruner(n_startup_trials=3).prune(curves({1: 2.5}, maximize=True))
    assert tf.MedianPruner(n_startup_trials=3).prune(curves({1: 1.5}, maximize=True))


def test_percentile_interpolates_linearly_and_nan_stops() -> None:
    pruner = tf.PercentilePruner(25.0, n_startup_trials=3)
    assert pruner.prune(curves({1: 1.6}))  # 25th percentile of (1, 2, 3) is 1.5
    assert not pruner.prune(curves({1: 1.5}))
    assert pruner.prune(curves({1: math.nan}))
    nan_earlier = {0: {1: math.nan}, 1: {1: math.nan}, 2: {1: 1.0}}
    assert not pruner.prune(curves({1: 5.0}, nan_earlier))  # NaN counts as the worst loss


def test_percentile_rejects_bad_settings_naming_them() -> None:
    with pytest.raises(StudyError, match="percentile=101"):
        tf.PercentilePruner(101)
    with pytest.raises(StudyError, match="interval_steps=0"):
        tf.MedianPruner(interval_steps=0)


# ----------------------------------------------------------------- successive halving
def test_asha_keeps_the_best_third_of_the_trials_at_a_rung() -> None:
    asha = tf.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3)
    assert not asha.prune(curves({1: 0.9}, {}, number=0))  # the first trial always goes on
    assert asha.prune(curves({1: 0.6}, {0: {1: 0.5}}, number=1))  # n=2 -> keep 1: only a new best
    five = {i: {1: v} for i, v in enumerate([0.1, 0.2, 0.3, 0.4, 0.5])}
    # six competitors keep max(1, 6 // 3) = 2: the two lowest are 0.1 and 0.2
    assert not asha.prune(curves({1: 0.2}, five, number=5))
    assert asha.prune(curves({1: 0.25}, five, number=5))


def test_asha_judges_only_when_a_report_first_reaches_a_rung() -> None:
    asha = tf.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3)
    earlier = {0: {1: 0.1, 2: 0.1, 3: 0.1}}
    assert not asha.prune(curves({1: 0.05, 2: 0.9}, earlier, number=1))  # step 2 is no rung
    assert asha.prune(curves({1: 0.05, 2: 0.9, 3: 0.9}, earlier, number=1))  # rung 3: 0.9 > 0.1
    # a report that jumps past rung 3 is judged there against the others' first value at >= 3
    assert asha.prune(curves({1: 0.05, 5: 0.2}, {0: {1: 0.1, 4: 0.15, 9: 0.5}}, number=1))
    assert not asha.prune(curves({1: 0.05, 5: 0.14}, {0: {1: 0.1, 4: 0.15, 9: 0.5}}, number=1))


def test_asha_rungs_start_at_the_early_stopping_rate_and_end_before_max_resource() -> None:
    late = tf.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3, min_early_stopping_rate=1)
    assert not late.prune(curves({1: 0.9}, {0: {1: 0.1}}, number=1))  # first rung is 3
    assert late.prune(curves({1: 0.9, 3: 0.9}, {0: {1: 0.1, 3: 0.1}}, number=1))
    capped = tf.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3, max_resource=9)
    done = {0: {1: 0.1, 3: 0.1, 9: 0.1}}
    assert not capped.prune(curves({1: 0.05, 3: 0.05, 9: 0.9}, done, number=1))  # 9 is the end, not a rung
    assert capped.budget(4) == 9


def test_asha_rejects_max_resource_below_min_resource() -> None:
    with pytest.raises(StudyError, match=r"min_resource <= max_resource must hold.*min_resource=5"):
        tf.SuccessiveHalvingPruner(min_resource=5, max_resource=2)


# --------------------------------------------------------------------------- hyperband
def test_hyperband_bracket_sizes_are_hyperbands_n() -> None:
    # s_max = log3(27) = 3; n_b = ceil(4 / (4 - b) * 3**(3 - b)) for b = 0..3
    assert bracket_sizes(1, 27, 3).tolist() == [27, 12, 6, 4]
    assert bracket_sizes(1, 8, 2).tolist() == [8, 6, 4, 4]
    assert bracket_sizes(1, 1, 3).tolist() == [1]


def test_hyperband_shares_trials_among_brackets_in_proportion() -> None:
    sizes = bracket_sizes(1, 27, 3)
    edges = bracket_edges(sizes)
    counts = np.bincount([bracket_of(n, edges) for n in range(4900)], minlength=4)
    np.testing.assert_allclose(counts / 4900, sizes / sizes.sum(), atol=0.005)
    first = [bracket_of(n, edges) for n in range(8)]
    assert len(set(first)) >= 3  # brackets interleave from the start


def test_hyperband_trial_competes_only_within_its_bracket() -> None:
    hb = tf.HyperbandPruner(min_resource=1, max_resource=27, reduction_factor=3)
    assert hb.bracket(0) == 0  # frac(0 * golden) = 0 falls in the first bracket
    number = next(n for n in range(1, 100) if hb.bracket(n) == 0)
    other = {n: {1: 0.0} for n in range(1, number) if hb.bracket(n) != 0}
    assert other  # brackets interleave, so there are rivals in other brackets
    assert not hb.prune(curves({1: 0.5}, other, number=number))  # they do not count
    assert hb.prune(curves({1: 0.5}, {**other, 0: {1: 0.1}}, number=number))
    safe = next(n for n in range(1, 100) if hb.bracket(n) == 3)
    rivals = {n: dict.fromkeys(range(1, 28), 0.0) for n in range(safe) if hb.bracket(n) == 3}
    assert not any(
        hb.prune(curves(dict.fromkeys(range(1, k + 1), 1.0), rivals, number=safe)) for k in range(1, 27)
    )
    assert hb.budget(safe) == 27


# ------------------------------------------------------------------ threshold, patience
def test_threshold_stops_outside_the_bounds_after_warmup() -> None:
    pruner = tf.ThresholdPruner(upper=1.0, n_warmup_steps=2)
    assert not pruner.prune(curves({1: 5.0}, {}))
    assert pruner.prune(curves({1: 5.0, 2: 1.5}, {}))
    assert not pruner.prune(curves({1: 5.0, 2: 1.0}, {}))
    assert tf.ThresholdPruner(lower=0.2).prune(curves({0: 0.1}, {}))
    assert tf.ThresholdPruner(lower=0.2).prune(curves({0: math.nan}, {}))
    with pytest.raises(StudyError, match=r"lower <= upper must hold, but got \(lower=2, upper=1\)"):
        tf.ThresholdPruner(lower=2, upper=1)
    with pytest.raises(StudyError, match="upper=-inf would stop every trial"):
        tf.ThresholdPruner(upper=-math.inf)
    with pytest.raises(StudyError, match="lower=inf would stop every trial"):
        tf.ThresholdPruner(lower=math.inf)
    assert tf.ThresholdPruner(upper=np.float32(1.0), lower=np.int64(0)).lower == 0.0  # NumPy numbers
    with pytest.raises(StudyError, match="beyond the float range"):
        tf.ThresholdPruner(upper=10**400)


def test_patience_stops_when_the_last_reports_do_not_improve_the_best() -> None:
    pruner = tf.PatiencePruner(2)
    assert not pruner.prune(curves({1: 1.0, 2: 1.1}, {}))  # only two reports: too early
    assert pruner.prune(curves({1: 1.0, 2: 1.1, 3: 1.0}, {}))  # min(1.1, 1.0) = 1.0, not < 1.0
    assert not pruner.prune(curves({1: 1.0, 2: 1.1, 3: 0.99}, {}))
    # min_delta: an improvement must beat the old best by more than 0.05
    assert tf.PatiencePruner(2, min_delta=0.05).prune(curves({1: 1.0, 2: 1.1, 3: 0.99}, {}))
    assert tf.PatiencePruner(1).prune(curves({1: 1.0, 2: 0.5}, {}, maximize=True))
    with pytest.raises(StudyError, match="patience=0"):
        tf.PatiencePruner(0)


def test_pruner_arguments_take_numpy_integers_and_name_a_missing_budget() -> None:
    import numpy as np

    asha = tf.SuccessiveHalvingPruner(min_resource=np.int64(1), reduction_factor=np.int64(3), max_resource=np.int64(9))
    hb = tf.HyperbandPruner(min_resource=np.int64(1), max_resource=np.int64(81), reduction_factor=np.int64(3))
    stored = (asha.min_resource, asha.reduction_factor, asha.budget(0), hb.min_resource, hb.reduction_factor, hb.budget(0))
    assert stored == (1, 3, 9, 1, 3, 81) and all(type(v) is int for v in stored)  # plain ints, as stored and reported
    with pytest.raises(StudyError, match="max_resource must be an integer >= 1, but got max_resource=None"):
        tf.HyperbandPruner(max_resource=None)  # type: ignore[arg-type]
