"""L-BFGS-B on a box, SciPy's routine driven without SciPy's per-call wrapper.

Why: the GP's hyperparameter fit and the acquisition's gradient stage run
L-BFGS-B a few hundred times per 100-trial study, some 7,000-10,000
objective evaluations in all. ``scipy.optimize.minimize`` wraps each
evaluation in its ``ScalarFunction`` (copies, caches, counters, finite
difference bookkeeping we never use): about 60 us per evaluation, 13-16 %
of a whole run's suggestion time (``auto`` on Hartmann-6 and Levy-10).
Here the same compiled routine (``setulb``, Byrd, Lu, Nocedal & Zhu 1995,
"A limited memory algorithm for bound constrained optimization") gets the
objective's value and gradient directly: the iterates are SciPy's to the
bit (a test compares them), for a tenth of the overhead.

The reverse-communication protocol of SciPy >= 1.15's C translation:
``setulb`` asks for f and g at ``x`` (task 3), reports a new iterate
(task 1), or stops (converged: task 4; other codes: a warning or an error).
Older SciPy versions (their Fortran routine has another protocol) run
through ``scipy.optimize.minimize``, with the same defaults.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

__all__ = ["minimize_box"]

#: SciPy's defaults for L-BFGS-B: memory, relative decrease tolerance, line-search steps, evaluations.
MEMORY = 10
FTOL = 2.220446049250313e-09
MAX_LINE_SEARCH = 20
MAX_EVALUATIONS = 15000

Objective = Callable[[np.ndarray], tuple[float, np.ndarray]]

_FG, _NEW_X = 3, 1
#: The task that tells the routine to stop (SciPy's code for 'the iteration limit reached').
_STOP = (5, 504)


@functools.cache
def _direct() -> bool:
    """Whether SciPy's compiled routine speaks the protocol driven here (>= 1.15)."""
    import scipy

    major, minor = (int(part) for part in scipy.__version__.split(".")[:2])
    return (major, minor) >= (1, 15)


def minimize_box(
    fun: Objective,
    x0: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    *,
    max_iter: int,
    gtol: float = 1e-5,
) -> tuple[np.ndarray, float]:
    """Minimize ``fun`` (value and gradient) over the box [low, high] from ``x0``
    (clipped into it) by L-BFGS-B; returns the final point and the last value
    ``fun`` returned, as ``scipy.optimize.minimize(fun, x0, jac=True,
    method="L-BFGS-B", bounds=..., options={"maxiter": max_iter, "gtol": gtol})``
    gives ``(x, fun)``. Cost per evaluation: ``fun``'s, plus O(MEMORY n) in the routine."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    x = np.array(np.clip(np.asarray(x0, dtype=float).ravel(), low, high), dtype=np.float64)
    if not _direct():
        from scipy.optimize import minimize

        result = minimize(
            fun,
            x,
            jac=True,
            method="L-BFGS-B",
            bounds=list(zip(low, high)),
            options={"maxiter": max_iter, "gtol": gtol},
        )
        return result.x, float(result.fun)
    return _drive(fun, x, low, high, max_iter, gtol)


def _drive(
    fun: Objective, x: np.ndarray, low: np.ndarray, high: np.ndarray, max_iter: int, gtol: float
) -> tuple[np.ndarray, float]:
    """SciPy's loop of ``_minimize_lbfgsb`` with the objective called directly, once
    per point the routine asks for (it never asks twice in a row for one point, so
    SciPy's cache of the last point has nothing to save here)."""
    from scipy.optimize import _lbfgsb

    n, m = len(x), MEMORY
    has_low, has_high = np.isfinite(low), np.isfinite(high)
    # The routine's bound codes: 0 none, 1 lower only, 2 both, 3 upper only.
    nbd = np.select([has_low & has_high, has_low, has_high], [2, 1, 3], 0).astype(np.int32)
    low, high = np.where(has_low, low, 0.0), np.where(has_high, high, 0.0)
    f: float | np.ndarray = np.array(0.0)
    g = np.zeros(n)
    wa = np.zeros(2 * m * n + 5 * n + 11 * m * m + 8 * m)
    iwa = np.zeros(3 * n, dtype=np.int32)
    task = np.zeros(2, dtype=np.int32)
    ln_task = np.zeros(2, dtype=np.int32)
    lsave = np.zeros(4, dtype=np.int32)
    isave = np.zeros(44, dtype=np.int32)
    dsave = np.zeros(29)
    factr = FTOL / np.finfo(float).eps
    evaluations = iterations = 0
    while True:
        _lbfgsb.setulb(
            m,
            x,
            low,
            high,
            nbd,
            f,
            g,
            factr,
            gtol,
            wa,
            iwa,
            task,
            lsave,
            isave,
            dsave,
            MAX_LINE_SEARCH,
            ln_task,
        )
        if task[0] == _FG:
            value, grad = fun(x.copy())
            f, g = float(value), np.asarray(grad, dtype=np.float64).copy()
            evaluations += 1
        elif task[0] == _NEW_X:
            iterations += 1
            if iterations >= max_iter or evaluations > MAX_EVALUATIONS:
                task[:] = _STOP
        else:
            break
    return x, float(f)
