"""Hyperband: successive halving in several brackets, from aggressive to none.

Li et al. 2018, "Hyperband: A Novel Bandit-Based Approach to Hyperparameter
Optimization" (JMLR), in its asynchronous stopping form (as ASHA's paper and
Optuna's ``HyperbandPruner``). With ``s_max = floor(log_eta(R / r))``,
bracket ``b = 0..s_max`` is :mod:`successive halving <treefarm.pruners.halving>`
with minimum early-stopping rate ``b``: its first rung is at ``r * eta**b``,
bracket ``s_max`` never stops a trial. Bracket ``b`` receives trials in
proportion to Hyperband's ``n_b = ceil((s_max + 1) / (s_max - b + 1) * eta**(s_max - b))``,
so the aggressive brackets get many cheap trials and the safe ones a few.
A trial's bracket is a function of its number alone (the golden-ratio
sequence ``frac(number * 0.618...)`` mapped through the cumulative shares,
which interleaves brackets evenly), and it competes only with earlier trials
of its own bracket.
"""

from __future__ import annotations

import bisect
import math

import numpy as np

from ..exceptions import StudyError
from ..validation import check_integral
from .base import Curves, Pruner
from .halving import _check_resources, judge, rung_resources

__all__ = ["HyperbandPruner"]

_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def bracket_sizes(min_resource: int, max_resource: int, eta: int) -> np.ndarray:
    """Hyperband's ``n_b`` for brackets ``b = 0..s_max`` (``b`` = minimum early-stopping rate)."""
    s_max = 0
    while min_resource * eta ** (s_max + 1) <= max_resource:
        s_max += 1
    b = np.arange(s_max + 1)
    return np.ceil((s_max + 1) / (s_max - b + 1) * float(eta) ** (s_max - b)).astype(int)


def bracket_edges(sizes: np.ndarray) -> list[float]:
    """The cumulative shares of the brackets, ending at 1."""
    return (np.cumsum(sizes) / sizes.sum()).tolist()


def bracket_of(number: int, edges: list[float]) -> int:
    """The bracket of trial ``number``: ``frac(number * golden)`` through the cumulative shares."""
    return bisect.bisect_right(edges, (number * _GOLDEN) % 1.0)


class HyperbandPruner(Pruner):
    """Hyperband over ``min_resource..max_resource`` steps; see the module docstring."""

    def __init__(self, *, min_resource: int = 1, max_resource: int, reduction_factor: int = 3) -> None:
        self.max_resource = check_integral("max_resource", max_resource, 1, error=StudyError)  # the brackets need the largest budget
        self.min_resource, self.reduction_factor, _ = _check_resources(min_resource, reduction_factor, max_resource)
        self._edges = bracket_edges(bracket_sizes(self.min_resource, self.max_resource, self.reduction_factor))

    def bracket(self, number: int) -> int:
        """The bracket (minimum early-stopping rate) trial ``number`` runs in."""
        return bracket_of(number, self._edges)

    def budget(self, number: int) -> int | None:
        return self.max_resource

    def prune(self, curves: Curves) -> bool:
        bracket = self.bracket(curves.number)
        rivals = {n: c for n, c in curves.earlier.items() if self.bracket(n) == bracket}
        rungs = rung_resources(self.min_resource, self.reduction_factor, bracket, self.max_resource)
        return judge(curves, rivals, rungs, self.reduction_factor)
