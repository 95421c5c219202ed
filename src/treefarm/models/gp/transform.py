"""The output transform: raw losses to the scale the GP models.

Objectives in hyperparameter search are heavy-tailed: one diverged training
run can be a thousand times worse than the rest. Standardizing alone then
squashes every good point into a sliver near the minimum and the GP sees a
flat function with one spike. We centre on the median and scale by the
inter-quartile range (robust: an outlier cannot shrink the bulk), apply the Yeo-Johnson power
transform with its MLE exponent (Yeo & Johnson 2000; used for BO by
Cowen-Rivers et al. 2022, HEBO), which compresses a heavy tail while keeping
the order of the values, and standardize again. A constant output maps to
zeros; the fit stays finite.

Notation (shapes):
    n       observations
    y       (n,) raw losses;  z = (y - median) / (IQR / 1.349)  (n,)
    t       (n,) model scale: (yeojohnson(z, lam) - mean) / std
    lam     the Yeo-Johnson exponent maximizing the normal likelihood of t

The slope ``dt/dy`` carries a variance of a raw value onto the model scale
(the delta method, ``var(t) ~ (dt/dy)^2 var(y)``). Yeo-Johnson's derivative
(Yeo & Johnson 2000, eq. 2.1 differentiated) is

    psi'(z) = (1 + z)^(lam - 1)   for z >= 0
    psi'(z) = (1 - z)^(1 - lam)   for z < 0

(the ``lam = 0`` and ``lam = 2`` logarithms have the same derivatives), so
``dt/dy = psi'(z) / (scale * scale2)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["OutputTransform"]


@dataclass(frozen=True)
class OutputTransform:
    """A fitted monotone map from raw values to the model's scale."""

    loc: float
    scale: float
    lam: float | None
    loc2: float
    scale2: float

    @classmethod
    def fit(cls, y: np.ndarray) -> OutputTransform:
        from scipy import stats

        y = np.asarray(y, dtype=float)
        loc = float(np.median(y))
        q1, q3 = np.percentile(y, [25, 75])
        scale = float(q3 - q1) / 1.349 or float(np.std(y))
        if not scale > 1e-12 * max(1.0, abs(loc)):
            return cls(loc, 1.0, None, 0.0, 1.0)
        z = (y - loc) / scale
        lam = float(stats.yeojohnson_normmax(z))
        t = stats.yeojohnson(z, lam)
        loc2, scale2 = float(np.mean(t)), float(np.std(t))
        if not np.isfinite(lam) or not scale2 > 1e-12:
            return cls(loc, scale, None, 0.0, 1.0)
        return cls(loc, scale, lam, loc2, scale2)

    @classmethod
    def standard(cls, y: np.ndarray) -> OutputTransform:
        """Plain standardization ``(y - mean) / std``: the map to compare the
        warp with (a smooth objective with a heavy upper tail, such as an
        ill-conditioned quadratic, keeps its shape, which the warp bends)."""
        y = np.asarray(y, dtype=float)
        scale = float(np.std(y))
        return cls(float(np.mean(y)), scale if scale > 0.0 else 1.0, None, 0.0, 1.0)

    def __call__(self, y: np.ndarray) -> np.ndarray:
        z = (np.asarray(y, dtype=float) - self.loc) / self.scale
        if self.lam is None:
            return z
        from scipy import stats

        return (stats.yeojohnson(z, self.lam) - self.loc2) / self.scale2

    def slope(self, y: np.ndarray) -> np.ndarray:
        """``dt/dy`` at raw values ``y`` (n,), positive (see the module docstring)."""
        z = (np.asarray(y, dtype=float) - self.loc) / self.scale
        if self.lam is None:
            return np.full_like(z, 1.0 / self.scale)
        psi = np.where(
            z >= 0.0,
            np.power(1.0 + np.abs(z), self.lam - 1.0),
            np.power(1.0 + np.abs(z), 1.0 - self.lam),
        )
        return psi / (self.scale * self.scale2)

    def variance(self, y: np.ndarray, y_var: np.ndarray) -> np.ndarray:
        """Variances ``y_var`` (n,) of the raw values ``y`` (n,) on the model scale:
        ``slope(y)^2 * y_var`` (first order; exact for the affine map)."""
        return self.slope(y) ** 2 * np.asarray(y_var, dtype=float)
