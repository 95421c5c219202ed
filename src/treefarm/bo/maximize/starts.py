"""Starting points for the acquisition optimizer.

Notation (shapes): d columns, m points; b best points (b, d).
"""

from __future__ import annotations

import numpy as np

from ..models.domain import Domain

__all__ = ["perturb"]


def perturb(X_best: np.ndarray, m: int, scale: float, domain: Domain, rng: np.random.Generator) -> np.ndarray:
    """(m, d) perturbations of the rows of ``X_best`` (cycled): a Gaussian
    step of standard deviation ``scale`` in continuous columns (clipped to
    [0, 1]), a one-level move in a random integer column and a random option
    in a random one-hot group, each with probability 1/2. Inactive (negative)
    entries are left alone."""
    X = np.array(X_best[np.arange(m) % len(X_best)], dtype=float)
    active = X >= 0
    cont = domain.continuous[None, :] & active
    X = np.where(cont, np.clip(X + scale * rng.standard_normal(X.shape), 0.0, 1.0), X)
    levels = np.flatnonzero(domain.integer_levels >= 2)
    for i in range(m):
        if len(levels) and rng.random() < 0.5:
            j = levels[rng.integers(len(levels))]
            if active[i, j]:
                step = 1.0 / (domain.integer_levels[j] - 1)
                X[i, j] = np.clip(X[i, j] + step * rng.choice([-1.0, 1.0]), 0.0, 1.0)
        if domain.categorical_groups and rng.random() < 0.5:
            group = domain.categorical_groups[rng.integers(len(domain.categorical_groups))]
            if active[i, group].all():
                X[i, group] = 0.0
                X[i, group[rng.integers(len(group))]] = 1.0
    return X
