"""Covariance functions of the GP, with the derivatives the fit and the acquisitions need.

Notation (shapes):
    n, m    points in X (the data) and Z (the queries); d columns
    X       (n, d), Z (m, d): points already rounded by the domain
    theta   (p,) log-hyperparameters of a kernel
    K       (m, n) covariance k(Z, X)
    W       (n, n) symmetric weights; ``gram`` gives ``W -> sum_ab W_ab dK(X, X)_ab/dtheta``, (p,)
    A       (m, n) weights; ``cross`` gives ``A -> sum_b A_ib dk(z_i, x_b)/dz_i``, (m, d)
    r2      (m, n) squared scaled distance sum_j ((z_j - x_j) / l_j)^2

Stationary ARD kernels have ``theta = [log s2, log l_1, ..., log l_d]`` (an
amplitude and one length scale per column) and ``k = s2 * g(r2)``:

- Matérn-5/2: ``g = (1 + sqrt5 r + 5/3 r^2) exp(-sqrt5 r)``,
  ``dg/dr2 = -5/6 (1 + sqrt5 r) exp(-sqrt5 r)`` (finite at r = 0);
- RBF: ``g = exp(-r2 / 2)``, ``dg/dr2 = -g / 2``

(Rasmussen & Williams 2006, ch. 4). Because ``dr2/dlog l_j = -2 D_j^2`` with
``D_j = (z_j - x_j) / l_j``, every length-scale gradient of the marginal
likelihood is a contraction ``sum_ab G_ab D_abj^2`` with ``G = W * s2 g'``,
computed in O(n^2 d) without forming the (d, n, n) derivative tensor:
``sum_ab G_ab (u_a - u_b)^2 = u^2 . (G 1 + G^T 1) - 2 u . (G u)``.
Likewise the gradient in the query, ``dk(z_i, x_b)/dz_i = 2 s2 g'_ib (z_i - x_b) / l^2``,
is only ever needed contracted with weights A, which is two matrix products,
``((H 1) z_i - H X) / l^2`` with ``H = 2 s2 g' * A``, O(m n d) with no (m, n, d) tensor.

``gram`` and ``cross`` return the covariance together with its contraction,
so the distances and profile computed once serve both (the fit evaluates
them at every L-BFGS-B step). :class:`Sum` and :class:`Product` combine
kernels; their parameters are the concatenation of their parts'.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable, Sequence

import numpy as np

__all__ = [
    "RBF", "Contraction", "Kernel", "Matern52", "Product", "Stationary", "Sum", "decision_scales", "make_kernel"
]

_SQRT5 = math.sqrt(5.0)

#: A covariance's derivative contracted with weights (see the module docstring).
Contraction = Callable[[np.ndarray], np.ndarray]


class Kernel(abc.ABC):
    """A covariance function over d columns with log-hyperparameters theta."""

    @abc.abstractmethod
    def n_params(self, d: int) -> int:
        """The length of theta for d columns."""

    @abc.abstractmethod
    def default_theta(self, d: int) -> np.ndarray:
        """A reasonable starting theta (the prior modes)."""

    @abc.abstractmethod
    def diag(self, theta: np.ndarray, Z: np.ndarray) -> np.ndarray:
        """k(z, z) for each row, shape (m,)."""

    @abc.abstractmethod
    def gram(self, theta: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, Contraction]:
        """K(X, X) (n, n) and ``W -> sum_ab W_ab dK_ab/dtheta`` (p,)."""

    @abc.abstractmethod
    def cross(self, theta: np.ndarray, Z: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, Contraction]:
        """K(Z, X) (m, n) and ``A -> sum_b A_ib dk(z_i, x_b)/dz_i`` (m, d)."""

    def __call__(self, theta: np.ndarray, Z: np.ndarray, X: np.ndarray) -> np.ndarray:
        """K = k(Z, X), shape (m, n)."""
        return self.cross(theta, Z, X)[0]

    def contract(self, theta: np.ndarray, X: np.ndarray, W: np.ndarray) -> np.ndarray:
        """sum_ab W_ab dK(X, X)_ab / dtheta_p for each p, shape (p,)."""
        return self.gram(theta, X)[1](W)

    def length_scale_slices(self, d: int) -> list[slice]:
        """Where the log length scales sit in theta (for their prior)."""
        return []

    def amplitude_indices(self, d: int) -> list[int]:
        """Where the log amplitudes sit in theta (for their prior)."""
        return []

    def __add__(self, other: Kernel) -> Kernel:
        return Sum(self, other)

    def __mul__(self, other: Kernel) -> Kernel:
        return Product(self, other)


def _squared_distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """(m, n) squared Euclidean distances between rows, by one matrix product."""
    r2 = A @ B.T
    r2 *= -2.0
    r2 += (A**2).sum(1)[:, None]
    r2 += (B**2).sum(1)[None, :]
    return np.maximum(r2, 0.0, out=r2)


class Stationary(Kernel):
    """Stationary kernel ``s2 * g(r2)``; subclasses give ``g`` and ``dg/dr2``.

    ``ard=True`` gives each column its own length scale; ``ard=False`` one
    shared length scale (``theta = [log s2, log l]``), for feature spaces with
    many sparse columns (derivation trees) where a scale per column would
    have more parameters than there are observations.

    ``tied`` (d,) maps each column to its length scale (``theta = [log s2,
    log l_0, ..., log l_{q-1}]``, ``q = max(tied) + 1``): :func:`decision_scales`
    ties the columns of each choice's one-hot group, so two options of a choice
    are ``2 / l_g^2`` apart whichever they are, and the squared distance over
    choices is a Hamming distance weighted per decision, as Optuna's GP reads a
    choice and as the overlap kernels of COMBO and Casmopolitan do (Oh et al.
    2019, "Combinatorial Bayesian optimization using the graph Cartesian
    product"; Wan et al. 2021, "Think global and act local: Bayesian
    optimisation over high-dimensional categorical and mixed search spaces").
    One scale per decision instead of one per option: 25 five-way choices
    have 25 length scales to fit, not 125.

    ``units`` (q,) multiplies each tied length scale by a fixed factor, the
    unit its parameter is counted in: the prior and the fit see ``theta`` as
    before, the distances ``units`` times longer (:func:`decision_units`).
    """

    def __init__(self, *, ard: bool = True, tied: np.ndarray | None = None, units: np.ndarray | None = None) -> None:
        self.ard = ard
        self.tied = None if tied is None else np.asarray(tied, dtype=int)
        if units is not None and (self.tied is None or len(units) != int(self.tied.max()) + 1):
            raise ValueError(f"units must give one factor per tied length scale, but got units={units!r}")
        self.units = None if units is None else np.asarray(units, dtype=float)

    def _n_scales(self, d: int) -> int:
        if not self.ard:
            return 1
        return d if self.tied is None else int(self.tied.max()) + 1

    def _scales(self, theta: np.ndarray) -> np.ndarray:
        """Each column's length scale, (d,) (or (1,) shared)."""
        ell = np.exp(theta[1:])
        if self.tied is None or not self.ard:
            return ell
        return (ell if self.units is None else ell * self.units)[self.tied]

    def _per_scale(self, squares: np.ndarray) -> np.ndarray:
        """Per-column length-scale gradients summed into the parameters' (a shared or tied scale's
        gradient is the sum of its columns')."""
        if not self.ard:
            return squares.sum(keepdims=True)
        return squares if self.tied is None else np.bincount(self.tied, squares, minlength=int(self.tied.max()) + 1)

    def n_params(self, d: int) -> int:
        return self._n_scales(d) + 1

    def default_theta(self, d: int) -> np.ndarray:
        from .hyperpriors import length_scale_location

        return np.concatenate([[0.0], np.full(self._n_scales(d), length_scale_location(d))])

    @staticmethod
    @abc.abstractmethod
    def profile(r2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(g, dg/dr2)`` at squared distances r2."""

    def diag(self, theta: np.ndarray, Z: np.ndarray) -> np.ndarray:
        return np.full(Z.shape[0], math.exp(theta[0]))

    def gram(self, theta: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, Contraction]:
        s2 = math.exp(theta[0])
        Xs = X / self._scales(theta)
        g, dg = self.profile(_squared_distances(Xs, Xs))
        K = g * s2

        def contract(W: np.ndarray) -> np.ndarray:
            G = W * dg
            G *= s2
            squares = (Xs**2 * (G.sum(1) + G.sum(0))[:, None]).sum(0) - 2.0 * (Xs * (G @ Xs)).sum(0)
            return np.concatenate([[float(np.vdot(W, K))], -2.0 * self._per_scale(squares)])

        return K, contract

    def cross(self, theta: np.ndarray, Z: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, Contraction]:
        s2, ell = math.exp(theta[0]), self._scales(theta)
        g, dg = self.profile(_squared_distances(Z / ell, X / ell))

        def contract(A: np.ndarray) -> np.ndarray:
            H = A * dg
            H *= 2.0 * s2
            return (H.sum(1)[:, None] * Z - H @ X) / ell**2

        return g * s2, contract

    def length_scale_slices(self, d: int) -> list[slice]:
        return [slice(1, self._n_scales(d) + 1)]

    def amplitude_indices(self, d: int) -> list[int]:
        return [0]

    def __repr__(self) -> str:
        if not self.ard:
            return f"{type(self).__name__}(ard=False)"
        if self.tied is None:
            return f"{type(self).__name__}()"
        units = "" if self.units is None else f", units={self.units.tolist()}"
        return f"{type(self).__name__}(tied={self.tied.tolist()}{units})"


class Matern52(Stationary):
    """ARD Matérn-5/2: twice differentiable, the default for BO (Snoek et al. 2012)."""

    @staticmethod
    def profile(r2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        sr = np.sqrt(r2)
        sr *= _SQRT5
        e = np.exp(-sr)
        dg = sr
        dg += 1.0
        dg *= e
        g = r2 * (5.0 / 3.0)
        g *= e
        g += dg
        dg *= -5.0 / 6.0
        return g, dg


class RBF(Stationary):
    """ARD squared exponential: infinitely smooth."""

    @staticmethod
    def profile(r2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        g = np.exp(-0.5 * r2)
        return g, -0.5 * g


class _Pair(Kernel):
    def __init__(self, left: Kernel, right: Kernel) -> None:
        self.left = left
        self.right = right

    def _split(self, theta: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
        p = self.left.n_params(d)
        return theta[:p], theta[p:]

    def n_params(self, d: int) -> int:
        return self.left.n_params(d) + self.right.n_params(d)

    def default_theta(self, d: int) -> np.ndarray:
        return np.concatenate([self.left.default_theta(d), self.right.default_theta(d)])

    def length_scale_slices(self, d: int) -> list[slice]:
        p = self.left.n_params(d)
        right = [slice(s.start + p, s.stop + p) for s in self.right.length_scale_slices(d)]
        return [*self.left.length_scale_slices(d), *right]

    def amplitude_indices(self, d: int) -> list[int]:
        p = self.left.n_params(d)
        return [*self.left.amplitude_indices(d), *(i + p for i in self.right.amplitude_indices(d))]


class Sum(_Pair):
    """``k1 + k2``: independent effects added."""

    def diag(self, theta: np.ndarray, Z: np.ndarray) -> np.ndarray:
        a, b = self._split(theta, Z.shape[1])
        return self.left.diag(a, Z) + self.right.diag(b, Z)

    def gram(self, theta: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, Contraction]:
        a, b = self._split(theta, X.shape[1])
        (Ka, ca), (Kb, cb) = self.left.gram(a, X), self.right.gram(b, X)
        return Ka + Kb, lambda W: np.concatenate([ca(W), cb(W)])

    def cross(self, theta: np.ndarray, Z: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, Contraction]:
        a, b = self._split(theta, Z.shape[1])
        (Ka, ca), (Kb, cb) = self.left.cross(a, Z, X), self.right.cross(b, Z, X)
        return Ka + Kb, lambda A: ca(A) + cb(A)

    def __repr__(self) -> str:
        return f"({self.left!r} + {self.right!r})"


class Product(_Pair):
    """``k1 * k2``: an interaction; ``d(k1 k2) = dk1 k2 + k1 dk2``, so each
    part's contraction takes the weights times the other part."""

    def diag(self, theta: np.ndarray, Z: np.ndarray) -> np.ndarray:
        a, b = self._split(theta, Z.shape[1])
        return self.left.diag(a, Z) * self.right.diag(b, Z)

    def gram(self, theta: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, Contraction]:
        a, b = self._split(theta, X.shape[1])
        (Ka, ca), (Kb, cb) = self.left.gram(a, X), self.right.gram(b, X)
        return Ka * Kb, lambda W: np.concatenate([ca(W * Kb), cb(W * Ka)])

    def cross(self, theta: np.ndarray, Z: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, Contraction]:
        a, b = self._split(theta, Z.shape[1])
        (Ka, ca), (Kb, cb) = self.left.cross(a, Z, X), self.right.cross(b, Z, X)
        return Ka * Kb, lambda A: ca(A * Kb) + cb(A * Ka)

    def __repr__(self) -> str:
        return f"({self.left!r} * {self.right!r})"


def decision_scales(d: int, groups: Sequence[np.ndarray]) -> np.ndarray:
    """(d,) the length scale of each column when the columns of each one-hot group share
    one: numeric columns first-come, each group's columns the index of its first."""
    tied = np.full(d, -1)
    for group in groups:
        tied[group] = group[0]
    own = np.flatnonzero(tied < 0)
    tied[own] = own
    return np.unique(tied, return_inverse=True)[1]


def decision_units(tied: np.ndarray, two_option: float) -> np.ndarray:
    """(q,) each tied length scale's unit: ``two_option`` for a scale over exactly two
    columns (a choice between two options), 1 for the others (a choice among more, a number)."""
    return np.where(np.bincount(tied) == 2, two_option, 1.0)


def make_kernel(kernel: str | Kernel) -> Kernel:
    """A kernel by name (``"matern52"``, ``"rbf"``) or the kernel itself."""
    if isinstance(kernel, Kernel):
        return kernel
    kernels: dict[str, type[Kernel]] = {"matern52": Matern52, "rbf": RBF}
    if kernel not in kernels:
        from ....exceptions import ConfigError

        raise ConfigError(f"kernel must be one of {sorted(kernels)} or a Kernel, but got kernel={kernel!r}")
    return kernels[kernel]()
