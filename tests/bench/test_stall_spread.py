"""bench.screens.stall_spread: a stall's proposals counted near or away from the incumbent."""

from __future__ import annotations

import numpy as np
from bench.screens.stall_spread import away_during_stall


def test_proposals_of_the_final_stall_are_counted_by_their_distance_to_the_incumbent() -> None:
    regret = np.array([5.0, 3.0, 1.0, *([1.0] * 60)])  # best at evaluation 2, then 60 without a cut
    points = np.zeros((len(regret), 2))
    points[2] = [0.5, 0.5]
    points[3:] = [0.5, 0.5]  # sitting on the incumbent...
    points[3::2] = [0.9, 0.1]  # ...but every other proposal far from it
    stall, away = away_during_stall(regret, points, 0.05)
    assert stall == 60
    assert away == 30


def test_a_converged_run_has_no_stall() -> None:
    regret = np.array([1.0, 1e-3, 1e-3])
    assert away_during_stall(regret, np.zeros((3, 2)), 0.05) == (0, 0)
