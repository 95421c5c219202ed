"""Feasibility from constraint values: a trial is feasible when every value is
``<= 0``; its violation is the sum of the positive parts (Deb 2000, "An
efficient constraint handling method for genetic algorithms"), infinite when a
value is NaN."""

from __future__ import annotations

import numpy as np

__all__ = ["feasible_mask", "violations"]


def violations(C: np.ndarray) -> np.ndarray:
    """The total violation of each row of constraint values ``C`` (shape
    ``(n, k)``): ``sum_i max(c_i, 0)``, 0 when feasible, inf when a value is NaN."""
    C = np.asarray(C, dtype=float)
    if C.ndim != 2:
        raise ValueError(f"constraints must have shape (n, k), but got shape {C.shape}")
    positive = np.where(np.isnan(C), np.inf, np.maximum(C, 0.0))
    return positive.sum(axis=1)


def feasible_mask(C: np.ndarray) -> np.ndarray:
    """Which rows of constraint values satisfy every constraint (``c <= 0``)."""
    return violations(C) == 0.0
