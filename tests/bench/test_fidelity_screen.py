"""The fidelity screen's functions are the published ones at full fidelity, and its costs add up."""

from __future__ import annotations

import math

import numpy as np
import pytest
from bench.screens.fidelity_model import FUNCTIONS, MAX_STEPS, best_at, step_cost


def test_the_known_minima_are_reached_at_full_fidelity() -> None:
    branin, _ = FUNCTIONS["branin"]
    assert branin(np.array([(math.pi + 5) / 15, 2.275 / 15]), 1.0) == pytest.approx(0.0, abs=1e-5)
    hartmann3, _ = FUNCTIONS["hartmann3"]
    assert hartmann3(np.array([0.114614, 0.555649, 0.852547]), 1.0) == pytest.approx(0.0, abs=1e-4)
    hartmann6, _ = FUNCTIONS["hartmann6"]
    x6 = np.array([0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573])
    assert hartmann6(x6, 1.0) == pytest.approx(0.0, abs=1e-4)


def test_a_full_run_costs_one_and_noise_is_fixed_per_point_and_step() -> None:
    assert sum(step_cost(s) for s in range(1, MAX_STEPS + 1)) == pytest.approx(1.0)
    noisy, d = FUNCTIONS["branin_noise"]
    x = np.full(d, 0.3)
    assert noisy(x, 1 / 27) == noisy(x, 1 / 27) != noisy(x, 2 / 27)
    assert noisy(x, 1.0) == FUNCTIONS["branin"][0](x, 1.0)


def test_the_best_counts_full_runs_within_the_cost_only() -> None:
    trials = [{"value": 3.0, "cost": 1.0}, {"value": None, "cost": 1.1}, {"value": 1.0, "cost": 2.5}]
    assert best_at(trials, 2.0) == 3.0 and best_at(trials, 30.0) == 1.0 and best_at(trials, 0.5) == math.inf
