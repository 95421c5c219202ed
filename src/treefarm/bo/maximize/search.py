"""Maximize an acquisition over mixed continuous, integer and one-hot columns.

Notation (shapes):
    m candidates, s starts (s = min(n_starts, m)), d columns
    X0      (m, d) candidates (the caller's Sobol points, prior draws,
            perturbations of the best observations)
    free    (m, d) bool: which columns of each candidate may move (a
            conditional configuration's inactive columns stay where they are)
    X, V    (s, d), (s,) the starts as they climb, and their acquisition values
    movable (s, d) bool: free, active and continuous, the columns a gradient moves

Three stages, as in Optuna's and BoTorch's optimizers of the acquisition:

1. score every candidate (one call without gradients) and keep the
   ``n_starts`` best;
2. L-BFGS-B over the movable columns of all starts at once, box [0, 1] (or
   the caller's ``bounds``, a trust region's box): the
   starts are stacked into one problem whose objective is the sum of their
   acquisitions (its gradient is block diagonal, so each start climbs its own
   acquisition; BoTorch's ``gen_candidates_scipy`` does the same), so every
   L-BFGS-B iteration costs one call on ``s`` points instead of ``s`` calls on
   one; each start keeps the best point it was evaluated at, so no start
   ends worse than it began;
3. a greedy local search over integer levels (every other level of a column
   with at most ``_ALL_LEVELS`` levels, else jumps of 1, 2, 4, ... levels up
   or down) and one-hot groups (every other option): the neighbourhoods of
   all starts are scored in one call per move, each start moves to its best
   neighbour while that improves; the starts that moved climb their continuous columns again
   (stage 2), and the search repeats, at most ``_ROUNDS`` times.

Cost: ``m`` values, then per gradient stage a few dozen calls on at most
``s`` points with gradients, and per local-search move one call on
``s * (sum of min(levels, 2 log2 levels) + #one-hot columns)`` points
without gradients.
"""

from __future__ import annotations

import math

import numpy as np

from ..models.domain import Domain
from ..models.lbfgsb import minimize_box
from ..protocols import Acquisition

__all__ = ["maximize"]

#: Alternations of local search and gradient steps; each round only helps the
#: starts whose discrete columns moved, and two are rarely needed.
_ROUNDS = 3
#: Greedy moves per local search: a thousand levels take about ten jumps of
#: 1, 2, 4, ... levels; each move changes one column or one group.
_MAX_MOVES = 20
#: Integer columns with at most this many levels try every level in one move
#: (as Optuna's mixed optimizer does); larger ones try power-of-two jumps.
_ALL_LEVELS = 16
#: L-BFGS-B iterations of the stacked problem.
_MAX_ITER = 200


