"""L-BFGS-B on a box, through SciPy's public ``scipy.optimize.minimize``.

The GP's hyperparameter fit and the acquisition's gradient stage run L-BFGS-B
(Byrd, Lu, Nocedal & Zhu 1995, "A limited memory algorithm for bound
constrained optimization") a few hundred times per 100-trial study. This is
the one place that calls it, so the rest of the package states a box, a start
and an iteration limit, and never SciPy's bounds format or result object.

SciPy's per-evaluation wrapper (``ScalarFunction``: copies, a cache of the last
point, counters) costs some tens of microseconds per evaluation, a few per cent
to a sixth of a GP suggestion's time; driving the compiled routine directly
would save it, but only through a private module of SciPy whose protocol
changed in 1.15, so the public function is called.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["minimize_box"]

Objective = Callable[[np.ndarray], tuple[float, np.ndarray]]


def minimize_box(
    fun: Objective,
    x0: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    *,
    max_iter: int,
    gtol: float = 1e-5,
) -> tuple[np.ndarray, float]:
    """Minimize ``fun`` (value and gradient) over the box [low, high] (infinite
    for no bound) from ``x0`` (clipped into it) by L-BFGS-B with SciPy's
    defaults; returns the final point and its value. Cost per evaluation:
    ``fun``'s, plus O(10 n) in the routine and SciPy's wrapper."""
    from scipy.optimize import minimize

    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    x = np.array(np.clip(np.asarray(x0, dtype=float).ravel(), low, high), dtype=np.float64)
    result = minimize(
        fun,
        x,
        jac=True,
        method="L-BFGS-B",
        bounds=list(zip(low, high)),
        options={"maxiter": max_iter, "gtol": gtol},
    )
    return result.x, float(result.fun)
