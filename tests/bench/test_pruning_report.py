"""The early-stopping report reads the best error within a step budget from a run's trials."""

from __future__ import annotations

import math

from bench.suites.pruning_report import best_within, steps_to_reach, table

TRIALS = [
    {"state": "complete", "value": 0.30, "steps": 27},
    {"state": "pruned", "value": 0.10, "steps": 1},  # a pruned trial's value never counts as best
    {"state": "complete", "value": 0.20, "steps": 27},
    {"state": "pruned", "value": 0.50, "steps": 3},
    {"state": "complete", "value": 0.05, "steps": 27},
]


def test_best_within_counts_only_completed_trials_finished_inside_the_budget() -> None:
    assert best_within(TRIALS, 27) == 0.30
    assert best_within(TRIALS, 54) == 0.30  # 27 + 1 + 27 = 55 > 54
    assert best_within(TRIALS, 55) == 0.20
    assert best_within(TRIALS, math.inf) == 0.05
    assert best_within(TRIALS, 10) == math.inf


def test_steps_to_reach_a_target() -> None:
    assert steps_to_reach(TRIALS, 0.2) == 55
    assert steps_to_reach(TRIALS, 0.01) == math.inf


def test_table_compares_each_method_with_the_no_pruning_target() -> None:
    rows = [
        {"problem": "p", "method": "tf-none", "seed": 0, "trials": TRIALS},
        {"problem": "p", "method": "tf-asha", "seed": 0, "trials": TRIALS[:3]},
    ]
    text = table(rows, "p")
    assert "target = tf-none median best error 0.0500" in text
    assert "| tf-asha | 1 | 0.2000 | 55 |" in text
