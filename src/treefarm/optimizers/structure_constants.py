"""Constants fitted inside a structure: a (1+1)-ES on one structure's numbers.

A configuration of a grammar is a *structure* (its join and choice
decisions: which expression) and the numbers under it (the ``Real`` and
``Int`` leaves: its constants). An operation applied to continuous spaces
makes a structure a function of its constants, so once a structure is
promising, its constants are worth a local search of their own.

The search is a (1+1) evolution strategy (Rechenberg, 1973): the parent is
the structure's best configuration, the child moves every number of it by a
Gaussian step of standard deviation ``sigma`` on its unit scale (log scale
for log parameters, reflected at the bounds). ``sigma`` follows the 1/5th
success rule in the form of Kern et al. (2004), "Learning probability
distributions in continuous evolutionary algorithms": starting at
``sigma0``, each *local* evaluation of the structure, in trial order, that
improves on the structure's best so far multiplies ``sigma`` by
``exp(1/3)``, every other local one by ``exp(-1/12)``, so ``sigma`` is
stationary at a success rate of 1/5: it widens while steps keep paying and
narrows around an optimum. An evaluation is local when no number of it lies
farther than ``LOCAL * sigma`` from the best's on the unit scale: the other
evaluations of the structure (a mutation's wider step, a fresh draw that
happened to pick it) say nothing about the step size and are left out of
the rule, else their failures would shrink ``sigma`` long before the
constants are found. The rule is replayed over the history, so the step is
a pure function of it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..encoding import numeric_unit
from ..space import Config, Int, Real, Space, trace, walk
from ..space.config import Decision, Scalar
from .variation import step_decision

__all__ = [
    "LOCAL",
    "SIGMA_MAX",
    "SIGMA_MIN",
    "has_numbers",
    "numbers",
    "step_numbers",
    "step_size",
    "structure",
]

#: The factor of ``sigma`` after a local improvement, and after any other local evaluation.
GROW, SHRINK = math.exp(1 / 3), math.exp(-1 / 12)
#: Bounds of ``sigma`` on the unit scale: no wider than the range, no finer than rounding noise.
SIGMA_MIN, SIGMA_MAX = 1e-6, 1.0
#: An evaluation within this many ``sigma`` of the best (in every number) counts for the rule.
LOCAL = 3.0


def structure(root: Space, config: Config) -> frozenset[tuple[str, Scalar]]:
    """``config`` without its numeric decisions: the structure it selects."""
    return frozenset((a, config[a]) for a, node in trace(root, config) if not isinstance(node, (Real, Int)))


def has_numbers(root: Space, config: Config) -> bool:
    """Whether ``config`` has a numeric decision (a constant to fit)."""
    return any(isinstance(node, (Real, Int)) for _, node in trace(root, config))


def numbers(root: Space, config: Config) -> np.ndarray:
    """The numbers of ``config`` on their unit scales, in walk order."""
    units = []
    for a, node in trace(root, config):
        if isinstance(node, (Real, Int)):
            value = config[a]
            assert isinstance(value, (int, float))
            units.append(numeric_unit(node, float(value)))
    return np.array(units)


def step_size(points: np.ndarray, losses: Sequence[float], sigma0: float) -> float:
    """``sigma`` after the 1/5th rule replayed over one structure's evaluations in trial order.

    ``points[i]`` holds the numbers of evaluation ``i`` on their unit scales
    and ``losses[i]`` its loss. The first evaluation is the best so far; each
    later one within ``LOCAL * sigma`` of the best so far in every number
    grows ``sigma`` by ``GROW`` if its loss is lower, else shrinks it by
    ``SHRINK`` (clipped to ``[SIGMA_MIN, SIGMA_MAX]``); a lower loss makes
    it the best, local or not.
    """
    points = np.asarray(points, dtype=float)
    sigma = float(np.clip(sigma0, SIGMA_MIN, SIGMA_MAX))
    best = 0
    for i in range(1, len(losses)):
        better = losses[i] < losses[best]
        if np.all(np.abs(points[i] - points[best]) <= LOCAL * sigma):
            sigma = float(np.clip(sigma * (GROW if better else SHRINK), SIGMA_MIN, SIGMA_MAX))
        if better:
            best = i
    return sigma


def step_numbers(root: Space, config: Config, rng: np.random.Generator, sigma: float) -> Config:
    """``config`` with every number moved by a Gaussian step of ``sigma`` on its unit scale."""

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        old = config[address]
        if isinstance(node, (Real, Int)):
            return step_decision(node, old, allowed, rng, sigma)
        return old

    return walk(root, decide)[0]
