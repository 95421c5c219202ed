"""TPE's split of the completed trials into the good and the worse, and their columns.

Bergstra, Bardenet, Bengio & Kégl (2011), "Algorithms for hyper-parameter
optimization": the trials with a loss below ``y*`` make ``l(x)``, the others
``g(x)``; ``y*`` is the loss at the quantile ``gamma``. The good trials weigh by
rank as well (:func:`rank_weights`). Each density is a product over addresses,
so the trials are read as columns: per address, the values of the trials in
which it was active (:class:`Columns`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

import numpy as np

from ...space import Config
from ...space.config import Scalar
from ..base import Observation

__all__ = [
    "Columns",
    "Split",
    "Tied",
    "Weights",
    "columns",
    "concat",
    "rank_weights",
    "split",
    "strictly_below",
    "tenth",
    "weighted_columns",
]

_Key = TypeVar("_Key", str, int)
#: The rank weight of each good value, per address (aligned with the good columns).
Weights = dict[str, np.ndarray]


class Columns(NamedTuple):
    """The number of configurations behind the columns, and each address's
    values across them, in order, from the configurations where it was active."""

    size: int
    values: dict[str, list[Scalar]]

    def at(self, address: str) -> list[Scalar]:
        """The values at ``address`` (none where no configuration reached it)."""
        return self.values.get(address, [])


class Tied(NamedTuple):
    """Good and bad values per decision node (its identity), over all the
    positions a recursive space reached it at (:mod:`treefarm.optimizers.tpe.pooled`)."""

    good: dict[int, list[Scalar]]
    bad: dict[int, list[Scalar]]


@dataclass(frozen=True)
class Split:
    """The completed trials' configurations split at ``y*`` (:func:`split`).

    ``gamma`` is the share of good trials, ``weights`` the good trials' rank
    weights (aligned with ``good``; ``None``: equal)."""

    good: list[Config]
    worse: list[Config]
    gamma: float
    weights: np.ndarray | None


def split(complete: Sequence[Observation], n_below: int, power: float) -> Split:
    """The good and the worse of ``complete`` (finite losses), each in trial
    order: the ``n_below`` best, fewer when ties straddle the boundary
    (:func:`strictly_below`), with rank weights of ``power`` (0: none)."""
    losses = np.array([o.loss for o in complete])
    order = np.argsort(losses, kind="stable")
    k = strictly_below(losses[order], n_below)
    good_indices = np.sort(order[:k])
    weights = rank_weights(losses[good_indices], power) if power else None
    return Split(
        good=[complete[i].config for i in good_indices],
        worse=[complete[i].config for i in np.sort(order[k:])],
        gamma=k / len(complete),
        weights=weights,
    )


def columns(configs: Sequence[Config]) -> Columns:
    """The columns of ``configs`` (see :func:`weighted_columns`)."""
    return weighted_columns(configs, None)[0]


def weighted_columns(configs: Sequence[Config], weights: np.ndarray | None) -> tuple[Columns, Weights]:
    """:func:`columns`, and given one weight per config, each address's weights
    aligned with its values. Consecutive configs with the same addresses are
    transposed at once (one run for a flat space), so this costs O(total
    decisions) with little Python per decision."""
    values: dict[str, list[Scalar]] = {}
    weighted: dict[str, list[np.ndarray]] = {}
    start = 0
    for keys, group in itertools.groupby((config.to_dict() for config in configs), key=tuple):
        run = [tuple(row.values()) for row in group]
        for address, column in zip(keys, zip(*run)):
            values.setdefault(address, []).extend(column)
            if weights is not None:
                weighted.setdefault(address, []).append(weights[start : start + len(run)])
        start += len(run)
    return Columns(len(configs), values), {address: np.concatenate(parts) for address, parts in weighted.items()}


def rank_weights(losses: np.ndarray, power: float) -> np.ndarray:
    """Each of ``k`` good trials' weight from its loss: ``(ln(k + 1/2) - ln r) ** power``
    for its rank ``r`` (1 the best; tied losses share their mean rank), scaled to
    mean 1 so that the good set weighs as much against the prior as unweighted.
    With ``power = 1`` these are CMA-ES's recombination weights (Hansen 2016,
    "The CMA Evolution Strategy: A Tutorial"), all positive; a larger power
    moves more of ``l``'s mass to the best points."""
    k = len(losses)
    if k == 0:
        return np.ones(0)
    _, tie, counts = np.unique(losses, return_inverse=True, return_counts=True)
    ranks = (np.cumsum(counts) - (counts - 1) / 2.0)[tie]  # 1 the best; a tie's mean rank
    log_w = power * np.log(math.log(k + 0.5) - np.log(ranks))
    # in logs, since a large power would overflow; floored so that no log of a weight is -inf
    w = np.maximum(np.exp(log_w - log_w.max()), np.finfo(float).tiny)
    return w / w.mean()


def strictly_below(sorted_losses: np.ndarray, k: int) -> int:
    """How many losses lie strictly below ``y*``, the best loss outside the
    ``k`` best: ``k`` unless ties straddle the boundary, which all go to g
    (Bergstra et al. 2011: l for ``y < y*``, g for ``y >= y*``). A plateau of equal
    losses larger than the quantile then leaves l to the prior, so the search
    moves off it instead of sampling it over and over."""
    if k >= len(sorted_losses):
        return k
    return int(np.searchsorted(sorted_losses, sorted_losses[k], side="left"))


def concat(a: dict[_Key, list[Scalar]], b: dict[_Key, list[Scalar]]) -> dict[_Key, list[Scalar]]:
    """Per-key concatenation, ``a``'s values first (the columns of the configs
    behind ``a`` followed by those behind ``b``: the worse trials' columns are
    built once per suggestion, not once per batch member)."""
    out = {key: list(values) for key, values in a.items()}
    for key, values in b.items():
        out.setdefault(key, []).extend(values)
    return out


def tenth(n: int) -> int:
    """Optuna's good set for ``n`` trials, ``min(ceil(0.1 n), 25)``: the joint turns'."""
    return min(math.ceil(0.1 * n), 25)
