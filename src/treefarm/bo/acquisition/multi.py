"""Acquisitions for several objectives and constraints, over independent models.

**Expected hypervolume improvement** (Emmerich, Giannakoglou & Naujoks 2006)
for two and three objectives, in closed form by box decomposition (Yang, Emmerich,
Deutz & Bäck 2019 give the 2-D form; Daulton, Balandat & Bakshy 2020 the
same decomposition for batches). Losses are minimized. The region that the
front ``P`` (sorted by the first loss, so the second decreases) does not
dominate, below the reference point ``r``, is the union of the cells

    [p_i,1, p_{i+1},1] x (-inf, p_i,2],   i = 0..k,

with ``p_0 = (-inf, r_2)`` and ``p_{k+1},1 = r_1``. A point ``y`` improves the
hypervolume by the part of each cell ``[l, u]`` above it,
``prod_j (u_j - max(l_j, y_j))^+``, and for independent Gaussian losses
``Y_j ~ N(mu_j, sigma_j^2)`` the expectation factorizes per cell and loss:

    E[(u - max(l, Y))^+] = E[(u - Y)^+] - E[(l - Y)^+] = sigma (h(z_u) - h(z_l)),

``z_a = (a - mu) / sigma``, ``h(z) = phi(z) + z Phi(z)`` (the expected
improvement below ``a``). For three objectives the cells are columns over the grid of the front's
first two losses, ``[a_i, a_{i+1}] x [b_j, b_{j+1}] x (-inf, h_ij]`` with
``h_ij`` the least third loss among the points at or below ``(a_i, b_j)`` in
the first two (the reference's otherwise), neighbouring columns of equal
height merged along the second loss (:func:`non_dominated_cells_3d`); the
same per-cell product applies. The sum over cells is taken in log space: each
factor is ``log EI(u) + log(1 - exp(log EI(l) - log EI(u)))``, with
``log EI`` from :func:`treefarm.bo.acquisition.analytic.log_h`, and the cells
are summed by log-sum-exp, so the value and its gradient stay finite and
informative where the improvement underflows (LogEHVI; Ament, Daulton,
Eriksson, Balandat & Bakshy 2023, "Unexpected improvements to expected
improvement").

**Probability of feasibility** (Gardner, Kusner, Xu, Weinberger &
Cunningham 2014): a constraint ``c_i <= 0`` modelled by its own GP holds with
probability ``Phi((t_i - mu_i) / sigma_i)``, ``t_i`` the threshold 0 on the
model's scale; the log acquisition adds ``sum_i log Phi``. Before any trial
is feasible the probability of feasibility alone is maximized.

**ParEGO** (Knowles 2006) for more objectives: :func:`chebyshev` scalarizes
the normalized losses with random weights, and a single GP on the scalar is
searched by log expected improvement.

Notation (shapes): m query points, k outputs, c cells, d columns; means and
standard deviations (m, k); cells' bounds (c, 2).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..models.stacked import Stacked
from .analytic import log_ei, log_h, log_pi

__all__ = [
    "PARETO_RHO",
    "MultiObjective",
    "chebyshev",
    "log_ehvi",
    "log_pof",
    "non_dominated_cells",
    "non_dominated_cells_2d",
    "non_dominated_cells_3d",
    "reference_point",
]

#: The weight of ParEGO's augmenting sum beside the weighted maximum (Knowles 2006).
PARETO_RHO = 0.05
#: The reference point lies this fraction of the observed range beyond the worst observed loss.
REFERENCE_MARGIN = 0.1


def non_dominated_cells_2d(points: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cells (lower (c, 2), upper (c, 2)) whose union is the part of
    ``{y < ref}`` that no row of ``points`` (n, 2) dominates (see the module
    docstring); lower bounds of the second loss are ``-inf``, and so is the
    first loss's lower bound of the first cell. Points not below ``ref`` in
    both losses are left out."""
    P = np.asarray(points, dtype=float).reshape(-1, 2)
    P = P[np.all(ref > P, axis=1)]
    order = np.lexsort((P[:, 1], P[:, 0]))
    front: list[np.ndarray] = []
    for p in P[order]:
        if not front or p[1] < front[-1][1]:
            front.append(p)
    f1 = np.array([-np.inf, *(p[0] for p in front), ref[0]])
    f2 = np.array([ref[1], *(p[1] for p in front)])
    lower = np.stack([f1[:-1], np.full(len(f2), -np.inf)], axis=1)
    upper = np.stack([f1[1:], f2], axis=1)
    return lower, upper


