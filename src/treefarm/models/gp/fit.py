"""Fitting the GP's hyperparameters: maximum a-posteriori by L-BFGS-B.

Notation (shapes):
    n points, d columns, p kernel parameters
    phi     (p + 2,) = [theta (p), log s2_noise, mu0]: what is optimized
    C       (n, n) = k(X, X) + s2_noise I,  L = chol(C),  r = y - mu0,  alpha = C^{-1} r
    W       (n, n) = alpha alpha^T - C^{-1}

Log marginal likelihood and its gradient (Rasmussen & Williams 2006, eq. 5.8-5.9):

    lml = -1/2 r^T alpha - sum log diag L - n/2 log 2 pi
    d lml / d theta_p      = 1/2 sum_ab W_ab dK_ab/d theta_p     (Kernel.contract)
    d lml / d log s2_noise = 1/2 s2_noise trace(W)
    d lml / d mu0          = sum alpha

plus the log priors of :mod:`.priors`. One evaluation costs a Cholesky and a
triangular inverse, O(n^3), and the contractions, O(n^2 d). Restarts from
prior draws guard against the local optima the likelihood is known for; a
warm start from the previous fit's parameters is an extra start.
"""

from __future__ import annotations

import math

import numpy as np

from ...exceptions import TreefarmError
from ..domain import Domain
from .kernels import Kernel, make_kernel
from .priors import LENGTH_SCALE_SIGMA, NOISE_LOC, NOISE_SCALE, length_scale_location, log_normal
from .regressor import GaussianProcess, GPParams, cholesky
from .transform import OutputTransform

__all__ = ["NOISE_FLOOR", "fit_gp", "log_posterior"]

#: The smallest noise variance on the model's (standardized) scale.
NOISE_FLOOR = 1e-6


def _log_prior(kernel: Kernel, phi: np.ndarray, d: int) -> tuple[float, np.ndarray]:
    grad = np.zeros_like(phi)
    total = 0.0
    for s in kernel.length_scale_slices(d):
        value, g = log_normal(phi[s], length_scale_location(d), LENGTH_SCALE_SIGMA)
        total, grad[s] = total + value, g
    for i in kernel.amplitude_indices(d):
        value, g = log_normal(phi[i : i + 1], 0.0, 1.0)
        total, grad[i] = total + value, g[0]
    value, g = log_normal(phi[-2:-1], NOISE_LOC, NOISE_SCALE)
    total, grad[-2] = total + value, g[0]
    value, g = log_normal(phi[-1:], 0.0, 1.0)
    return total + value, grad + np.concatenate([np.zeros(len(phi) - 1), g])


def log_posterior(kernel: Kernel, phi: np.ndarray, X: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """Log marginal likelihood plus log prior of ``phi`` and its gradient (X rounded)."""
    from scipy.linalg import cho_solve

    n, d = X.shape
    theta, noise, mu0 = phi[:-2], math.exp(phi[-2]), phi[-1]
    L, _ = cholesky(kernel(theta, X, X) + noise * np.eye(n))
    r = y - mu0
    alpha = cho_solve((L, True), r, check_finite=False)
    lml = -0.5 * float(r @ alpha) - float(np.log(np.diag(L)).sum()) - 0.5 * n * math.log(2 * math.pi)
    W = np.outer(alpha, alpha) - _inverse(L)
    grad = np.concatenate([0.5 * kernel.contract(theta, X, W), [0.5 * noise * np.trace(W), alpha.sum()]])
    prior, prior_grad = _log_prior(kernel, phi, d)
    return lml + prior, grad + prior_grad


def _inverse(L: np.ndarray) -> np.ndarray:
    """C^{-1} from its Cholesky factor (LAPACK potri: half the work of two
    triangular solves against the identity)."""
    from scipy.linalg import lapack

    lower, _ = lapack.dpotri(L, lower=1)
    return np.tril(lower) + np.tril(lower, -1).T


def _bounds(kernel: Kernel, d: int, deterministic: bool) -> list[tuple[float, float]]:
    bounds = [(-7.0, 7.0)] * kernel.n_params(d)
    for i in kernel.amplitude_indices(d):
        bounds[i] = (math.log(1e-3), math.log(1e2))
    floor = math.log(NOISE_FLOOR)
    noise = (floor, floor) if deterministic else (floor, math.log(2.0))
    return [*bounds, noise, (-5.0, 5.0)]


def _starts(
    kernel: Kernel,
    d: int,
    warm: GPParams | None,
    n_restarts: int,
    rng: np.random.Generator,
    deterministic: bool,
) -> list[np.ndarray]:
    noise = math.log(NOISE_FLOOR) if deterministic else NOISE_LOC
    starts = [np.concatenate([kernel.default_theta(d), [noise, 0.0]])]
    if warm is not None and len(warm.vector()) == len(starts[0]):
        starts.append(warm.vector())
    for _ in range(n_restarts):
        phi = starts[0].copy()
        for s in kernel.length_scale_slices(d):
            phi[s] = rng.normal(length_scale_location(d), LENGTH_SCALE_SIGMA / 2, size=s.stop - s.start)
        starts.append(phi)
    return starts


def fit_gp(
    X: np.ndarray,
    y: np.ndarray,
    domain: Domain,
    *,
    kernel: str | Kernel = "matern52",
    deterministic: bool = False,
    warm_start: GPParams | None = None,
    n_restarts: int = 2,
    rng: np.random.Generator,
) -> GaussianProcess:
    """The GP on ``(X, y)`` with MAP hyperparameters (see the module docstring).

    ``y`` are raw losses; they are mapped to the model scale by a fitted
    :class:`OutputTransform`. ``deterministic`` fixes the noise at the floor.
    Cost: (restarts + 1) L-BFGS-B runs of O(n^3) steps; past 300 points a
    single run of at most 30 steps (from the warm start when given), since
    the hyperparameters then move little between fits.
    """
    from scipy.optimize import minimize

    k = make_kernel(kernel)
    transform = OutputTransform.fit(y)
    t = transform(y)
    Xr = domain.round(np.asarray(X, dtype=float))
    d = Xr.shape[1]
    bounds = _bounds(k, d, deterministic)
    large = len(t) > 300
    restarts = 0 if large else n_restarts

    def objective(phi: np.ndarray) -> tuple[float, np.ndarray]:
        try:
            value, grad = log_posterior(k, phi, Xr, t)
        except TreefarmError:
            return 1e25, np.zeros_like(phi)
        return -value, -grad

    best: tuple[float, np.ndarray] | None = None
    for phi0 in _starts(k, d, warm_start, restarts, rng, deterministic):
        phi0 = np.clip(phi0, [b[0] for b in bounds], [b[1] for b in bounds])
        result = minimize(
            objective,
            phi0,
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options={"maxiter": 30 if large else 200},
        )
        if np.isfinite(result.fun) and (best is None or result.fun < best[0]):
            best = (float(result.fun), result.x)
    assert best is not None
    return GaussianProcess.build(k, GPParams.from_vector(best[1]), domain, Xr, t, transform)
