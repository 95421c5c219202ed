"""L-BFGS-B on a box: SciPy's iterates to the bit, on every path the GP uses."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize, rosen, rosen_der

from treefarm.bo.models.lbfgsb import minimize_box


def _problem(kind: int, rng: np.random.Generator, n: int):  # type: ignore[no-untyped-def]
    A, c = rng.normal(size=(n, n)), rng.normal(size=n) * 2

    def f(x: np.ndarray) -> tuple[float, np.ndarray]:
        if kind == 0:
            return float(rosen(3 * x)), 3 * rosen_der(3 * x)
        if kind == 1:
            r = A @ x - c
            return float(r @ r + np.sin(x).sum()), 2 * A.T @ r + np.cos(x)
        return float(np.log1p(x @ x)), 2 * x / (1 + x @ x)

    return f


def _scipy(f, x0, low, high, max_iter, gtol):  # type: ignore[no-untyped-def]
    bounds = [(lo if np.isfinite(lo) else None, hi if np.isfinite(hi) else None) for lo, hi in zip(low, high)]
    r = minimize(
        f, x0, jac=True, method="L-BFGS-B", bounds=bounds, options={"maxiter": max_iter, "gtol": gtol}
    )
    return r.x, float(r.fun)


def test_iterates_equal_scipy_minimize() -> None:
    """Converged, stopped by the iteration limit, one-sided and missing bounds
    (infinite here, ``None`` for SciPy): the same point and value as
    ``scipy.optimize.minimize``, to the last bit."""
    rng = np.random.default_rng(0)
    for case in range(60):
        n = int(rng.integers(2, 10))
        f = _problem(case % 3, rng, n)
        low, high = -rng.random(n) * 2, rng.random(n) * 2
        if case % 5 == 0:
            low[0], high[-1] = -np.inf, np.inf
        x0, max_iter, gtol = rng.normal(size=n), int(rng.integers(1, 60)), (1e-5, 1e-2)[case % 2]
        x, value = minimize_box(f, x0, low, high, max_iter=max_iter, gtol=gtol)
        x_ref, value_ref = _scipy(f, x0, low, high, max_iter, gtol)
        assert np.array_equal(x, x_ref) and value == value_ref, f"case {case}: {x} vs {x_ref}"


def test_finds_the_box_constrained_minimum() -> None:
    """Rosenbrock's minimum inside the box, and a quadratic's on the box's face."""
    x, value = minimize_box(
        lambda x: (float(rosen(x)), rosen_der(x)), np.zeros(4), -2 * np.ones(4), 2 * np.ones(4), max_iter=500
    )
    assert np.allclose(x, 1.0, atol=1e-4) and value < 1e-8
    target = np.array([2.0, -0.5])
    x, _ = minimize_box(
        lambda x: (float((x - target) @ (x - target)), 2 * (x - target)),
        np.full(2, 0.5),
        np.zeros(2),
        np.ones(2),
        max_iter=50,
    )
    assert np.allclose(x, [1.0, 0.0])


def test_as_many_evaluations_as_scipy_minimize() -> None:
    """The objective is called once per point the routine asks for: as often as
    ``scipy.optimize.minimize`` calls it (its ``nfev``), never more."""
    rng = np.random.default_rng(1)
    for case in range(12):
        n = int(rng.integers(2, 8))
        f = _problem(case % 3, rng, n)
        low, high, x0 = -rng.random(n) * 2, rng.random(n) * 2, rng.normal(size=n)
        calls: list[np.ndarray] = []
        minimize_box(lambda x, f=f, calls=calls: (calls.append(x), f(x))[1], x0, low, high, max_iter=40)
        reference = minimize(f, x0, jac=True, method="L-BFGS-B", bounds=list(zip(low, high)), options={"maxiter": 40})
        assert len(calls) == reference.nfev, f"case {case}"
