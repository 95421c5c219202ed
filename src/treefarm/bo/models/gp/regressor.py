"""Exact GP regression with a constant mean and Gaussian noise: the posterior.

Notation (shapes):
    n data points, m queries, d columns, k added points
    X       (n, d) data, rounded by the domain;  y (n,) targets on the model scale
    v       (n,) each observation's own noise variance on the model scale (0 by default)
    Z       (m, d) queries
    C       (n, n) = k(X, X) + (s2_noise + jitter) I + diag(v),  L its lower Cholesky factor
    alpha   (n,) = C^{-1} (y - mu0)
    Kz      (m, n) = k(Z, X)
    V       (n, m) = L^{-1} Kz^T

Posterior of the latent function (Rasmussen & Williams 2006, eq. 2.25-2.26):

    mean(Z) = mu0 + Kz alpha                       O(m n d)
    var(Z)  = k(z, z) - sum_a V_a^2                O(m n^2)

and their gradients in Z, contractions of ``dk(z_i, x_b)/dz_i`` (``Kernel.cross``):

    dmean_i = sum_b dk_ib alpha_b                  O(m n d)
    dvar_i  = -2 sum_b dk_ib (C^{-1} Kz^T)_bi      O(m n^2 + m n d)

``v`` makes the noise heteroscedastic where an observation's precision is
known (a mean over k folds with spread s has variance s^2 / k): the noise of
observation i is ``s2_noise + v_i`` (Goldberg et al. 1998 model the same
diagonal; here ``v`` is data, not a second GP, as in BoTorch's fixed-noise
GP, and the homoscedastic ``s2_noise`` is still fitted on top of it). With
``v = 0`` everything is the homoscedastic GP, to the bit.

Adding k points (fantasies, ``condition_on``) extends L by a block instead of
refactorizing: ``L12 = L^{-1} k(X, Xp)``, ``L22 = chol(Cpp - L12^T L12)``,
O(n^2 k + k^3) instead of O((n + k)^3); added points have ``v = 0``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ....exceptions import TreefarmError
from ..domain import Domain
from .kernels import Kernel
from .transform import OutputTransform

__all__ = ["GPParams", "GaussianProcess", "add_diagonal", "cholesky", "noise_diagonal", "solve"]

#: Jitter added to the diagonal, relative to its mean, when a factorization
#: fails: each failure multiplies it by ten (as GPy does), up to 1e-2.
JITTERS = (0.0, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2)


def cholesky(C: np.ndarray) -> tuple[np.ndarray, float]:
    """Lower Cholesky factor of ``C + jitter I`` with the smallest jitter that
    works, and that jitter. Duplicate points with no noise make C singular;
    escalating jitter fixes that without inflating well-posed problems."""
    try:
        return np.linalg.cholesky(C), 0.0
    except np.linalg.LinAlgError:
        pass
    scale = float(np.mean(np.diag(C))) or 1.0
    for jitter in JITTERS[1:]:
        try:
            return np.linalg.cholesky(add_diagonal(C, jitter * scale)), jitter * scale
        except np.linalg.LinAlgError:
            continue
    raise TreefarmError(
        "the GP covariance is not positive definite even with jitter, "
        f"but got jitter={JITTERS[-1]:g}, mean diagonal={scale:g}"
    )


@dataclass(frozen=True)
class GPParams:
    """The hyperparameters: kernel log-parameters, log noise variance, constant mean."""

    theta: np.ndarray
    log_noise: float
    mean: float

    def vector(self) -> np.ndarray:
        return np.concatenate([self.theta, [self.log_noise, self.mean]])

    @classmethod
    def from_vector(cls, v: np.ndarray) -> GPParams:
        return cls(np.array(v[:-2]), float(v[-2]), float(v[-1]))


@dataclass(frozen=True)
class GaussianProcess:
    """A GP conditioned on data (see the module docstring). Immutable."""

    kernel: Kernel
    params: GPParams
    domain: Domain
    X: np.ndarray
    y: np.ndarray
    transform: OutputTransform
    L: np.ndarray = field(repr=False)
    alpha: np.ndarray = field(repr=False)
    v: np.ndarray = field(repr=False)

    @classmethod
    def build(
        cls,
        kernel: Kernel,
        params: GPParams,
        domain: Domain,
        X: np.ndarray,
        y: np.ndarray,
        transform: OutputTransform,
        v: np.ndarray | None = None,
    ) -> GaussianProcess:
        """The posterior for data ``(X, y)`` (y on the model scale), each
        observation's own noise variance ``v`` (n,) on that scale (none by
        default), and fixed hyperparameters."""
        X = domain.round(X)
        v = np.zeros(len(X)) if v is None else np.asarray(v, dtype=float)
        C = add_diagonal(kernel(params.theta, X, X), noise_diagonal(np.exp(params.log_noise), v))
        L, _ = cholesky(C)
        return cls(kernel, params, domain, X, y, transform, L, solve(L, y - params.mean), v)

    @property
    def heteroscedastic(self) -> bool:
        """Whether some observation carries noise of its own (``v > 0``)."""
        return bool(np.any(self.v > 0.0))

    @property
    def noise_var(self) -> float:
        """The fitted noise variance on the model scale."""
        return float(np.exp(self.params.log_noise))

    def transform_y(self, y_raw: np.ndarray) -> np.ndarray:
        """Raw objective values on the model's scale (monotone)."""
        return self.transform(y_raw)

    def predict(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and variance of the latent function at Z, each (m,)."""
        Z = self.domain.round(np.atleast_2d(Z))
        Kz = self.kernel(self.params.theta, Z, self.X)
        V = _tri(self.L, Kz.T)
        var = self.kernel.diag(self.params.theta, Z) - (V**2).sum(0)
        return self.params.mean + Kz @ self.alpha, np.maximum(var, 1e-12)

    def predict_with_grad(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Mean, variance and their gradients in Z, shapes (m,), (m,), (m, d), (m, d).

        Integer and one-hot columns are rounded inside the kernel, so their
        gradient is zero: only continuous columns carry one.
        """
        Z = self.domain.round(np.atleast_2d(Z))
        theta = self.params.theta
        Kz, grad_dot = self.kernel.cross(theta, Z, self.X)
        W = solve(self.L, Kz.T)
        var = self.kernel.diag(theta, Z) - (Kz * W.T).sum(1)
        dmean = grad_dot(np.broadcast_to(self.alpha, Kz.shape)) * self.domain.continuous
        dvar = -2.0 * grad_dot(W.T) * self.domain.continuous
        return self.params.mean + Kz @ self.alpha, np.maximum(var, 1e-12), dmean, dvar

    def posterior_cov(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Joint posterior mean (m,) and covariance (m, m) of the latent function."""
        Z = self.domain.round(np.atleast_2d(Z))
        Kz = self.kernel(self.params.theta, Z, self.X)
        V = _tri(self.L, Kz.T)
        cov = self.kernel(self.params.theta, Z, Z) - V.T @ V
        return self.params.mean + Kz @ self.alpha, 0.5 * (cov + cov.T)

    def condition_on(self, Xp: np.ndarray, yp: np.ndarray) -> GaussianProcess:
        """This GP with points ``(Xp, yp)`` added (yp on the model scale) and the
        same hyperparameters, by a block Cholesky update."""
        Xp = self.domain.round(np.atleast_2d(Xp))
        theta = self.params.theta
        L12 = _tri(self.L, self.kernel(theta, self.X, Xp))
        Cpp = self.kernel(theta, Xp, Xp) - L12.T @ L12
        L22, _ = cholesky(add_diagonal(Cpp, np.exp(self.params.log_noise)))
        n, k = len(self.X), len(Xp)
        L = np.zeros((n + k, n + k))
        L[:n, :n], L[n:, :n], L[n:, n:] = self.L, L12.T, L22
        X, y = np.vstack([self.X, Xp]), np.concatenate([self.y, np.asarray(yp, dtype=float)])
        v = np.concatenate([self.v, np.zeros(k)])
        return replace(self, X=X, y=y, L=L, alpha=solve(L, y - self.params.mean), v=v)

    def slice_1d(self, x: np.ndarray, column: int, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and standard deviation along ``column`` over ``grid``,
        the other columns fixed at ``x`` (the 1-D posterior plot)."""
        Z = np.tile(np.asarray(x, dtype=float), (len(grid), 1))
        Z[:, column] = grid
        mean, var = self.predict(Z)
        return mean, np.sqrt(var)


def add_diagonal(C: np.ndarray, value: float | np.ndarray) -> np.ndarray:
    """``C + diag(value)`` for a scalar or an (n,) ``value`` (C itself when it is all zero)."""
    if (value == 0.0) if isinstance(value, float) else not np.any(value):
        return C
    C = C.copy()
    C.flat[:: C.shape[0] + 1] += value
    return C


def noise_diagonal(noise: float, v: np.ndarray) -> float | np.ndarray:
    """The noise on the diagonal: ``noise + v`` (n,), or the scalar ``noise``
    itself when no observation has noise of its own (the homoscedastic GP's
    arithmetic, unchanged)."""
    return noise + v if np.any(v > 0.0) else noise


def _tri(L: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``L^{-1} B`` by LAPACK trtrs on ``L^T`` (Fortran order, no copy), as
    ``scipy.linalg.solve_triangular`` does for a C-ordered L, without its checks."""
    from scipy.linalg import lapack

    return lapack.dtrtrs(L.T, B, lower=0, trans=1)[0]


def solve(L: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``C^{-1} b`` from C's lower Cholesky factor L by LAPACK potrs, as
    ``scipy.linalg.cho_solve`` does, without its checks (a third of its time)."""
    from scipy.linalg import lapack

    return lapack.dpotrs(L, b, lower=1)[0]
