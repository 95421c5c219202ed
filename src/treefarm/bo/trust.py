"""A trust region around the incumbent: the GP's acquisition kept local in a curved valley.

A GP over the whole cube models an ill-conditioned, curved valley (Rosenbrock's,
a rotated ellipsoid's) poorly in 10 or more dimensions: its length scales are
those of the whole box, and expected improvement keeps proposing far from the
valley's floor. TuRBO (Eriksson et al. 2019, "Scalable global optimization via
local Bayesian optimization") maximizes the acquisition in a box around the
best point instead, a box that doubles after ``SUCCESS_TOLERANCE`` successes in
a row, halves after ``failure_tolerance(d)`` failures in a row, and restarts
at its first side once it is smaller than :data:`LENGTH_MIN`. Its sides follow
the GP's length scales (normalized to a geometric mean of 1), so the box is
long where the model varies slowly.

The region is a pure function of the losses in trial order: :func:`replay`
walks them from the trial where the region began, so a resumed study or a
second worker reading the same storage gets the same box.

Notation (shapes): d encoded columns; ``center``, ``lengthscales`` (d,).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "LENGTH_INIT",
    "LENGTH_MAX",
    "LENGTH_MIN",
    "SUCCESS_TOLERANCE",
    "Region",
    "box",
    "failure_tolerance",
    "replay",
    "within",
]

#: The region's side (before the length scales' shaping) at its start and at each restart (TuRBO's).
LENGTH_INIT = 0.8
#: Below this side the region restarts (TuRBO's 0.5^7).
LENGTH_MIN = 0.5**7
#: The side never grows beyond this (TuRBO's 1.6: twice the start).
LENGTH_MAX = 1.6
#: Successes in a row after which the side doubles.
SUCCESS_TOLERANCE = 3
#: A loss improves on the best when it is lower by more than this fraction of the best's magnitude.
RELATIVE_IMPROVEMENT = 1e-3


def failure_tolerance(d: int) -> int:
    """Failures in a row after which the side halves: TuRBO's ``max(4, d)`` for one
    suggestion at a time, so a region gets about one try per dimension first."""
    return max(4, d)


@dataclass(frozen=True)
class Region:
    """The trust region after the replayed losses: its ``length`` (side before
    shaping), its ``restarts`` so far, and whether the last loss ended a region
    (``restarted``: the next suggestion is a global one)."""

    length: float
    restarts: int
    restarted: bool


def replay(losses: Sequence[float] | np.ndarray, start: int, d: int) -> Region:
    """The region after ``losses`` (in trial order) when it began at loss ``start``
    (the losses before it set the best to improve on): each later loss is a success
    when it is lower than the best by more than :data:`RELATIVE_IMPROVEMENT` of the
    best's magnitude (TuRBO's rule), else a failure; ``SUCCESS_TOLERANCE``
    successes in a row double the side (up to :data:`LENGTH_MAX`),
    ``failure_tolerance(d)`` failures in a row halve it, and a side below
    :data:`LENGTH_MIN` restarts the region at :data:`LENGTH_INIT`."""
    losses = [float(y) for y in losses]
    finite = [y for y in losses[:start] if math.isfinite(y)]
    best = min(finite) if finite else math.inf
    length, restarts, restarted = LENGTH_INIT, 0, False
    successes = failures = 0
    patience = failure_tolerance(d)
    for y in losses[start:]:
        restarted = False
        if not math.isfinite(y):
            continue
        if not math.isfinite(best) or y < best - RELATIVE_IMPROVEMENT * abs(best):
            successes, failures = successes + 1, 0
        else:
            successes, failures = 0, failures + 1
        best = min(best, y)
        if successes == SUCCESS_TOLERANCE:
            length, successes = min(2.0 * length, LENGTH_MAX), 0
        elif failures == patience:
            length, failures = length / 2.0, 0
        if length < LENGTH_MIN:
            length, restarts, restarted = LENGTH_INIT, restarts + 1, True
    return Region(length, restarts, restarted)


def box(center: np.ndarray, lengthscales: np.ndarray, length: float) -> tuple[np.ndarray, np.ndarray]:
    """The region's box (lower, upper, each (d,)) in the unit cube: sides
    ``length`` times the length scales over their geometric mean, centred on
    ``center`` and clipped to the cube (TuRBO's shaping)."""
    weights = lengthscales / np.mean(lengthscales)
    weights = weights / np.exp(np.mean(np.log(weights)))
    half = weights * length / 2.0
    return np.clip(center - half, 0.0, 1.0), np.clip(center + half, 0.0, 1.0)


def within(points: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """Unit-cube ``points`` (m, d) mapped affinely into the box [lower, upper]."""
    return lower[None, :] + points * (upper - lower)[None, :]