def non_dominated_cells_3d(points: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The cells (lower (c, 3), upper (c, 3)) whose union is the part of
    ``{y < ref}`` that no row of ``points`` (n, 3) dominates (see the module
    docstring); lower bounds of the third loss are ``-inf``, and so are the
    first column's and row's lower bounds. Points not below ``ref`` in every
    loss are left out."""
    P = np.asarray(points, dtype=float).reshape(-1, 3)
    P = P[np.all(ref > P, axis=1)]
    a = np.concatenate([[-np.inf], np.unique(P[:, 0]), [ref[0]]])
    b = np.concatenate([[-np.inf], np.unique(P[:, 1]), [ref[1]]])
    lower: list[tuple[float, float, float]] = []
    upper: list[tuple[float, float, float]] = []
    for i in range(len(a) - 1):
        below = P[P[:, 0] <= a[i]]
        heights = [
            min(float(ref[2]), float(below[below[:, 1] <= b[j], 2].min(initial=np.inf))) for j in range(len(b) - 1)
        ]
        j = 0
        while j < len(heights):
            end = j
            while end + 1 < len(heights) and heights[end + 1] == heights[j]:
                end += 1
            lower.append((a[i], b[j], -np.inf))
            upper.append((a[i + 1], b[end + 1], heights[j]))
            j = end + 1
    return np.array(lower).reshape(-1, 3), np.array(upper).reshape(-1, 3)


def non_dominated_cells(points: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`non_dominated_cells_2d` or :func:`non_dominated_cells_3d` by the reference's length."""
    if len(ref) == 2:
        return non_dominated_cells_2d(points, ref)
    if len(ref) == 3:
        return non_dominated_cells_3d(points, ref)
    raise ValueError(f"cells are made for 2 or 3 losses, but got a reference of length {len(ref)}")


def _log1mexp(x: np.ndarray) -> np.ndarray:
    """``log(1 - exp(x))`` for x <= 0, accurate on both sides of -log 2 (Mächler 2012)."""
    x = np.minimum(x, -1e-300)
    return np.where(x > -0.6931471805599453, np.log(-np.expm1(x)), np.log1p(-np.exp(x)))


def log_ehvi(
    mu: np.ndarray, sigma: np.ndarray, lower: np.ndarray, upper: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``log EHVI`` (m,) of independent Gaussian losses ``N(mu, sigma^2)``
    (m, k) over the cells ``[lower, upper]`` (c, k), and its derivatives in
    ``mu`` and ``sigma`` (m, k) (see the module docstring)."""
    k = lower.shape[1]
    log_terms = np.zeros((len(mu), len(lower)))
    d_mu = np.zeros((len(mu), len(lower), k))
    d_sigma = np.zeros((len(mu), len(lower), k))
    for j in range(k):
        m, s = mu[:, j : j + 1], sigma[:, j : j + 1]
        zu = (upper[None, :, j] - m) / s
        lu, cu, pu = log_h(zu.ravel())
        lu, cu, pu = lu.reshape(zu.shape), cu.reshape(zu.shape), pu.reshape(zu.shape)
        finite = np.isfinite(lower[:, j])
        zl = (np.where(finite, lower[:, j], 0.0)[None, :] - m) / s
        ll, cl, pl = log_h(zl.ravel())
        ll, cl, pl = ll.reshape(zl.shape), cl.reshape(zl.shape), pl.reshape(zl.shape)
        # log EI(a) = log h(z_a) + log sigma; the factor is EI(u) (1 - r), r = EI(l) / EI(u)
        x = np.where(finite[None, :], ll - lu, -np.inf)
        r = np.exp(x)
        one_minus_r = np.where(finite[None, :], -np.expm1(x), 1.0)
        log_terms += lu + np.log(s) + np.where(finite[None, :], _log1mexp(x), 0.0)
        # d log EI(a)/d mu = -Phi/(h sigma), d log EI(a)/d sigma = phi/(h sigma)
        d_mu[:, :, j] = (-cu + r * cl) / (s * one_minus_r)
        d_sigma[:, :, j] = (pu - r * pl) / (s * one_minus_r)
    top = log_terms.max(axis=1, keepdims=True)
    weights = np.exp(log_terms - top)
    total = weights.sum(axis=1, keepdims=True)
    value = top[:, 0] + np.log(total[:, 0])
    weights /= total
    return value, np.einsum("mc,mcj->mj", weights, d_mu), np.einsum("mc,mcj->mj", weights, d_sigma)


def log_pof(
    mu: np.ndarray, sigma: np.ndarray, thresholds: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``sum_i log Phi((t_i - mu_i) / sigma_i)`` (m,) over the constraints'
    means and deviations (m, k) and thresholds (k,), and its derivatives (m, k)."""
    value = np.zeros(len(mu))
    d_mu, d_sigma = np.zeros_like(mu), np.zeros_like(mu)
    for i, t in enumerate(np.asarray(thresholds, dtype=float)):
        v, dm, ds = log_pi(mu[:, i], sigma[:, i], float(t))
        value += v
        d_mu[:, i], d_sigma[:, i] = dm, ds
    return value, d_mu, d_sigma


def reference_point(Y: np.ndarray) -> np.ndarray:
    """A reference point beyond the observed losses (n, k): the worst of each
    plus :data:`REFERENCE_MARGIN` of its range (the range 1 if flat)."""
    hi, lo = Y.max(axis=0), Y.min(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return hi + REFERENCE_MARGIN * span


def chebyshev(Y: np.ndarray, weights: np.ndarray, rho: float = PARETO_RHO) -> np.ndarray:
    """ParEGO's augmented Chebyshev scalarization (Knowles 2006) of losses
    ``Y`` (n, k), each normalized to [0, 1] over its observed range:
    ``max_j w_j y_j + rho sum_j w_j y_j`` (n,)."""
    lo, hi = Y.min(axis=0), Y.max(axis=0)
    U = (Y - lo) / np.where(hi > lo, hi - lo, 1.0)
    W = U * np.asarray(weights, dtype=float)[None, :]
    return W.max(axis=1) + rho * W.sum(axis=1)


class MultiObjective:
    """The log acquisition over a :class:`Stacked` model whose first outputs
    are the objectives and the rest the constraints (thresholds ``thresholds``
    on the constraints' model scales): log EHVI over the cells of the
    feasible front of the model's rows (observed, pending and chosen at their
    posterior mean) plus the log probability of feasibility; the latter alone
    when no row is feasible (two or three objectives). With one objective (a
    ParEGO scalar, or one loss with constraints), log expected improvement on
    the best feasible row.
    Values (m,) and gradients (m, d); ``grad=False`` gives zeros."""

    def __init__(
        self, model: Stacked, n_objectives: int, thresholds: Sequence[float], ref: np.ndarray
    ) -> None:
        if n_objectives not in (1, 2, 3):
            raise ValueError(f"n_objectives must be 1, 2 or 3, but got n_objectives={n_objectives!r}")
        self.model = model
        self.k = n_objectives
        self.thresholds = np.asarray(thresholds, dtype=float)
        y = model.y
        feasible = np.all(y[:, self.k :] <= self.thresholds[None, :], axis=1)
        self.any_feasible = bool(feasible.any())
        front = y[feasible, : self.k]
        if self.k > 1:
            self.lower, self.upper = non_dominated_cells(front, ref)
        else:
            best = float(front.min()) if len(front) else float(ref[0])
            self.lower, self.upper = np.array([[-np.inf]]), np.array([[best]])

    def __call__(self, Z: np.ndarray, *, grad: bool = True) -> tuple[np.ndarray, np.ndarray]:
        if grad:
            mean, var, dmean, dvar = self.model.predict_with_grad(Z)
        else:
            mean, var = self.model.predict(Z)
        sigma = np.sqrt(var)
        value = np.zeros(len(Z))
        d_mu, d_sigma = np.zeros_like(mean), np.zeros_like(mean)
        if self.any_feasible or len(self.thresholds) == 0:
            if self.k > 1:
                v, dm, ds = log_ehvi(mean[:, : self.k], sigma[:, : self.k], self.lower, self.upper)
            else:
                v, dm0, ds0 = log_ei(mean[:, 0], sigma[:, 0], float(self.upper[0, 0]))
                dm, ds = dm0[:, None], ds0[:, None]
            value += v
            d_mu[:, : self.k], d_sigma[:, : self.k] = dm, ds
        if len(self.thresholds):
            v, dm, ds = log_pof(mean[:, self.k :], sigma[:, self.k :], self.thresholds)
            value += v
            d_mu[:, self.k :], d_sigma[:, self.k :] = dm, ds
        if not grad:
            return value, np.zeros_like(Z)
        g = np.einsum("mk,mkd->md", d_mu, dmean) + np.einsum("mk,mkd->md", d_sigma / (2.0 * sigma), dvar)
        return value, g
