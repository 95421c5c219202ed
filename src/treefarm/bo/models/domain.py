"""What each column of an encoded configuration is: continuous, integer levels, one-hot.

Notation (shapes):
    n   points, d columns
    X   (n, d) encoded points; active entries in [0, 1], inactive ones < 0
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Domain"]


@dataclass(frozen=True)
class Domain:
    """The column types of an encoding.

    ``continuous`` marks the columns a gradient step may move (reals, log
    integers); ``integer_levels[j] = k >= 2`` says column ``j`` encodes ``k``
    equally spaced values ``0, 1/(k-1), ..., 1``; ``categorical_groups`` are
    the column indices of one-hot groups.
    """

    continuous: np.ndarray
    integer_levels: np.ndarray
    categorical_groups: tuple[np.ndarray, ...] = field(default_factory=tuple)

    @classmethod
    def continuous_box(cls, d: int) -> Domain:
        """``d`` continuous columns."""
        return cls(np.ones(d, dtype=bool), np.zeros(d, dtype=int), ())

    @property
    def dim(self) -> int:
        return int(self.continuous.shape[0])

    def round(self, X: np.ndarray) -> np.ndarray:
        """``X`` with integer columns snapped to their nearest level and each
        one-hot group to its argmax (ties to the first column); negative
        (inactive) entries are kept. This is the transform ``T`` that the
        kernel applies before distances (Garrido-Merchán & Hernández-Lobato
        2020), so the model is constant between integer values."""
        X = np.array(X, dtype=float, copy=True)
        cols = np.flatnonzero(self.integer_levels >= 2)
        if cols.size:
            k = self.integer_levels[cols] - 1.0
            block = X[..., cols]
            X[..., cols] = np.where(block < 0, block, np.round(np.clip(block, 0.0, 1.0) * k) / k)
        for group in self.categorical_groups:
            block = X[..., group]
            active = (block >= 0).any(axis=-1, keepdims=True)
            hot = np.zeros_like(block)
            np.put_along_axis(hot, np.argmax(block, axis=-1)[..., None], 1.0, axis=-1)
            X[..., group] = np.where(active, hot, block)
        return X
