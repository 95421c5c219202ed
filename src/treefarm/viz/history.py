"""How a study went: best value so far, several studies' median and band, learning curves.

Pure data (NumPy, no matplotlib): the static plots and the dashboard draw the
same arrays. Large studies are downsampled where the eye cannot tell the
difference, and every result says how many points it shows of how many:

* the best-so-far curve is a step function, kept exactly by its change
  points (at most one per improvement, a few dozen even on 100,000 trials);
* the cloud of individual values is an evenly spaced subsample of at most
  ``max_points`` (every k-th trial, so its density over time is kept);
* learning curves are limited to ``max_curves`` trials, the best ones first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..exceptions import StudyError, format_values
from ..objectives import Objectives
from ..storage import TrialRecord
from .source import complete_trials, sign

__all__ = [
    "Band",
    "Convergence",
    "LearningCurves",
    "best_so_far",
    "convergence",
    "convergence_band",
    "intermediate_curves",
]

X_AXES = ("number", "time")


@dataclass(frozen=True)
class Convergence:
    """Best value so far (``best_x``, ``best``: the change points of the step
    function, ending at the last trial) and a subsample of the values
    (``x``, ``value``); ``x`` is the trial number or seconds since the first start."""

    x: np.ndarray
    value: np.ndarray
    best_x: np.ndarray
    best: np.ndarray
    shown: int
    total: int
    axis: str


@dataclass(frozen=True)
class Band:
    """Best so far after ``n`` completed trials (``n`` = 1..len) across studies:
    the median and the interquartile band (25th to 75th percentile)."""

    n: np.ndarray
    median: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n_studies: int


@dataclass(frozen=True)
class LearningCurves:
    """Intermediate values of up to ``max_curves`` trials: ``numbers[i]`` reported
    ``values[i]`` at ``steps[i]``."""

    numbers: list[int]
    steps: list[np.ndarray]
    values: list[np.ndarray]
    shown: int
    total: int


def best_so_far(values: np.ndarray, direction: str) -> np.ndarray:
    """The running best of ``values`` (running minimum, or maximum to maximize), (n,) -> (n,)."""
    return Objectives.single(direction).running_best(values) if len(values) else np.array([])


def _change_points(best: np.ndarray) -> np.ndarray:
    """Indices where ``best`` changes, plus the first and the last index."""
    if len(best) == 0:
        return np.array([], dtype=int)
    changes = np.flatnonzero(np.diff(best) != 0) + 1
    return np.unique(np.concatenate([[0], changes, [len(best) - 1]]))


def _even(n: int, k: int) -> np.ndarray:
    """At most ``k`` evenly spaced indices of ``range(n)``, the first and last included."""
    return np.arange(n) if n <= k else np.unique(np.linspace(0, n - 1, k).round().astype(int))


def convergence(
    trials: Sequence[TrialRecord], *, direction: str, axis: str = "number", max_points: int = 2000
) -> Convergence:
    """The best value so far over the trial number or over time (``axis="time"``:
    seconds from the first trial's start to each trial's end)."""
    if axis not in X_AXES:
        raise StudyError(f"axis must be one of {list(X_AXES)}, but got {format_values(axis=axis)}")
    done = complete_trials(trials)
    if axis == "time":
        t0 = min((t.started for t in trials if t.started is not None), default=0.0)
        done = sorted((t for t in done if t.finished is not None), key=lambda t: float(t.finished or 0.0))
        x = np.array([float(t.finished or 0.0) - t0 for t in done])
    else:
        x = np.array([float(t.number) for t in done])
    values = np.array([float(t.value or 0.0) for t in done])
    best = best_so_far(values, direction)
    keep, steps = _even(len(x), max_points), _change_points(best)
    return Convergence(x[keep], values[keep], x[steps], best[steps], len(keep), len(x), axis)


def convergence_band(studies: Sequence[Sequence[TrialRecord]], *, direction: str) -> Band:
    """Median and interquartile range over studies of the best so far after ``n``
    completed trials; past a study's end it no longer counts (NaN-aware)."""
    curves = [
        best_so_far(np.array([t.value for t in complete_trials(s)], dtype=float), direction) for s in studies
    ]
    length = max((len(c) for c in curves), default=0)
    grid = np.full((len(curves), length), np.nan)
    for i, c in enumerate(curves):
        grid[i, : len(c)] = c
    if length == 0:
        empty = np.array([])
        return Band(empty, empty, empty, empty, len(curves))
    low, median, high = np.nanpercentile(grid, [25, 50, 75], axis=0)
    return Band(np.arange(1, length + 1), median, low, high, len(curves))


def intermediate_curves(trials: Sequence[TrialRecord], *, direction: str, max_curves: int = 200) -> LearningCurves:
    """The learning curves of the trials that reported intermediate values: all
    if at most ``max_curves``, else the ``max_curves`` whose last value is best."""
    reported = [t for t in trials if t.intermediate]
    s = sign(direction)

    def last(t: TrialRecord) -> float:
        value = t.intermediate[max(t.intermediate)]
        return s * value if np.isfinite(value) else np.inf

    chosen = sorted(sorted(reported, key=last)[:max_curves], key=lambda t: t.number)
    steps = [np.array(sorted(t.intermediate), dtype=float) for t in chosen]
    values = [np.array([t.intermediate[k] for k in sorted(t.intermediate)], dtype=float) for t in chosen]
    return LearningCurves([t.number for t in chosen], steps, values, len(chosen), len(reported))
