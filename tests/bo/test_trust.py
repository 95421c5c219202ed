"""The trust region's rules (TuRBO's): grow on successes, shrink on failures, restart; its box."""

from __future__ import annotations

import math

import numpy as np
import pytest

from treefarm.bo.trust import (
    LENGTH_INIT,
    LENGTH_MAX,
    LENGTH_MIN,
    SUCCESS_TOLERANCE,
    box,
    failure_tolerance,
    replay,
    within,
)


def test_three_successes_in_a_row_double_the_side() -> None:
    losses = [10.0, 9.0, 8.0, 7.0]  # the first sets the best; three successes follow
    assert replay(losses, 1, d=2).length == 2 * LENGTH_INIT
    assert replay(losses[:3], 1, d=2).length == LENGTH_INIT  # two are not enough


def test_the_side_never_grows_beyond_its_maximum() -> None:
    losses = [100.0 - i for i in range(40)]
    assert replay(losses, 1, d=2).length == LENGTH_MAX


def test_failures_in_a_row_halve_the_side_and_a_success_resets_the_count() -> None:
    d = 6
    patience = failure_tolerance(d)
    assert patience == 6
    stuck = [1.0] + [2.0] * patience
    assert replay(stuck, 1, d).length == LENGTH_INIT / 2
    interrupted = [1.0] + [2.0] * (patience - 1) + [0.5] + [2.0] * (patience - 1)
    assert replay(interrupted, 1, d).length == LENGTH_INIT


def test_an_improvement_smaller_than_a_thousandth_of_the_best_is_a_failure() -> None:
    losses = [1000.0] + [1000.0 - 0.5 * (i + 1) for i in range(4)]  # steps of 0.5 < 1e-3 * 1000
    assert replay(losses, 1, d=4).length == LENGTH_INIT / 2


def test_a_side_below_its_minimum_restarts_the_region_once_and_says_so() -> None:
    d = 4
    halvings = math.ceil(math.log2(LENGTH_INIT / LENGTH_MIN))
    losses = [1.0] + [2.0] * (halvings * failure_tolerance(d))
    region = replay(losses, 1, d)
    assert (region.length, region.restarts, region.restarted) == (LENGTH_INIT, 1, True)
    after = replay([*losses, 2.0], 1, d)
    assert (after.length, after.restarts, after.restarted) == (LENGTH_INIT, 1, False)


def test_losses_before_the_start_only_set_the_best_and_failed_trials_are_skipped() -> None:
    losses = [1.0, 5.0, 5.0, math.inf, 0.5, 0.4, 0.3]
    assert replay(losses, 3, d=2).length == 2 * LENGTH_INIT
    assert replay(losses, 7, d=2).length == LENGTH_INIT


def test_the_box_follows_the_length_scales_with_a_geometric_mean_of_one() -> None:
    lower, upper = box(np.array([0.5, 0.5]), np.array([0.1, 0.4]), 0.2)
    sides = upper - lower
    assert sides == pytest.approx([0.1, 0.4])  # weights 0.5 and 2 of the side 0.2
    assert float(np.prod(sides)) == pytest.approx(0.2**2)
    assert (lower + upper) / 2 == pytest.approx([0.5, 0.5])


def test_the_box_is_clipped_to_the_unit_cube() -> None:
    lower, upper = box(np.array([0.05, 0.98]), np.array([1.0, 1.0]), 0.5)
    assert lower == pytest.approx([0.0, 0.73])
    assert upper == pytest.approx([0.30, 1.0])


def test_within_maps_the_unit_cube_onto_the_box() -> None:
    points = np.array([[0.0, 0.0], [1.0, 1.0], [0.5, 0.25]])
    mapped = within(points, np.array([0.2, 0.4]), np.array([0.6, 0.8]))
    assert mapped == pytest.approx(np.array([[0.2, 0.4], [0.6, 0.8], [0.4, 0.5]]))


def test_success_tolerance_is_turbos() -> None:
    assert SUCCESS_TOLERANCE == 3
    assert failure_tolerance(2) == 4 and failure_tolerance(10) == 10