def _ascend(
    acq: Acquisition,
    X: np.ndarray,
    V: np.ndarray,
    movable: np.ndarray,
    bounds: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Stage 2: one stacked L-BFGS-B over the ``movable`` entries of the rows of ``X``,
    within ``bounds`` (lower, upper, each (d,)) or the unit cube."""
    X, V = X.copy(), V.copy()
    rows = np.flatnonzero(movable.any(1))
    if not len(rows):
        return X, V
    mask, base = movable[rows], X[rows]
    d = X.shape[1]
    lower, upper = bounds if bounds is not None else (np.zeros(d), np.ones(d))
    low, high = np.broadcast_to(lower, base.shape)[mask], np.broadcast_to(upper, base.shape)[mask]
    start_V = V[rows]
    best_X, best_V = base.copy(), start_V.copy()

    def negative(v: np.ndarray) -> tuple[float, np.ndarray]:
        Z = base.copy()
        Z[mask] = np.clip(v, low, high)
        value, grad = acq(Z)
        better = value > best_V
        best_X[better], best_V[better] = Z[better], value[better]
        # The improvement over the starts, not the sum of values: L-BFGS-B stops
        # when an iteration gains < 2.2e-9 of max(|objective|, 1), and one start
        # in log-EI's far tail (values ~ -1e6) would otherwise stop all early.
        return -float((value - start_V).sum()), -grad[mask]

    minimize_box(negative, base[mask], low, high, max_iter=_MAX_ITER)
    X[rows], V[rows] = best_X, best_V
    return X, V


def _level_moves(value: float, k: int) -> np.ndarray:
    """The other levels (as column values) an integer column with ``k``
    levels may move to from ``value``: every level when ``k <= _ALL_LEVELS``
    (Optuna's exhaustive search), else +-1, 2, 4, ... levels, so a greedy walk
    crosses a thousand levels in about ten moves."""
    current = round(value * (k - 1))
    if k <= _ALL_LEVELS:
        targets = np.arange(k)
    else:
        steps = 2 ** np.arange(int(math.log2(k - 1)) + 1)
        targets = current + np.concatenate([-steps, steps])
    return targets[(targets >= 0) & (targets < k) & (targets != current)] / (k - 1)


def _neighbours(x: np.ndarray, free: np.ndarray, domain: Domain) -> np.ndarray:
    """Points one integer move or one option away from ``x`` in its free
    active columns, shape (k, d)."""
    out = []
    for j in np.flatnonzero((domain.integer_levels >= 2) & free & (x >= 0)):
        for level in _level_moves(float(x[j]), int(domain.integer_levels[j])):
            z = x.copy()
            z[j] = level
            out.append(z)
    for group in domain.categorical_groups:
        if free[group].all() and (x[group] >= 0).all():
            for k in group:
                if x[k] != 1.0:
                    z = x.copy()
                    z[group] = 0.0
                    z[k] = 1.0
                    out.append(z)
    return np.array(out).reshape(-1, len(x))


def _local_search(
    acq: Acquisition, X: np.ndarray, V: np.ndarray, free: np.ndarray, domain: Domain
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stage 3: greedy moves of every start to its best neighbour while that
    improves; returns the new starts, their values and which of them moved."""
    X, V = X.copy(), V.copy()
    moved = np.zeros(len(X), dtype=bool)
    searching = np.ones(len(X), dtype=bool)
    for _ in range(_MAX_MOVES):
        blocks = {int(i): _neighbours(X[i], free[i], domain) for i in np.flatnonzero(searching)}
        blocks = {i: b for i, b in blocks.items() if len(b)}
        if not blocks:
            break
        values, _ = acq(np.vstack(list(blocks.values())), grad=False)
        searching[:] = False
        for (i, block), scores in zip(
            blocks.items(), np.split(values, np.cumsum([len(b) for b in blocks.values()]))
        ):
            k = int(np.argmax(scores))
            if scores[k] > V[i]:
                X[i], V[i] = block[k], scores[k]
                moved[i] = searching[i] = True
    return X, V, moved


def maximize(
    acq: Acquisition,
    domain: Domain,
    X0: np.ndarray,
    *,
    free: np.ndarray | None = None,
    n_starts: int = 10,
    rng: np.random.Generator,
    bounds: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, float]:
    """The best point found, rounded by the domain, and its acquisition value
    (see the module docstring).

    ``acq(Z, grad=...)`` returns values (m,) and gradients (m, d); scoring
    candidates and neighbourhoods asks for no gradient. Columns where
    ``free`` is False, and inactive (negative) entries, keep the value of the
    start they belong to. ``rng`` breaks ties between equal candidates, so a
    given ``rng`` state gives the same result. ``bounds`` (lower, upper, each
    (d,)) confine the gradient steps to a box inside the cube, which the
    candidates ``X0`` should lie in (a trust region's).
    """
    X0 = domain.round(np.asarray(X0, dtype=float))
    free = np.ones(X0.shape, dtype=bool) if free is None else np.asarray(free, dtype=bool)
    values, _ = acq(X0, grad=False)
    order = np.lexsort((rng.random(len(X0)), -values))[:n_starts]
    X, V, F = X0[order], values[order], free[order] & (X0[order] >= 0)
    movable = F & domain.continuous[None, :]
    X, V = _ascend(acq, X, V, movable, bounds)
    for _ in range(_ROUNDS):
        X, V, moved = _local_search(acq, X, V, F, domain)
        again = moved & movable.any(1)
        if not again.any():
            break
        X[again], V[again] = _ascend(acq, X[again], V[again], movable[again], bounds)
    best = int(np.argmax(V))
    return domain.round(X[best]), float(V[best])
