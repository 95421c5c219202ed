"""Asynchronous successive halving for a fidelity parameter: which evaluation comes next.

Each evaluation runs one configuration at one rung of a
:class:`~treefarm.Fidelity`. ASHA's rule (Li et al., "A System for Massively
Parallel Hyperparameter Tuning", 2020): a configuration among the best
``1 / eta`` of those evaluated at rung ``k`` is promoted to rung ``k + 1`` as soon
as it qualifies, the highest rung first; when none qualifies, a new
configuration starts at the lowest rung. No rung waits for the others, so no
worker idles on a slow one.

Low fidelities that mislead: the lower rungs are trusted only while the
configurations evaluated at the top rung show, beyond the noise of so few, that
they rank like the top. The statistic is Kendall's tau between each lower
rung's losses and the top rung's over the configurations evaluated at both,
pooled over the rungs (:func:`rung_agreement`). With two configurations at the
top it must be at least :data:`TRUSTED_TAU` (the definition of misleading low
fidelities); from three on, at least that plus its standard error, the standard
deviation of Kendall's tau between ``n`` independent rankings,
``sqrt(2 (2n + 5) / (9 n (n - 1)))`` (Kendall, "Rank Correlation Methods",
1948; 0.64 for three, 0.41 for five). Three configurations that agree by
chance therefore do not keep a study on rungs that mislead, while rungs that
rank the configurations at the top as the top does keep their trust (a tau
of 1 over three: 1 - 0.64 >= 0.3). Once the rungs are not trusted, new
configurations start at the top rung and no more promotions are made, so the
study spends what is left as a study without fidelities would, its model
started from the configurations the rungs chose.

Notation: a *point* is ``(config, fidelity, loss)`` of a finished evaluation
(``loss`` is None for a failed one); *pending* evaluations are ``(config, fidelity)``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import NamedTuple

__all__ = ["MIN_PAIRS", "TRUSTED_TAU", "Next", "Point", "misleading", "next_evaluation", "rung_agreement", "tau_error"]

TRUSTED_TAU = 0.3
"""Below this rank correlation with the top rung, the lower rungs are not trusted."""
MIN_PAIRS = 5
"""Configurations evaluated at a lower rung and the top, summed over the rungs, before the rungs are judged."""


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


def _taus(points: Sequence[Point], rungs: Sequence[float]) -> tuple[list[float], list[int], int]:
    """Each lower rung's Kendall's tau with the top, its number of configurations at
    both, and the number of configurations at the top with a loss at some lower rung."""
    from scipy.stats import kendalltau

    taus, weights, paired = [], [], set()
    above = _losses_at(points, rungs[-1])
    for low in rungs[:-1]:
        below = _losses_at(points, low)
        both = [c for c in below if c in above and math.isfinite(below[c]) and math.isfinite(above[c])]
        if len(both) >= 2:
            tau = kendalltau([below[c] for c in both], [above[c] for c in both]).statistic
            if math.isfinite(tau):
                taus.append(float(tau))
                weights.append(len(both))
                paired.update(both)
    return taus, weights, len(paired)


def rung_agreement(points: Sequence[Point], rungs: Sequence[float]) -> float | None:
    """Kendall's tau between each lower rung's losses and the top rung's, over the
    configurations evaluated at both, the rungs pooled by their numbers of
    configurations; None with fewer than :data:`MIN_PAIRS` configurations in all.
    Each rung is judged against the top, not the rung above: cheap rungs that agree
    with each other and not with the full evaluation mislead all the same."""
    taus, weights, _ = _taus(points, rungs)
    if sum(weights) < MIN_PAIRS:
        return None
    return sum(t * w for t, w in zip(taus, weights)) / sum(weights)


def tau_error(n: int) -> float:
    """The standard deviation of Kendall's tau between two independent rankings of
    ``n`` >= 2 items, ``sqrt(2 (2n + 5) / (9 n (n - 1)))``."""
    return math.sqrt(2 * (2 * n + 5) / (9 * n * (n - 1)))


def misleading(points: Sequence[Point], rungs: Sequence[float]) -> bool:
    """Whether the lower rungs are no longer trusted: their agreement with the top
    (:func:`rung_agreement`), less :func:`tau_error` of the configurations at the
    top once there are three, is below :data:`TRUSTED_TAU` (see the module docstring)."""
    taus, weights, n = _taus(points, rungs)
    if sum(weights) < MIN_PAIRS:
        return False
    agreement = sum(t * w for t, w in zip(taus, weights)) / sum(weights)
    return agreement - (tau_error(n) if n >= 3 else 0.0) < TRUSTED_TAU


def next_evaluation(
    points: Sequence[Point], pending: Sequence[tuple[Hashable, float]], rungs: Sequence[float], eta: int
) -> Next:
    """ASHA's next evaluation (see the module docstring): a promotion from the highest
    rung that has one due, else a new configuration at the lowest rung, or at the top
    one when the lower rungs are not trusted."""
    if misleading(points, rungs):
        return Next(rungs[-1], None)
    started = {(p.config, p.fidelity) for p in points} | set(pending)
    for k in range(len(rungs) - 2, -1, -1):
        losses = _losses_at(points, rungs[k])
        ranked = sorted((loss, i, c) for i, (c, loss) in enumerate(losses.items()) if math.isfinite(loss))
        for _, _, config in ranked[: len(losses) // eta]:
            if (config, rungs[k + 1]) not in started:
                return Next(rungs[k + 1], config)
    return Next(rungs[0], None)
