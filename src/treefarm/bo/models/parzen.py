"""Parzen estimators: the densities l(x) and g(x) of the Tree-structured Parzen Estimator.

Notation (shapes):
    n observations of one parameter, k = n + 1 mixture components (the prior first)
    mu, sigma, w    (k,) component centres, widths and weights on the sampling scale
    lo, hi          the parameter's bounds on the sampling scale
    x               (m,) points at which to evaluate, or draws
    weights         (n,) the observations' weights (ones, or linear forgetting)

Numeric parameters (Bergstra et al. 2011; hyperopt's
``adaptive_parzen_normal``): on the sampling scale (the logarithm for log
parameters), a mixture of the prior and one Gaussian per observation, all
with equal weight and truncated to the bounds. The prior component is the
space's prior: its Normal, or for a uniform prior a Gaussian at the centre
with sigma = hi - lo. An observation's sigma is the distance to the farther
of its two neighbours, the bounds counting as neighbours, clipped to
``[(hi - lo) / min(100, n + 1), hi - lo]`` (hyperopt's magic clip) so that
one tight cluster cannot collapse to a spike. Integers are the same mixture
discretized: the mass of ``[v - 1/2, v + 1/2]`` (on the log scale for log
integers).

Categorical parameters and join options: with prior probabilities ``p_i``
over ``N`` options and counts ``c_i``, the posterior is proportional to
``N p_i + c_i`` (Bergstra et al. 2011).

Observation weights: by default every observation weighs as much as the
prior (the paper's "equal weight"). Hyperopt's and Optuna's linear forgetting
(:func:`forgetting_weights`) instead ramps the weights of all but the newest
``lf`` observations down linearly with their age, so a density tracks where
the search is now rather than where it started; counts ``c_i`` then become
sums of weights.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...space import Int, Real
from ...space.priors import Normal

__all__ = [
    "CategoricalParzen",
    "NumericParzen",
    "bandwidths",
    "forgetting_weights",
    "logsumexp_rows",
    "numeric_parzen",
]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _ndtr(z: np.ndarray) -> np.ndarray:
    from scipy.special import ndtr

    return np.asarray(ndtr(z))


def bandwidths(points: np.ndarray, lo: float, hi: float, *, bounds_as_neighbours: bool = True) -> np.ndarray:
    """Each point's sigma: distance to its farther neighbour, bounds included, clipped.

    Bergstra et al. 2011 count the bounds as neighbours; hyperopt's code and Optuna's
    default do not. Without ``bounds_as_neighbours`` the lowest and the
    highest of two or more points take the distance to their one neighbour
    among the points."""
    n = len(points)
    if n == 0:
        return np.zeros(0)
    order = np.argsort(points, kind="stable")
    padded = np.concatenate([[lo], points[order], [hi]])
    sigma_sorted = np.maximum(padded[1:-1] - padded[:-2], padded[2:] - padded[1:-1])
    if not bounds_as_neighbours and n >= 2:
        sigma_sorted[0], sigma_sorted[-1] = padded[2] - padded[1], padded[-2] - padded[-3]
    sigma = np.empty(n)
    sigma[order] = sigma_sorted
    return np.clip(sigma, (hi - lo) / min(100.0, n + 1.0), hi - lo)


@dataclass(frozen=True)
class NumericParzen:
    """A truncated Gaussian mixture on ``[lo, hi]`` (see the module docstring).

    ``integer`` makes it the discretized version over the integers ``values``
    of the node (``log`` tells whether the scale is logarithmic).
    """

    mu: np.ndarray
    sigma: np.ndarray
    w: np.ndarray
    lo: float
    hi: float
    integer: bool = False
    log: bool = False

    def _log_z(self) -> np.ndarray:
        z = _ndtr((self.hi - self.mu) / self.sigma) - _ndtr((self.lo - self.mu) / self.sigma)
        return np.log(np.maximum(z, 1e-300))

    def component_logpdf(self, x: np.ndarray) -> np.ndarray:
        """(m, k) log density (numbers) or log mass (integers) of each
        truncated component at values ``x`` of the parameter (not its scale)."""
        return self._log_terms(np.asarray(x, dtype=float), np.zeros(len(self.w)))

    def logpdf(self, x: np.ndarray) -> np.ndarray:
        """Log density (or mass, for integers) of the mixture at ``x``, shape (m,)."""
        return logsumexp_rows(self._log_terms(np.asarray(x, dtype=float), np.log(self.w)))

    def _log_terms(self, x: np.ndarray, offset: np.ndarray) -> np.ndarray:
        """(m, k) component log densities plus ``offset`` (k,), computed in
        place: this is the inner loop of every l/g score."""
        if self.integer:
            a, b = x - 0.5, x + 0.5
            if self.log:
                a, b = np.log(np.maximum(a, 1e-300)), np.log(b)
            a, b = np.maximum(a, self.lo), np.minimum(b, self.hi)
            mass = _ndtr((b[:, None] - self.mu) / self.sigma) - _ndtr((a[:, None] - self.mu) / self.sigma)
            return np.log(np.maximum(mass, 1e-300)) + (offset - self._log_z())
        t = np.log(x) if self.log else x
        terms = t[:, None] - self.mu
        terms *= 1.0 / self.sigma
        terms *= terms
        terms *= -0.5
        terms += offset - _LOG_SQRT_2PI - np.log(self.sigma) - self._log_z()
        if self.log:
            terms -= t[:, None]
        return terms

    def sample_components(self, rng: np.random.Generator, k: np.ndarray) -> np.ndarray:
        """One draw from each component ``k[i]`` (values of the parameter), by
        the inverse CDF of the truncated Gaussian."""
        from scipy.special import ndtri

        mu, sigma = self.mu[k], self.sigma[k]
        a, b = _ndtr((self.lo - mu) / sigma), _ndtr((self.hi - mu) / sigma)
        u = a + rng.random(len(k)) * (b - a)
        t = np.clip(mu + sigma * ndtri(np.clip(u, 1e-300, 1 - 1e-16)), self.lo, self.hi)
        x = np.exp(t) if self.log else t
        return np.round(x) if self.integer else x

    def sample(self, rng: np.random.Generator, m: int) -> np.ndarray:
        """``m`` draws: a component by weight, then its truncated Gaussian."""
        return self.sample_components(rng, rng.choice(len(self.w), size=m, p=self.w))


def logsumexp_rows(a: np.ndarray) -> np.ndarray:
    """``log(sum(exp(a), axis=1))`` without overflow, shape (m,); ``a`` is
    overwritten (callers pass a temporary)."""
    top = a.max(axis=1)
    a -= top[:, None]
    np.exp(a, out=a)
    return top + np.log(a.sum(axis=1))


def forgetting_weights(n: int, lf: int | None) -> np.ndarray:
    """Weights of ``n`` observations, oldest first: the newest ``lf`` weigh 1,
    the older ones ramp linearly from ``1/n`` (hyperopt's ``LF``); all ones
    when ``lf`` is ``None`` or ``n <= lf``. Shape (n,)."""
    if lf is None or n <= lf:
        return np.ones(n)
    return np.concatenate([np.linspace(1.0 / n, 1.0, n - lf), np.ones(lf)])


def numeric_parzen(
    node: Real | Int,
    values: np.ndarray,
    *,
    prior_weight: float = 1.0,
    weights: np.ndarray | None = None,
    bounds_as_neighbours: bool = True,
) -> NumericParzen:
    """The Parzen estimator of a numeric node from its observed ``values``
    (``weights``: one per value, ones by default; ``bounds_as_neighbours``:
    see :func:`bandwidths`)."""
    lo, hi = node.scale_bounds()
    t = np.log(values) if node.log else np.asarray(values, dtype=float)
    if isinstance(node.prior, Normal):
        prior_mu, prior_sigma = node.prior.mu, node.prior.sigma
    else:
        prior_mu, prior_sigma = 0.5 * (lo + hi), hi - lo
    mu = np.concatenate([[prior_mu], t])
    sigma = np.concatenate([[prior_sigma], bandwidths(t, lo, hi, bounds_as_neighbours=bounds_as_neighbours)])
    w = np.concatenate([[prior_weight], np.ones(len(t)) if weights is None else weights])
    return NumericParzen(mu, sigma, w / w.sum(), lo, hi, isinstance(node, Int), node.log)


@dataclass(frozen=True)
class CategoricalParzen:
    """Posterior over options: proportional to ``N p_i + c_i``."""

    p: np.ndarray

    @classmethod
    def fit(
        cls,
        prior: np.ndarray,
        indices: np.ndarray,
        *,
        prior_weight: float = 1.0,
        weights: np.ndarray | None = None,
    ) -> CategoricalParzen:
        """From prior probabilities (N,) and the observed option indices
        (``weights``: one per observation, ones by default)."""
        counts = np.bincount(indices.astype(int), weights=weights, minlength=len(prior)).astype(float)
        post = prior_weight * len(prior) * prior + counts
        post[prior == 0] = 0.0
        return cls(post / post.sum())

    def logpdf(self, indices: np.ndarray) -> np.ndarray:
        return np.log(np.maximum(self.p[np.asarray(indices, dtype=int)], 1e-300))

    def sample(self, rng: np.random.Generator, m: int) -> np.ndarray:
        return rng.choice(len(self.p), size=m, p=self.p)
