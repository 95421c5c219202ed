"""Dominance between loss vectors, non-domination ranks and crowding distance.

Deb, Pratap, Agarwal & Meyarivan (2002), "A fast and elitist multiobjective
genetic algorithm: NSGA-II": the ranks are the fronts of the fast
non-dominated sort, the crowding distance the sum over objectives of each
point's normalized neighbour gap within its front (boundary points infinite).
"""

from __future__ import annotations

import bisect

import numpy as np

__all__ = ["crowding_distance", "dominates", "nondominated_mask", "nondomination_ranks"]


def _matrix(Y: np.ndarray) -> np.ndarray:
    Y = np.asarray(Y, dtype=float)
    if Y.ndim != 2:
        raise ValueError(f"losses must have shape (n, m), but got shape {Y.shape}")
    return Y


def dominates(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether loss vector ``a`` Pareto-dominates ``b``: no worse in every
    objective and better in at least one."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return bool(np.all(a <= b) and np.any(a < b))


def _domination_matrix(Y: np.ndarray) -> np.ndarray:
    """``D[i, j]``: whether row ``i`` dominates row ``j``."""
    le = np.all(Y[:, None, :] <= Y[None, :, :], axis=2)
    lt = np.any(Y[:, None, :] < Y[None, :, :], axis=2)
    return le & lt


def _front_2d(Y: np.ndarray) -> np.ndarray:
    """The two-objective front in O(n log n): among the distinct rows sorted
    lexicographically, a row is dominated exactly when an earlier one has a
    second objective no larger (it is then no worse in both and differs)."""
    unique, inverse = np.unique(Y, axis=0, return_inverse=True)
    earlier_min = np.minimum.accumulate(np.concatenate([[np.inf], unique[:-1, 1]]))
    return np.asarray(earlier_min > unique[:, 1])[inverse.reshape(-1)]


def _ranks_2d(Y: np.ndarray) -> np.ndarray:
    """Two-objective front indices in O(n log n): among the distinct rows in
    lexicographic order each earlier row is no worse in the first objective, so a
    row's front is the first whose least second objective so far exceeds its own
    (those least values rise with the front: each row of a later front has a
    dominator, with a smaller second objective, in the one before)."""
    unique, inverse = np.unique(Y, axis=0, return_inverse=True)
    least: list[float] = []
    ranks = np.empty(len(unique), dtype=int)
    for i, second in enumerate(unique[:, 1].tolist()):
        k = bisect.bisect_right(least, second)
        if k == len(least):
            least.append(second)
        else:
            least[k] = second
        ranks[i] = k
    return ranks[inverse.reshape(-1)]


def nondominated_mask(Y: np.ndarray) -> np.ndarray:
    """Which rows of ``Y`` no other row dominates (the Pareto front); equal rows
    are all kept. Two objectives take a sort (the front of a long study is read
    after every trial); more compare every pair."""
    Y = _matrix(Y)
    if len(Y) == 0:
        return np.zeros(0, dtype=bool)
    if Y.shape[1] == 2 and not np.isnan(Y).any():
        return _front_2d(Y)
    return np.asarray(~_domination_matrix(Y).any(axis=0))


def nondomination_ranks(Y: np.ndarray) -> np.ndarray:
    """The front index of every row: 0 for the Pareto front, 1 for the front of
    what remains without it, and so on (the fast non-dominated sort; two
    objectives by a sort, as long studies read it at every suggestion)."""
    Y = _matrix(Y)
    n = len(Y)
    ranks = np.full(n, -1, dtype=int)
    if n == 0:
        return ranks
    if Y.shape[1] == 2 and not np.isnan(Y).any():
        return _ranks_2d(Y)
    D = _domination_matrix(Y)
    dominated_by = D.sum(axis=0)
    front = np.flatnonzero(dominated_by == 0)
    rank = 0
    while front.size:
        ranks[front] = rank
        dominated_by = dominated_by - D[front].sum(axis=0)
        dominated_by[ranks >= 0] = -1
        front = np.flatnonzero(dominated_by == 0)
        rank += 1
    return ranks


def crowding_distance(Y: np.ndarray) -> np.ndarray:
    """NSGA-II's crowding distance of each row within the set ``Y`` (one front):
    larger means more isolated; the extremes of every objective are infinite."""
    Y = _matrix(Y)
    n, m = Y.shape
    distance = np.zeros(n)
    if n <= 2:
        return np.full(n, np.inf)
    for j in range(m):
        order = np.argsort(Y[:, j], kind="stable")
        column = Y[order, j]
        span = column[-1] - column[0]
        distance[order[0]] = distance[order[-1]] = np.inf
        if span > 0:
            distance[order[1:-1]] += (column[2:] - column[:-2]) / span
    return distance
