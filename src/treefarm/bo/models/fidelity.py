"""A GP across fidelities: one model of the loss at every resource, read at the target.

A trial stopped early, or run at a small fidelity, measures the loss at a
resource ``r`` below the target ``r_max``. Those cheap values rank
configurations roughly as the full ones do when the fidelity is informative,
so a model fitted on every ``(configuration, resource, loss)`` point predicts
the full-fidelity loss of configurations it has seen only cheaply, and of new
ones from their neighbours (Swersky, Snoek & Adams, "Freeze-thaw Bayesian
optimization", 2014; Klein et al., "Fast Bayesian optimization of machine
learning hyperparameters on large datasets", FABOLAS, 2017; Wu et al.,
"Practical multi-fidelity Bayesian optimization for hyperparameter tuning",
2019). New configurations are chosen by log expected improvement of the
prediction at the target against the best predicted target mean among the
configurations seen (as MOBSTER scores by the model at a rung: Klein et al.,
"Model-based asynchronous hyperparameter and neural architecture search", 2020).

Notation (shapes):
    n points, d encoded columns of a configuration, m queries
    r       a resource (steps, a data fraction); r_min, r_max its range
    z       = log(r / r_min) / log(r_max / r_min), clipped to [0, 1]: 1 at the target
    X       (n, d + 1) a configuration's columns, then z in the last column
    phi(z)  = 1 - z, the weight of the discrepancy from the target

The kernel (:class:`TargetDiscrepancy`) says the loss at fidelity z is the
target loss plus a discrepancy that fades linearly in ``phi(z)``:

    f(x, z) = g(x) + phi(z) (b + h(x))
    k((x, z), (x', z')) = k_g(x, x') + phi(z) phi(z') (s_b + k_h(x, x'))

with ``g`` and ``h`` independent GPs with ARD Matérn-5/2 kernels and ``b`` a
shared offset of variance ``s_b`` (every configuration is worse at a small
resource). At ``z = 1`` the model is ``g`` alone; cheap points inform it in
as much as ``h`` is small beside ``g``, which the fitted amplitudes decide:
low fidelities that are noise are explained by a large, short-scaled ``h``
and then teach ``g`` little. This is the linear-truncated fidelity kernel of
Wu et al. (2019) with a Matérn discrepancy in place of the polynomial one.

:func:`rung_agreement` measures the same thing directly: Kendall's tau
between the loss at a lower resource and at the target of the configurations
that reached both. When it is low, the caller fits on the target points only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .domain import Domain
from .gp import GaussianProcess, Kernel, Matern52
from .gp.fit import kendall_tau
from .gp.kernels import Contraction

__all__ = [
    "AGREEMENT_PAIRS",
    "RUNG_ETA",
    "TargetDiscrepancy",
    "TargetModel",
    "agreement",
    "fidelity_domain",
    "normalized",
    "rung_levels",
    "rung_points",
    "with_fidelity",
]

#: Fewer pairs (configuration at a lower rung and at the target) than this say nothing about agreement.
AGREEMENT_PAIRS = 5
#: The ratio of consecutive rungs at which a learning curve is read (Hyperband's default eta).
RUNG_ETA = 3.0


def normalized(r: np.ndarray, low: float, high: float) -> np.ndarray:
    """``z`` of resources ``r`` (k,) in ``[low, high]``: 0 at ``low``, 1 at ``high``, on a log scale."""
    r = np.asarray(r, dtype=float)
    if high <= low:
        return np.ones_like(r)
    return np.clip(np.log(np.maximum(r, low) / low) / math.log(high / low), 0.0, 1.0)


def rung_levels(low: float, high: float, eta: float = RUNG_ETA) -> np.ndarray:
    """The resources ``low * eta**k`` below ``high``, ascending (the rungs of successive halving)."""
    levels = [float(low)]
    while levels[-1] * eta < high:
        levels.append(levels[-1] * eta)
    return np.array([r for r in levels if r < high])


def rung_points(steps: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Indices into a curve's ascending ``steps`` (k,) of its last report at or
    below each rung of ``levels``, each once: a long curve becomes a point per
    rung, which keeps the model's n near the number of rungs reached."""
    steps = np.asarray(steps, dtype=float)
    at = np.searchsorted(steps, levels, side="right") - 1
    return np.unique(at[at >= 0])


def agreement(resources: np.ndarray, configs: np.ndarray, losses: np.ndarray, target: np.ndarray) -> float | None:
    """Kendall's tau between loss at a lower resource and at the target, pooled over rungs.

    ``resources`` (k,), ``configs`` (k,) integer ids and ``losses`` (k,) are
    lower-fidelity points; ``target`` maps a configuration id to its target
    loss (NaN where it never reached it). For each resource, tau over the
    configurations with both; the taus averaged with weights equal to their
    pairs. None with fewer than :data:`AGREEMENT_PAIRS` pairs in all."""
    total, weighted = 0, 0.0
    for r in np.unique(resources):
        at = resources == r
        top = target[configs[at]]
        ok = np.isfinite(top) & np.isfinite(losses[at])
        if ok.sum() < 3:  # a tau of two points is +-1 whatever the fidelity
            continue
        tau = kendall_tau(losses[at][ok], top[ok])
        if math.isfinite(tau):
            total, weighted = total + int(ok.sum()), weighted + tau * ok.sum()
    return None if total < AGREEMENT_PAIRS else weighted / total


