"""Constraints in TPE: one density ratio per constraint (c-TPE).

Watanabe & Hutter (2023), "c-TPE: Tree-structured Parzen Estimator with
Inequality Constraints for Expensive Hyperparameter Optimization" (IJCAI):
for constraint ``i`` the completed trials split into those that satisfy it
(``c_i <= 0``) and those that do not, each side a Parzen density
``l_i(x)``, ``g_i(x)``; when fewer than the objective's good-set size
satisfy it, the split moves to that many lowest ``c_i`` (the paper's
quantile rule, so ``l_i`` always has samples). With ``gamma_i`` the share
of trials on the good side and ``r_i = log l_i - log g_i``, the candidate
maximizing

    sum_i -log(gamma_i + (1 - gamma_i) exp(-r_i(x)))

over the objective (``i = 0``, its own split) and every constraint wins:
the product of the expected improvement and the probabilities of
satisfying each constraint, as each Parzen ratio estimates them. A
constraint every trial satisfies has ``gamma_i = 1`` and no say. Without
constraints the objective's term alone is monotone in ``r_0``, so the
winner is the plain TPE's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ...space import Config
from ..base import Observation

__all__ = ["ConstraintSplit", "constrained_scores", "constraint_splits"]


@dataclass(frozen=True)
class ConstraintSplit:
    """One constraint's split: the share ``gamma`` of trials on its good side,
    its good trials' configurations and its worse ones', each in trial order."""

    gamma: float
    good: list[Config]
    worse: list[Config]


def constraint_splits(complete: Sequence[Observation], n_below: Callable[[int], int]) -> list[ConstraintSplit]:
    """Per constraint the completed trials carry, its split (``gamma_i``, good, worse),
    good being the trials satisfying it, or the ``n_below(n)`` lowest when
    fewer do; constraints every trial satisfies are left out. A missing or
    non-finite constraint value counts as the largest."""
    n = len(complete)
    width = max((len(o.constraints) for o in complete), default=0)
    out: list[ConstraintSplit] = []
    for i in range(width):
        values = np.array(
            [
                o.constraints[i] if i < len(o.constraints) and math.isfinite(o.constraints[i]) else math.inf
                for o in complete
            ]
        )
        order = np.argsort(values, kind="stable")
        k = max(int(np.sum(values <= 0)), n_below(n))
        if k >= n:
            continue
        chosen = np.zeros(n, dtype=bool)
        chosen[order[:k]] = True
        out.append(
            ConstraintSplit(
                gamma=k / n,
                good=[o.config for o, c in zip(complete, chosen) if c],
                worse=[o.config for o, c in zip(complete, chosen) if not c],
            )
        )
    return out


def constrained_scores(log_ratios: np.ndarray, gammas: Sequence[float]) -> np.ndarray:
    """The c-TPE score of each candidate (a column of ``log_ratios``, one row per
    term: the objective's, then each constraint's), ``gammas`` the terms' good
    shares; the objective's row alone when there is no constraint."""
    if len(gammas) == 1:
        return log_ratios[0]
    g = np.asarray(gammas, dtype=float)[:, None]
    return -np.logaddexp(np.log(g), np.log1p(-g) - log_ratios).sum(axis=0)
