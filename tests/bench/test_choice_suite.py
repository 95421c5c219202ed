"""The choice suite's problems and its split into a design and a held-out part."""

from __future__ import annotations

import numpy as np
import pytest
from bench.suites import choice_problems as binary
from bench.suites.categorical import DESIGN, HELD_OUT, PROBLEMS, grid_optimum
from bench.suites.choice_problems import contamination, labs, maxcut


def test_a_third_of_the_problems_is_held_out_and_the_parts_are_disjoint() -> None:
    assert set(DESIGN) | set(HELD_OUT) == set(PROBLEMS)
    assert not set(DESIGN) & set(HELD_OUT)
    assert len(HELD_OUT) * 3 >= len(PROBLEMS)  # a third or more


def test_contamination_control_charges_prevention_and_rewards_safe_stages() -> None:
    """Preventing at every stage costs 1.01 a stage and keeps (nearly) every lot under the limit;
    never preventing costs nothing and lets the contamination grow past it."""
    never, always = contamination(np.zeros(25)), contamination(np.ones(25))
    assert always == pytest.approx(25 * 1.01 - 25 * 0.05)  # every lot under the limit at every stage
    assert never > 0.0
    assert contamination(np.zeros(25)) == never  # fixed draws: a deterministic objective
    best_of_few = min(contamination(x) for x in np.random.default_rng(0).integers(0, 2, (64, 25)))
    assert best_of_few < min(never, always)


def test_the_grid_optimum_is_the_least_value_on_the_grid() -> None:
    d, options, f = PROBLEMS["styblinski5_grid"]
    assert grid_optimum("styblinski5_grid") <= min(f(np.full(d, v)) for v in options)
    assert grid_optimum("contamination25") == 0.0


def test_labs_is_minus_the_merit_factor_and_maxcut_minus_the_fraction_cut() -> None:
    barker = np.array([1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 0, 1])  # Barker 13: every |C_k| <= 1, E = 6
    assert labs(barker) == pytest.approx(-(13**2) / 12)
    assert labs(1 - barker) == labs(barker)  # the sign of every element flipped: the same sequence
    assert maxcut(np.zeros(30)) == 0.0 and maxcut(np.ones(30)) == 0.0
    x = np.random.default_rng(1).integers(0, 2, 30)
    assert maxcut(x) == maxcut(1 - x) and -1.0 < maxcut(x) < 0.0


def test_ising_sparsification_is_zero_divergence_with_every_interaction_kept() -> None:
    """Keeping every interaction leaves the model as it is (KL 0, the penalty alone); removing
    them all costs far more than the penalty saves; the divergence is never negative."""
    assert binary.ising(np.ones(24)) == pytest.approx(24 * binary.ISING_LAMBDA)
    assert binary.ising_small(np.ones(22)) == pytest.approx(22 * binary.ISING_LAMBDA)
    assert binary.ising(np.zeros(24)) > 1.0 and binary.ising_small(np.zeros(22)) > 1.0
    for x in np.random.default_rng(0).integers(0, 2, (8, 24)):
        assert binary.ising(x) >= binary.ISING_LAMBDA * x.sum() - 1e-12


def test_feature_selection_beats_the_base_rate_and_charges_each_feature() -> None:
    pytest.importorskip("sklearn")
    none, every = binary.feature_selection(np.zeros(30)), binary.feature_selection(np.ones(30))
    assert none == pytest.approx(0.66, abs=0.01)  # log loss of the base rate (212 of 569 malignant)
    assert every < none
    assert binary.feature_selection(np.ones(30)) == every  # fixed folds: a deterministic objective


def test_maxsat_is_the_share_of_weight_unsatisfied_and_knapsack_charges_overweight() -> None:
    x = np.random.default_rng(2).integers(0, 2, 32)
    assert 0.0 < binary.maxsat(x) < 1.0 and binary.maxsat(x) == binary.maxsat(x.copy())
    assert binary.knapsack(np.zeros(30)) == 0.0  # nothing packed, nothing over
    assert binary.knapsack(np.ones(30)) == pytest.approx(-1.0 + 2.0 * 2.0)  # everything: twice the capacity over
    light = np.zeros(30)
    light[0] = 1
    assert binary.knapsack(light) < 0.0  # one item fits
