"""Asynchronous successive halving for a fidelity parameter: which evaluation comes next.

Each evaluation runs one configuration at one rung of a
:class:`~treefarm.Fidelity`. ASHA's rule (Li et al., "A System for Massively
Parallel Hyperparameter Tuning", 2020): a configuration among the best
``1 / eta`` of those evaluated at rung ``k`` is promoted to rung ``k + 1`` as soon
as it qualifies, the highest rung first; when none qualifies, a new
configuration starts at the lowest rung. No rung waits for the others, so no
worker idles on a slow one.

Low fidelities that mislead: when the values at a rung rank configurations
unlike the top rung (Kendall's tau below :data:`TRUSTED_TAU` over at least
:data:`MIN_PAIRS` configurations evaluated at both, pooled over the rungs), the
cheap rungs are not worth their cost: new configurations then start at the top
rung and no more promotions are made, so the study spends what is left as a
study without fidelities would.

Notation: a *point* is ``(config, fidelity, loss)`` of a finished evaluation
(``loss`` is None for a failed one); *pending* evaluations are ``(config, fidelity)``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import NamedTuple

__all__ = ["MIN_PAIRS", "TRUSTED_TAU", "Next", "Point", "next_evaluation", "rung_agreement"]

TRUSTED_TAU = 0.3
"""Below this rank correlation with the top rung, the lower rungs are not trusted."""
MIN_PAIRS = 5
"""Configurations evaluated at two consecutive rungs before their agreement is judged."""


class Point(NamedTuple):
    """A finished evaluation: its configuration, its fidelity and its loss (None: failed)."""

    config: Hashable
    fidelity: float
    loss: float | None


class Next(NamedTuple):
    """The next evaluation: its fidelity, and the configuration to promote (None: a new one)."""

    fidelity: float
    promote: Hashable | None


def _losses_at(points: Sequence[Point], rung: float) -> dict[Hashable, float]:
    """Each configuration's loss at ``rung`` (a failed evaluation counts as +inf)."""
    return {p.config: math.inf if p.loss is None else p.loss for p in points if p.fidelity == rung}


def rung_agreement(points: Sequence[Point], rungs: Sequence[float]) -> float | None:
    """Kendall's tau between each lower rung's losses and the top rung's, over the
    configurations evaluated at both, the rungs pooled by their numbers of
    configurations; None with fewer than :data:`MIN_PAIRS` configurations in all.
    Each rung is judged against the top, not the rung above: cheap rungs that agree
    with each other and not with the full evaluation mislead all the same."""
    from scipy.stats import kendalltau

    taus, weights = [], []
    above = _losses_at(points, rungs[-1])
    for low in rungs[:-1]:
        below = _losses_at(points, low)
        both = [(below[c], above[c]) for c in below if c in above and math.isfinite(below[c]) and math.isfinite(above[c])]
        if len(both) >= 2:
            tau = kendalltau(*zip(*both)).statistic
            if math.isfinite(tau):
                taus.append(tau)
                weights.append(len(both))
    if sum(weights) < MIN_PAIRS:
        return None
    return float(sum(t * w for t, w in zip(taus, weights)) / sum(weights))


def next_evaluation(
    points: Sequence[Point], pending: Sequence[tuple[Hashable, float]], rungs: Sequence[float], eta: int
) -> Next:
    """ASHA's next evaluation (see the module docstring): a promotion from the highest
    rung that has one due, else a new configuration at the lowest rung, or at the top
    one when the lower rungs mislead."""
    agreement = rung_agreement(points, rungs)
    if agreement is not None and agreement < TRUSTED_TAU:
        return Next(rungs[-1], None)
    started = {(p.config, p.fidelity) for p in points} | set(pending)
    for k in range(len(rungs) - 2, -1, -1):
        losses = _losses_at(points, rungs[k])
        ranked = sorted((loss, i, c) for i, (c, loss) in enumerate(losses.items()) if math.isfinite(loss))
        for _, _, config in ranked[: len(losses) // eta]:
            if (config, rungs[k + 1]) not in started:
                return Next(rungs[k + 1], config)
    return Next(rungs[0], None)
