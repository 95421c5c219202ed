"""The order in which trials count as better when there are several objectives
or constraints, and the single number per trial that carries it to an
optimizer built for one loss.

Feasible trials come first (Deb 2000's constrained domination), ordered by
non-domination rank and, within a rank, by their exclusive hypervolume
contribution (two or three objectives; Ozaki, Tanigaki, Watanabe & Onishi
2020/2022 choose the good set of multi-objective TPE this way) or by crowding
distance (more objectives; Deb et al. 2002); infeasible trials follow, least
violation first.
"""

from __future__ import annotations

import numpy as np

from .dominance import crowding_distance, nondomination_ranks
from .feasibility import violations
from .hypervolume import hypervolume_contributions, reference_point

__all__ = ["pareto_order", "ranking_losses"]

#: The largest three-objective front ordered by exact hypervolume contributions
#: (each costs one hypervolume without the point); larger ones, and fronts of
#: more objectives, are ordered by crowding distance.
MAX_HV_FRONT_3D = 40


def front_contributions_2d(Y: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Exclusive hypervolume contributions within one two-objective front (no row
    dominates another): sorted by the first objective, a point's share is the
    rectangle up to its right neighbour's first and its left neighbour's second
    objective; duplicates share nothing."""
    order = np.lexsort((Y[:, 1], Y[:, 0]))
    xs, ys = Y[order, 0], Y[order, 1]
    right = np.append(xs[1:], ref[0])
    above = np.insert(ys[:-1], 0, ref[1])
    out = np.empty(len(Y))
    out[order] = np.maximum(right - xs, 0.0) * np.maximum(above - ys, 0.0)
    return out


def _within_front(Y: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """A key per row of one front, smaller first: minus the hypervolume
    contribution (two objectives, or three in a front of at most
    ``MAX_HV_FRONT_3D``), else minus the crowding distance."""
    if len(Y) <= 1:
        return np.zeros(len(Y))
    if Y.shape[1] == 2:
        return -front_contributions_2d(Y, ref)
    if Y.shape[1] == 3 and len(Y) <= MAX_HV_FRONT_3D:
        return -hypervolume_contributions(Y, ref)
    return -crowding_distance(Y)


def _feasible_order(Y: np.ndarray) -> np.ndarray:
    if len(Y) == 0:
        return np.zeros(0, dtype=int)
    if Y.shape[1] == 1:
        return np.argsort(Y[:, 0], kind="stable")
    ranks = nondomination_ranks(Y)
    ref = reference_point(Y)
    secondary = np.zeros(len(Y))
    for r in np.unique(ranks):
        members = np.flatnonzero(ranks == r)
        secondary[members] = _within_front(Y[members], ref)
    return np.lexsort((np.arange(len(Y)), secondary, ranks))


def pareto_order(Y: np.ndarray, C: np.ndarray | None = None) -> np.ndarray:
    """Row indices of the losses ``Y`` (shape ``(n, m)``, minimized), best first,
    with constraint values ``C`` (shape ``(n, k)``, feasible when ``<= 0``)
    putting every feasible row before every infeasible one. Ties keep row order."""
    Y = np.asarray(Y, dtype=float)
    n = len(Y)
    if C is None or np.asarray(C).size == 0:
        return _feasible_order(Y)
    v = violations(np.asarray(C, dtype=float).reshape(n, -1))
    feasible = np.flatnonzero(v == 0)
    infeasible = np.flatnonzero(v > 0)
    infeasible = infeasible[np.argsort(v[infeasible], kind="stable")]
    return np.concatenate([feasible[_feasible_order(Y[feasible])], infeasible]).astype(int)


def ranking_losses(Y: np.ndarray, C: np.ndarray | None = None) -> np.ndarray:
    """One loss per row that orders rows as :func:`pareto_order` does, for an
    optimizer built for a single loss.

    With one objective, feasible rows keep their loss and infeasible ones come
    after the worst feasible loss, spaced by their violation's rank (with no
    feasible row, the loss is the violation itself, which the search should then
    drive to zero). With several objectives the loss is the row's position in
    :func:`pareto_order`.
    """
    Y = np.asarray(Y, dtype=float)
    n = len(Y)
    order = pareto_order(Y, C)
    if Y.shape[1] > 1:
        keys = np.empty(n)
        keys[order] = np.arange(n, dtype=float)
        return keys
    keys = Y[:, 0].copy()
    if C is None or np.asarray(C).size == 0:
        return keys
    v = violations(np.asarray(C, dtype=float).reshape(n, -1))
    feasible = v == 0
    if not feasible.any():
        return np.where(np.isfinite(v), v, np.finfo(float).max)
    worst, best = keys[feasible].max(), keys[feasible].min()
    span = worst - best if worst > best else max(abs(worst), 1.0)
    infeasible = [i for i in order if not feasible[i]]
    for position, i in enumerate(infeasible, start=1):
        keys[i] = worst + span * position / len(infeasible)
    return keys
