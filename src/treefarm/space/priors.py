"""Prior distributions of numeric primitives.

A prior says how a primitive is drawn when nothing is known about the
objective: random search samples from it, TPE mixes it into its Parzen
estimators, annealing restarts from it. Each prior lives on the *sampling
scale* of its primitive: the value itself, or its natural logarithm for
``log=True`` primitives, so ``Normal(mu=log(1e-3), sigma=1)`` on a log real is
a log-normal prior centred on 1e-3.

Every prior is truncated to the primitive's bounds and drawn by inverting its
CDF on a uniform number, so one uniform draw gives one value (which keeps
seeded runs reproducible however the priors are mixed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..exceptions import SpaceError, format_values

__all__ = ["Normal", "Prior", "Uniform"]


def _ndtr(x: float) -> float:
    """Standard normal CDF Φ(x)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _ndtri(p: float) -> float:
    """Inverse of Φ, through SciPy (imported here, not at ``import treefarm``)."""
    from scipy.special import ndtri

    return float(ndtri(p))


@dataclass(frozen=True)
class Uniform:
    """Uniform on the sampling scale: uniform for linear, log-uniform for log primitives."""

    def ppf(self, u: float, low: float, high: float) -> float:
        """The quantile at ``u`` in [0, 1) of the prior truncated to [low, high]."""
        return low + u * (high - low)

    def logpdf(self, t: float, low: float, high: float) -> float:
        """Log density at ``t`` (on the sampling scale) of the truncated prior."""
        return -math.log(high - low) if low <= t <= high else -math.inf

    def __repr__(self) -> str:
        return "Uniform()"


@dataclass(frozen=True)
class Normal:
    """Normal(mu, sigma) on the sampling scale, truncated to the primitive's bounds."""

    mu: float
    sigma: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.mu) and math.isfinite(self.sigma) and self.sigma > 0):
            raise SpaceError(
                "a Normal prior needs a finite mu and a finite sigma > 0, but got "
                + format_values(mu=self.mu, sigma=self.sigma)
            )

    def _cdf_bounds(self, low: float, high: float) -> tuple[float, float]:
        return _ndtr((low - self.mu) / self.sigma), _ndtr((high - self.mu) / self.sigma)

    def ppf(self, u: float, low: float, high: float) -> float:
        """The quantile at ``u`` of the truncated normal; falls back to uniform where
        the bounds lie so far in one tail that their CDFs are equal in floating point."""
        c_low, c_high = self._cdf_bounds(low, high)
        if c_high - c_low < 1e-12:
            return low + u * (high - low)
        t = self.mu + self.sigma * _ndtri(c_low + u * (c_high - c_low))
        return min(max(t, low), high)

    def logpdf(self, t: float, low: float, high: float) -> float:
        """Log density at ``t`` of the normal truncated to [low, high]."""
        if not low <= t <= high:
            return -math.inf
        c_low, c_high = self._cdf_bounds(low, high)
        if c_high - c_low < 1e-12:
            return -math.log(high - low)
        z = (t - self.mu) / self.sigma
        return -0.5 * z * z - math.log(self.sigma * math.sqrt(2 * math.pi) * (c_high - c_low))


Prior = Uniform | Normal
