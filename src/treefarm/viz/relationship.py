"""Two parameters against the loss: where the good trials sit (pure data).

The plane of two parameters (each mapped to [0, 1] as :meth:`.params.ParamValues.unit`
maps it: log scale, category index) is cut into ``bins`` x ``bins`` cells (by default as many as keep about
four trials per cell, at most :data:`MAX_BINS`); each
cell holds the mean loss rank of the trials in it (0 best, 1 worst: ranks, so
one diverged run cannot paint the map) and the number of *good* trials in it,
those among the best ``good`` fraction. The good trials are also returned as
points. Only the complete trials where both parameters are active count.
O(n log n): one ranking and two histograms.

Notation (shapes): n trials where both are active, b bins per axis, g good points shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..exceptions import ConfigError, format_values
from ..storage import TrialRecord
from .history import _even
from .params import _ticks, average_ranks, columns
from .source import complete_trials, losses

__all__ = ["Relationship", "relationship"]

MAX_BINS = 20
"""Cells per axis on a large study; a small one gets about 4 trials per cell (sqrt(n / 4) bins)."""


@dataclass(frozen=True)
class Relationship:
    """Over the cells (b, b) indexed [y, x]: ``mean_rank`` (NaN where empty) and
    ``good`` counts; ``x``, ``y`` (g,) the good trials in [0, 1]; per axis its ticks."""

    addresses: tuple[str, str]
    mean_rank: np.ndarray
    good: np.ndarray
    x: np.ndarray
    y: np.ndarray
    ticks: tuple[tuple[list[float], list[str]], tuple[list[float], list[str]]]
    shown: int
    total: int


def relationship(
    trials: Sequence[TrialRecord],
    x: str,
    y: str,
    *,
    direction: str,
    bins: int | None = None,
    good: float = 0.2,
    max_points: int = 2000,
) -> Relationship:
    """The loss over the plane of parameters ``x`` and ``y`` (see the module docstring)."""
    done = complete_trials(trials)
    cols = {c.address: c for c in columns(done)}
    for name, address in (("x", x), ("y", y)):
        if address not in cols:
            raise ConfigError(
                f"{name} must name a parameter of a complete trial ({list(cols)}), but got {format_values(**{name: address})}"
            )
    if x == y:
        raise ConfigError(f"x and y must name two different parameters, but got {format_values(x=x, y=y)}")
    cx, cy = cols[x], cols[y]
    both, ix, iy = np.intersect1d(cx.rows, cy.rows, return_indices=True)
    ux, uy = cx.unit()[ix], cy.unit()[iy]
    loss = np.array(losses(done, direction))[both]
    n = len(both)
    bins = min(MAX_BINS, max(4, int(np.sqrt(n / 4)))) if bins is None else bins
    rank = average_ranks(loss) / max(1, n - 1)
    cell_x = np.minimum((ux * bins).astype(int), bins - 1)
    cell_y = np.minimum((uy * bins).astype(int), bins - 1)
    flat = cell_y * bins + cell_x
    counts = np.bincount(flat, minlength=bins * bins)
    sums = np.bincount(flat, weights=rank, minlength=bins * bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_rank = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    is_good = rank <= good
    good_counts = np.bincount(flat[is_good], minlength=bins * bins)
    shown = np.flatnonzero(is_good)
    shown = shown[_even(len(shown), max_points)]
    return Relationship(
        (x, y),
        mean_rank.reshape(bins, bins),
        good_counts.reshape(bins, bins),
        ux[shown],
        uy[shown],
        (_ticks(cx), _ticks(cy)),
        len(shown),
        n,
    )
