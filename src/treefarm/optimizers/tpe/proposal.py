"""TPE's proposal: the best of ``n_candidates`` whole configurations drawn from ``l``.

Candidate ``j`` is walk ``j`` through the space, taking at each address it
reaches the ``j``-th of that address's draws from ``l_a``; its score is
``sum_a log l_a(x_a) - log g_a(x_a)`` over the addresses it visits (with
constraints, c-TPE's score of those ratios: :mod:`treefarm.optimizers.tpe.constraints`).
Each address's draws and log ratios are computed once, in one array call, the
first time a walk reaches it. On a recursive space an address no good trial
reached uses its node's estimators pooled over every position
(:mod:`treefarm.optimizers.tpe.pooled`). A space without joins, where every
candidate visits every address, takes the same draws in walk order and the
same winner, scored as arrays and built by a single walk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ...space import Config, Int, Join, Real, Space, addresses, analyze, walk
from ...space.config import Decision, Scalar
from .constraints import constrained_scores
from .parzen import Draws, Fitted, Parzen
from .split import Columns, Tied, Weights

__all__ = ["ColumnPair", "FitKey", "Proposal", "common_numeric", "flat_addresses", "numeric_addresses"]

#: An address (or a pooled node, ``"@<id>"``) and the options a join allows there.
FitKey = tuple[str, tuple[int, ...]]


class ColumnPair(NamedTuple):
    """The columns of one split's good trials and of its bad ones (the objective's
    bad include the failed and the pending trials; a constraint's are its worse)."""

    good: Columns
    bad: Columns


@dataclass(frozen=True)
class Proposal:
    """Everything one proposal draws from; calling it proposes (see the module docstring).

    ``objective`` holds the good and bad columns, ``ranked`` the good values' rank
    weights per address (none: equal), ``tied`` a recursive space's pooled columns,
    ``constraints`` each constraint's columns and ``gammas`` every term's good share
    (the objective's first). With ``joint`` the always-active numbers are drawn
    together first, from the multivariate estimator. ``fits`` keeps the fitted
    estimators between calls from the same columns (a node's pooled ones once for
    all its addresses), so a redrawn proposal refits nothing."""

    root: Space
    parzen: Parzen
    objective: ColumnPair
    rng: np.random.Generator
    ranked: Weights
    tied: Tied | None
    constraints: Sequence[ColumnPair]
    gammas: Sequence[float]
    joint: bool
    fits: dict[FitKey, Fitted | None] = field(default_factory=dict)

    def __call__(self) -> Config:
        fixed: dict[str, Scalar] = {}
        if self.joint:
            common = common_numeric(self.root, self.objective.good, self.objective.bad)
            fixed = self.parzen.joint(common, self.objective.good, self.objective.bad, self.rng, self.ranked)
        flat = flat_addresses(self.root)
        if flat is not None:
            return self._flat(flat, fixed)
        return self._walked(fixed)

    def _walked(self, fixed: dict[str, Scalar]) -> Config:
        """The best of the candidates, each walked through the space."""
        pools: dict[FitKey, Draws] = {}
        configs: list[Config] = []
        scores = np.zeros((len(self.gammas), self.parzen.n_candidates))
        for j in range(self.parzen.n_candidates):

            def decide(address: str, node: Decision, allowed: tuple[int, ...], j: int = j) -> Scalar:
                if address in fixed:
                    return fixed[address]
                key = (address, allowed)
                if key not in pools:
                    pools[key] = self._draws_at(address, node, allowed)
                scores[:, j] += pools[key].log_ratios[:, j]
                return pools[key].values[j]

            configs.append(walk(self.root, decide)[0])
        return configs[int(np.argmax(constrained_scores(scores, self.gammas)))]

    def _draws_at(self, address: str, node: Decision, allowed: tuple[int, ...]) -> Draws:
        """The draws at one address of a walk, from its own columns or, where no
        good trial reached it on a recursive space, from its node's pooled ones."""
        good, bad = self.objective.good.at(address), self.objective.bad.at(address)
        weights, key = self.ranked.get(address), (address, allowed)
        if not good and self.tied is not None:
            good, bad = self.tied.good.get(id(node), []), self.tied.bad.get(id(node), [])
            weights, key = None, key if self.constraints else (f"@{id(node)}", allowed)
        if key not in self.fits:
            self.fits[key] = self.parzen.fit(node, allowed, good, bad, self._sides(address), weights)
        return self.parzen.draws(node, allowed, self.fits[key], self.rng, 1 + len(self.constraints))

    def _flat(self, flat: list[tuple[str, Decision]], fixed: dict[str, Scalar]) -> Config:
        """The best of the candidates on a space without joins, scored as arrays, built by one walk."""
        columns: dict[str, list[Scalar]] = {}
        scores = np.zeros((len(self.gammas), self.parzen.n_candidates))
        for address, node in flat:
            if address in fixed:
                continue
            key: FitKey = (address, ())
            if key not in self.fits:
                good, bad = self.objective.good.at(address), self.objective.bad.at(address)
                self.fits[key] = self.parzen.fit(node, (), good, bad, self._sides(address), self.ranked.get(address))
            draws = self.parzen.draws(node, (), self.fits[key], self.rng, 1 + len(self.constraints))
            columns[address] = draws.values
            scores += draws.log_ratios
        j = int(np.argmax(constrained_scores(scores, self.gammas)))
        chosen = {a: column[j] for a, column in columns.items()} | fixed
        return walk(self.root, lambda address, node, allowed: chosen[address])[0]

    def _sides(self, address: str) -> list[tuple[list[Scalar], list[Scalar]]]:
        """Each constraint's good and worse values at ``address``."""
        return [(pair.good.at(address), pair.bad.at(address)) for pair in self.constraints]


def flat_addresses(root: Space) -> list[tuple[str, Decision]] | None:
    """(address, node) of every decision, in walk order, when the space has no
    join (so every configuration has them all); ``None`` otherwise."""
    if analyze(root).recursive:
        return None
    nodes = addresses(root)
    return None if any(isinstance(node, Join) for _, node in nodes) else nodes


def numeric_addresses(root: Space) -> list[tuple[str, Real | Int]]:
    """(address, node) of the numeric decisions of a non-recursive space (none for a recursive one)."""
    if analyze(root).recursive:
        return []
    return [(a, nd) for a, nd in addresses(root) if isinstance(nd, (Real, Int))]


def common_numeric(root: Space, good: Columns, bad: Columns) -> list[tuple[str, Real | Int]]:
    """(address, node) of the numeric decisions active in every trial behind ``good`` and ``bad``."""
    return [
        (a, node)
        for a, node in numeric_addresses(root)
        if len(good.at(a)) == good.size and len(bad.at(a)) == bad.size
    ]
