"""NSGA-II, for long runs of cheap evaluations with several objectives.

Deb, Pratap, Agarwal & Meyarivan (2002), "A fast and elitist multiobjective
genetic algorithm: NSGA-II". Stateless, as every treefarm optimizer: the
parents are chosen afresh from the whole history at each call, so a resumed
study or a second worker proposes what an uninterrupted one would.

- **Survival**: the ``population_size`` best completed trials by NSGA-II's
  order (the elitist (mu + lambda) survival, applied to the whole archive):
  feasible before infeasible (Deb 2000's constrained domination, least total
  violation first), then by non-domination rank, then by crowding distance
  within a rank, larger first.
- **Selection**: binary tournaments on that order.
- **Variation**, on any space by a walk through it that reads both parents:
  numbers cross by simulated binary crossover (SBX, ``eta_crossover``) on
  the unit scale (log for log-scaled ones) with probability
  ``crossover_prob`` per child and one half per number, and mutate by
  polynomial mutation (``eta_mutation``) with probability 1/d for d
  decisions; choices and join options come from either parent (uniform
  crossover) and mutate to a prior draw with the same probability. A
  decision only one parent has is taken from it; one neither has is drawn
  from the prior, so conditional and recursive spaces cross by position.
- The first ``population_size`` trials are draws from the prior.

One objective works too (a steady-state genetic algorithm); its constraints
are honoured the same way.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..encoding.unit import numeric_unit, numeric_value
from ..pareto import crowding_distance, nondomination_ranks, violations
from ..space import Choice, Config, Int, Join, Real, Space, convert, draw_decision, sample, walk
from ..space.config import Decision, Scalar
from ..validation import check_int, check_nonnegative, check_range
from .base import History, Optimizer
from .unseen import unseen

__all__ = ["NSGA2", "survival_order"]


def survival_order(Y: np.ndarray, C: np.ndarray | None = None) -> np.ndarray:
    """Row indices of losses ``Y`` (shape (n, m), minimized) in NSGA-II's order:
    by total constraint violation, then non-domination rank, then crowding
    distance within the rank (larger first); ties keep row order."""
    n = len(Y)
    v = np.zeros(n) if C is None else violations(C)
    ranks = np.zeros(n, dtype=int)
    crowd = np.zeros(n)
    feasible = np.flatnonzero(v == 0)
    if feasible.size:
        ranks[feasible] = nondomination_ranks(Y[feasible])
        for r in np.unique(ranks[feasible]):
            members = feasible[ranks[feasible] == r]
            crowd[members] = crowding_distance(Y[members])
    return np.lexsort((np.arange(n), -crowd, ranks, v))


def sbx_pair(u1: float, u2: float, eta: float, r: float) -> tuple[float, float]:
    """Simulated binary crossover of two unit-scale values with uniform draw ``r``
    (Deb & Agrawal 1995), the children clipped to [0, 1]."""
    beta = (2 * r) ** (1 / (eta + 1)) if r <= 0.5 else (1 / (2 * (1 - r))) ** (1 / (eta + 1))
    c1 = 0.5 * ((1 + beta) * u1 + (1 - beta) * u2)
    c2 = 0.5 * ((1 - beta) * u1 + (1 + beta) * u2)
    return min(max(c1, 0.0), 1.0), min(max(c2, 0.0), 1.0)


def polynomial_mutation(u: float, eta: float, r: float) -> float:
    """Deb's polynomial mutation of a unit-scale value with uniform draw ``r``,
    its perturbation scaled by the distance to the bounds."""
    if r < 0.5:
        delta = (2 * r + (1 - 2 * r) * (1 - u) ** (eta + 1)) ** (1 / (eta + 1)) - 1
    else:
        delta = 1 - (2 * (1 - r) + 2 * (r - 0.5) * u ** (eta + 1)) ** (1 / (eta + 1))
    return min(max(u + delta, 0.0), 1.0)


class NSGA2(Optimizer):
    """NSGA-II over flat, conditional and recursive spaces (see the module docstring).

    Parameters
    ----------
    population_size:
        How many of the best completed trials are parents, and how many prior
        draws start the run (Deb et al. use 100; Optuna's ``NSGAIISampler`` 50):
        larger for a front of many objectives or a long budget, smaller for a
        short one.
    crossover_prob:
        The probability that a child is a crossover of two parents rather than a
        mutated copy of one (0.9, Deb et al.).
    eta_crossover, eta_mutation:
        The distribution indices of SBX and polynomial mutation (20 each: children
        close to their parents); lower ones spread children wider, for a rugged
        front.
    """

    searches_recursive = True

    def __init__(
        self,
        population_size: int = 50,
        crossover_prob: float = 0.9,
        eta_crossover: float = 20.0,
        eta_mutation: float = 20.0,
    ) -> None:
        check_int("population_size", population_size, 2)
        check_range("crossover_prob", crossover_prob, 0.0, 1.0)
        check_nonnegative("eta_crossover", eta_crossover, finite=True)
        check_nonnegative("eta_mutation", eta_mutation, finite=True)
        self.population_size = population_size
        self.crossover_prob = float(crossover_prob)
        self.eta_crossover = float(eta_crossover)
        self.eta_mutation = float(eta_mutation)

    def suggest(self, space: Space, history: History, n: int, rng: np.random.Generator) -> list[Config]:
        root = convert(space)
        seen = list(history.seen())
        out: list[Config] = []
        complete = [i for i, o in enumerate(history.complete) if all(map(math.isfinite, o.losses or (o.loss,)))]
        if len(complete) < self.population_size:
            for _ in range(n):
                out.append(unseen(root, functools.partial(sample, root, rng), [*seen, *out], rng))
            return out
        Y = history.loss_matrix()[complete]
        C = history.constraint_matrix()
        order = survival_order(Y, None if C is None else C[complete])[: self.population_size]
        parents = [history.complete[complete[i]].config for i in order]
        for _ in range(n):
            propose = functools.partial(self._child, root, parents, rng)
            out.append(unseen(root, propose, [*seen, *out], rng))
        return out

    def _tournament(self, size: int, rng: np.random.Generator) -> int:
        a, b = rng.integers(size, size=2)
        return int(min(a, b))  # parents are listed best first

    def _child(self, root: Space, parents: list[Config], rng: np.random.Generator) -> Config:
        first = parents[self._tournament(len(parents), rng)]
        second = parents[self._tournament(len(parents), rng)]
        cross = bool(rng.random() < self.crossover_prob)
        rate = 1.0 / max(len(first), 1)

        def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
            mine, theirs = first.get(address), second.get(address)
            valid: list[Scalar]
            if isinstance(node, Join):
                valid = [v for v in (mine, theirs) if v in node.labels and node.labels.index(v) in allowed]
            elif isinstance(node, Choice):
                valid = [v for v in (mine, theirs) if v is not None and v in node.decisions()]
            else:
                valid = [v for v in (mine, theirs) if isinstance(v, (int, float)) and not isinstance(v, bool)]
            if not valid:
                return draw_decision(node, allowed, rng)
            if isinstance(node, (Real, Int)):
                return self._number(node, [float(v) for v in valid if isinstance(v, (int, float))], cross, rate, rng)
            value = valid[int(rng.integers(len(valid)))] if cross else valid[0]
            return draw_decision(node, allowed, rng) if rng.random() < rate else value

        return walk(root, decide)[0]

    def _number(
        self, node: Real | Int, values: list[float], cross: bool, rate: float, rng: np.random.Generator
    ) -> float | int:
        units = [numeric_unit(node, v) if _spread(node) else 0.0 for v in values]
        u = units[0]
        if cross and len(units) == 2 and rng.random() < 0.5 and abs(units[0] - units[1]) > 1e-14:
            pair = sbx_pair(units[0], units[1], self.eta_crossover, float(rng.random()))
            u = pair[int(rng.integers(2))]
        if rng.random() < rate:
            u = polynomial_mutation(u, self.eta_mutation, float(rng.random()))
        if not _spread(node):
            return node.low
        return numeric_value(node, u)


def _spread(node: Real | Int) -> bool:
    """Whether the node has more than one value (a unit scale to move on)."""
    return bool(node.high > node.low)
