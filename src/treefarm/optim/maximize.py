"""Maximize an acquisition over mixed continuous, integer and one-hot columns.

Notation (shapes):
    m starting points, d columns
    X0      (m, d) starting candidates (the caller's Sobol points, prior draws,
            perturbations of the best observations)
    free    (m, d) bool: which columns of each start may move (a conditional
            configuration's inactive columns stay where they are)

Three stages, as in Optuna's and BoTorch's optimizers of the acquisition:

1. score every candidate (one batched call) and keep the ``n_starts`` best;
2. L-BFGS-B from each over its free continuous columns, box [0, 1],
   with the acquisition's analytic gradient;
3. a greedy local search over integer levels (one level up or down) and
   one-hot groups (every other option), all neighbours scored in one call,
   moving to the best while it improves.

Cost: ``m`` acquisition values, plus per start a few dozen gradient
evaluations and a few neighbourhoods of size ``sum(levels moves) + sum(group sizes)``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..models.domain import Domain

__all__ = ["maximize"]

Acq = Callable[..., tuple[np.ndarray, np.ndarray]]


def _gradient_step(acq: Acq, x: np.ndarray, movable: np.ndarray) -> tuple[np.ndarray, float]:
    """L-BFGS-B over the ``movable`` columns of ``x``."""
    from scipy.optimize import minimize

    if not movable.any():
        return x, float(acq(x[None], grad=False)[0][0])

    def negative(v: np.ndarray) -> tuple[float, np.ndarray]:
        z = x.copy()
        z[movable] = v
        value, grad = acq(z[None])
        return -float(value[0]), -grad[0, movable]

    result = minimize(
        negative,
        x[movable],
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, 1.0)] * int(movable.sum()),
        options={"maxiter": 100},
    )
    z = x.copy()
    z[movable] = np.clip(result.x, 0.0, 1.0)
    return z, -float(result.fun)


def _neighbours(x: np.ndarray, free: np.ndarray, domain: Domain) -> np.ndarray:
    """Points one integer level or one option away from ``x`` in its free columns."""
    out = []
    for j in np.flatnonzero((domain.integer_levels >= 2) & free):
        step = 1.0 / (domain.integer_levels[j] - 1)
        for move in (-step, step):
            if 0.0 <= x[j] + move <= 1.0 + 1e-12:
                z = x.copy()
                z[j] = min(x[j] + move, 1.0)
                out.append(z)
    for group in domain.categorical_groups:
        if free[group].all():
            for k in group:
                if x[k] != 1.0:
                    z = x.copy()
                    z[group] = 0.0
                    z[k] = 1.0
                    out.append(z)
    return np.array(out).reshape(-1, len(x))


def _local_search(
    acq: Acq, x: np.ndarray, value: float, free: np.ndarray, domain: Domain
) -> tuple[np.ndarray, float]:
    for _ in range(20):
        nbrs = _neighbours(x, free, domain)
        if not len(nbrs):
            break
        values, _ = acq(nbrs, grad=False)
        i = int(np.argmax(values))
        if not values[i] > value:
            break
        x, value = nbrs[i], float(values[i])
    return x, value


def maximize(
    acq: Acq,
    domain: Domain,
    X0: np.ndarray,
    *,
    free: np.ndarray | None = None,
    n_starts: int = 10,
    rng: np.random.Generator,
) -> tuple[np.ndarray, float]:
    """The best point found and its acquisition value (see the module docstring).

    ``acq(Z, grad=...)`` returns values (m,) and gradients (m, d); scoring
    candidates and neighbourhoods asks for no gradient.

    The returned point is rounded by the domain; columns where ``free`` is
    False are those of its start. ``rng`` breaks ties reproducibly.
    """
    X0 = domain.round(np.asarray(X0, dtype=float))
    free = np.ones_like(X0, dtype=bool) if free is None else free
    values, _ = acq(X0, grad=False)
    order = np.lexsort((rng.random(len(X0)), -values))[:n_starts]
    best_x, best_value = X0[order[0]], float(values[order[0]])
    for i in order:
        movable = free[i] & domain.continuous & (X0[i] >= 0)
        x, value = _gradient_step(acq, X0[i], movable)
        if not np.isfinite(value) or value < values[i]:
            x, value = X0[i], float(values[i])
        x, value = _local_search(acq, x, value, free[i], domain)
        if value > best_value:
            best_x, best_value = x, value
    return domain.round(best_x), best_value
