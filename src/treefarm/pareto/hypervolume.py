"""The hypervolume indicator: the volume a set of loss vectors dominates up to a
reference point (Zitzler & Thiele 1998), exactly.

Two objectives take a sweep over the front sorted by the first (O(n log n));
more take the hypervolume-by-slicing-objectives recursion (While, Hingston,
Barone & Huband 2006, "A faster algorithm for calculating hypervolume"): the
points sorted by the last objective cut the volume into slabs, each the
(m-1)-dimensional hypervolume of the points below it times its height.
That is exact and fast for the fronts a study has (hundreds of points, two
to four objectives).
"""

from __future__ import annotations

import numpy as np

from .dominance import nondominated_mask

__all__ = ["hypervolume", "hypervolume_contributions", "reference_point"]


def _points(Y: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    Y = np.asarray(Y, dtype=float)
    ref = np.asarray(ref, dtype=float)
    if Y.ndim != 2 or ref.shape != (Y.shape[1],):
        raise ValueError(f"hypervolume needs losses of shape (n, m) and a reference of shape (m,), but got {Y.shape} and {ref.shape}")
    if not np.all(np.isfinite(ref)):
        raise ValueError(f"the reference point must be finite, but got {ref.tolist()}")
    inside = np.all(ref > Y, axis=1)
    return Y[inside], ref


def _sweep2(Y: np.ndarray, ref: np.ndarray) -> float:
    order = np.lexsort((Y[:, 1], Y[:, 0]))
    volume, best_second = 0.0, ref[1]
    for x, y in Y[order]:
        if y < best_second:
            volume += (ref[0] - x) * (best_second - y)
            best_second = y
    return float(volume)


def _slices(Y: np.ndarray, ref: np.ndarray) -> float:
    m = Y.shape[1]
    if len(Y) == 0:
        return 0.0
    if m == 1:
        return float(ref[0] - Y[:, 0].min())
    if m == 2:
        return _sweep2(Y, ref)
    Y = Y[nondominated_mask(Y)]
    order = np.argsort(Y[:, -1], kind="stable")
    Y = Y[order]
    volume = 0.0
    for i in range(len(Y)):
        top = Y[i + 1, -1] if i + 1 < len(Y) else ref[-1]
        height = top - Y[i, -1]
        if height > 0:
            volume += height * _slices(Y[: i + 1, :-1], ref[:-1])
    return float(volume)


def hypervolume(Y: np.ndarray, ref: np.ndarray) -> float:
    """The volume dominated by the rows of ``Y`` (losses, minimized) and bounded
    by ``ref``; rows not better than ``ref`` in every objective add nothing."""
    points, ref = _points(Y, ref)
    return _slices(points, ref)


def hypervolume_contributions(Y: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Each row's exclusive contribution: the hypervolume lost without it
    (0 for a dominated row, a duplicate, or one outside the reference box).
    Exact, by one hypervolume without each front point."""
    Y = np.asarray(Y, dtype=float)
    ref = np.asarray(ref, dtype=float)
    _points(Y, ref)  # validates the shapes
    contributions = np.zeros(len(Y))
    candidates = np.flatnonzero(np.all(ref > Y, axis=1) & nondominated_mask(Y))
    if candidates.size == 0:
        return contributions
    inside = Y[np.all(ref > Y, axis=1)]
    total = _slices(inside, ref)
    for i in candidates:
        others = np.delete(Y, i, axis=0)
        contributions[i] = total - _slices(others[np.all(others < ref, axis=1)], ref)
    return np.maximum(contributions, 0.0)


def reference_point(Y: np.ndarray) -> np.ndarray:
    """A reference point from the data: the worst value of each objective plus a
    tenth of its range (of its magnitude, or 1, when the range is zero), as is
    usual when the user gives none."""
    Y = np.asarray(Y, dtype=float)
    worst, best = Y.max(axis=0), Y.min(axis=0)
    span = worst - best
    span = np.where(span > 0, span, np.maximum(np.abs(worst), 1.0))
    return worst + 0.1 * span