def fidelity_domain(domain: Domain) -> Domain:
    """``domain`` with one continuous column more, for z."""
    return Domain(
        continuous=np.append(domain.continuous, True),
        integer_levels=np.append(domain.integer_levels, 0),
        categorical_groups=domain.categorical_groups,
    )


class TargetDiscrepancy(Kernel):
    """``k_g(x, x') + phi(z) phi(z') (s_b + k_h(x, x'))`` on (x, z) columns (see the module docstring).

    ``theta = [theta_g (1 + d), log s_b, theta_h (1 + d)]`` for ``d + 1`` columns.
    """

    def __init__(self) -> None:
        self._matern = Matern52()

    def _parts(self, theta: np.ndarray, d1: int) -> tuple[np.ndarray, float, np.ndarray]:
        p = self._matern.n_params(d1 - 1)
        return theta[:p], math.exp(theta[p]), theta[p + 1 :]

    def n_params(self, d: int) -> int:
        return 2 * self._matern.n_params(d - 1) + 1

    def default_theta(self, d: int) -> np.ndarray:
        part = self._matern.default_theta(d - 1)
        return np.concatenate([part, [0.0], part])

    def diag(self, theta: np.ndarray, Z: np.ndarray) -> np.ndarray:
        g, s_b, h = self._parts(theta, Z.shape[1])
        phi = 1.0 - Z[:, -1]
        return self._matern.diag(g, Z[:, :-1]) + phi**2 * (s_b + self._matern.diag(h, Z[:, :-1]))

    def gram(self, theta: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, Contraction]:
        g, s_b, h = self._parts(theta, X.shape[1])
        phi = 1.0 - X[:, -1]
        P = np.multiply.outer(phi, phi)
        (Kg, cg), (Kh, ch) = self._matern.gram(g, X[:, :-1]), self._matern.gram(h, X[:, :-1])

        def contract(W: np.ndarray) -> np.ndarray:
            WP = W * P
            return np.concatenate([cg(W), [s_b * float(WP.sum())], ch(WP)])

        return Kg + P * (s_b + Kh), contract

    def cross(self, theta: np.ndarray, Z: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, Contraction]:
        g, s_b, h = self._parts(theta, Z.shape[1])
        phi_z, phi_x = 1.0 - Z[:, -1], 1.0 - X[:, -1]
        P = np.multiply.outer(phi_z, phi_x)
        (Kg, cg), (Kh, ch) = self._matern.cross(g, Z[:, :-1], X[:, :-1]), self._matern.cross(h, Z[:, :-1], X[:, :-1])
        B = s_b + Kh

        def contract(A: np.ndarray) -> np.ndarray:
            dz = -(A * B) @ phi_x  # d phi(z)/dz = -1
            return np.column_stack([cg(A) + ch(A * P), dz])

        return Kg + P * B, contract

    def length_scale_slices(self, d: int) -> list[slice]:
        p = self._matern.n_params(d - 1)
        return [slice(1, p), slice(p + 2, 2 * p + 1)]

    def amplitude_indices(self, d: int) -> list[int]:
        p = self._matern.n_params(d - 1)
        return [0, p, p + 1]

    def __repr__(self) -> str:
        return "TargetDiscrepancy()"


class TargetModel:
    """A GP fitted on (x, z) rows, seen as a model of x alone at the target ``z = 1``.

    It is a :class:`treefarm.bo.protocols.Model` over the d configuration
    columns: each query gets ``z = 1`` appended and the gradient in z dropped,
    so the acquisitions, their maximizer and the suggestion loop work on it
    unchanged. Pending and chosen points are conditioned on at the target.
    """

    def __init__(self, gp: GaussianProcess) -> None:
        self.gp = gp

    @property
    def X(self) -> np.ndarray:
        return self.gp.X[:, :-1]

    @property
    def y(self) -> np.ndarray:
        return self.gp.y

    @property
    def v(self) -> np.ndarray:
        return self.gp.v

    @property
    def noise_var(self) -> float:
        return self.gp.noise_var

    def predict(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.gp.predict(_at_target(Z))

    def predict_with_grad(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        mean, var, dmean, dvar = self.gp.predict_with_grad(_at_target(Z))
        return mean, var, dmean[:, :-1], dvar[:, :-1]

    def posterior_cov(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.gp.posterior_cov(_at_target(Z))

    def condition_on(self, Xp: np.ndarray, yp: np.ndarray) -> TargetModel:
        return TargetModel(self.gp.condition_on(_at_target(Xp), yp))


def _at_target(Z: np.ndarray) -> np.ndarray:
    """Rows (m, d) with z = 1 appended, (m, d + 1)."""
    Z = np.atleast_2d(Z)
    return np.column_stack([Z, np.ones(len(Z))])


def with_fidelity(X: np.ndarray, z: Sequence[float] | np.ndarray) -> np.ndarray:
    """Rows (n, d) with their z (n,) appended, (n, d + 1)."""
    return np.column_stack([np.atleast_2d(X), np.asarray(z, dtype=float)])
