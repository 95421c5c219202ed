"""Asynchronous successive halving for a fidelity parameter: which evaluation comes next.

Each evaluation runs one configuration at one rung of a
:class:`~treefarm.Fidelity`. ASHA's rule (Li et al., "A System for Massively
Parallel Hyperparameter Tuning", 2020): a configuration among the best
``1 / eta`` of those evaluated at rung ``k`` is promoted to rung ``k + 1`` as soon
as it qualifies, the highest rung first; when none qualifies, a new
configuration starts at the lowest rung. No rung waits for the others, so no
worker idles on a slow one.

Low fidelities that mislead are looked for twice. The *checks*: the first
``checks`` configurations evaluated at the lowest rung (the optimizer's
space-filling start) are each evaluated at the top rung too, before anything
else, and Kendall's tau between the two rungs over them (:func:`check_agreement`)
estimates the rank agreement of the lowest rung with the top over the space,
unbiased by the promotions. The promoted configurations: Kendall's tau between
each lower rung and the top over the other configurations evaluated at both,
pooled over the rungs (:func:`rung_agreement`), which judges the rungs where
the search has led. The configurations that climb the rungs are the ones the
cheap values rank best, a restricted range in which even informative rungs
rank poorly, so the two are kept apart: pooled, the checks' pairs would hide
rungs that mislead among the promoted configurations, and the promoted ones'
would hide rungs that mislead over the space. Either agreement below
:data:`TRUSTED_TAU` (the definition of misleading low fidelities) makes new
configurations start at the top rung and stops the promotions, so the study
spends what is left as a study without fidelities would.

Notation: a *point* is ``(config, fidelity, loss)`` of a finished evaluation
(``loss`` is None for a failed one); *pending* evaluations are ``(config, fidelity)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import NamedTuple

__all__ = [
    "MIN_PAIRS",
    "TRUSTED_TAU",
    "Chooser",
    "Next",
    "Point",
    "agreements",
    "all_at_top",
    "check_agreement",
    "checked",
    "misleading",
    "next_evaluation",
    "rung_agreement",
    "untrusted",
]

TRUSTED_TAU = 0.3
"""Below this rank correlation with the top rung, the lower rungs are not trusted."""
MIN_PAIRS = 5
"""Configurations evaluated at a lower rung and the top, summed over the rungs, before the promoted ones are judged."""


class Point(NamedTuple):
    """A finished evaluation: its configuration, its fidelity and its loss (None: failed)."""

    config: Hashable
    fidelity: float
    loss: float | None


class Next(NamedTuple):
    """The next evaluation: its fidelity, and the configuration to promote (None: a new one)."""

    fidelity: float
    promote: Hashable | None


Chooser = Callable[[Sequence[Hashable]], int | None]
"""Picks the configuration to continue among those paused at one rung (ASHA's own pick
first): its index, or None to leave ASHA's pick."""


def _losses_at(points: Sequence[Point], rung: float) -> dict[Hashable, float]:
    """Each configuration's loss at ``rung`` (a failed evaluation counts as +inf)."""
    return {p.config: math.inf if p.loss is None else p.loss for p in points if p.fidelity == rung}


def checked(points: Sequence[Point], rungs: Sequence[float], checks: int) -> list[Hashable]:
    """The check configurations: the first ``checks`` completed at the lowest rung, in
    order (a failed evaluation has nothing to rank, so it checks nothing)."""
    finite = (p for p in points if p.fidelity == rungs[0] and p.loss is not None and math.isfinite(p.loss))
    return list(dict.fromkeys(p.config for p in finite))[:checks]


def check_agreement(points: Sequence[Point], rungs: Sequence[float], checks: int) -> float | None:
    """Kendall's tau between the lowest rung's losses and the top rung's over the
    check configurations (:func:`checked`); None until all ``checks`` have finished
    at the top, or when fewer than three have a finite loss at both rungs."""
    from scipy.stats import kendalltau

    configs = checked(points, rungs, checks)
    low, top = _losses_at(points, rungs[0]), _losses_at(points, rungs[-1])
    if len(configs) < checks or any(c not in top for c in configs):
        return None
    both = [(low[c], top[c]) for c in configs if math.isfinite(low[c]) and math.isfinite(top[c])]
    if len(both) < 3:
        return None
    tau = kendalltau(*zip(*both)).statistic
    return float(tau) if math.isfinite(tau) else 0.0


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


def agreements(points: Sequence[Point], rungs: Sequence[float], checks: int) -> tuple[float | None, float | None]:
    """The checks' agreement (:func:`check_agreement`) and the promoted configurations'
    (:func:`rung_agreement` over the configurations that are no checks), each None
    until it can be judged."""
    first = set(checked(points, rungs, checks))
    promoted = [p for p in points if p.config not in first]
    return check_agreement(points, rungs, checks), rung_agreement(promoted, rungs)


def misleading(points: Sequence[Point], rungs: Sequence[float], checks: int) -> bool:
    """Whether the lower rungs mislead: the checks' agreement, or the promoted
    configurations', below :data:`TRUSTED_TAU` (see the module docstring)."""
    return untrusted(agreements(points, rungs, checks))


def untrusted(taus: Sequence[float | None]) -> bool:
    """Whether any of the agreements ``taus`` (:func:`agreements`) is below :data:`TRUSTED_TAU`."""
    return any(tau is not None and tau < TRUSTED_TAU for tau in taus)


def _ranked(points: Sequence[Point], rung: float) -> tuple[list[Hashable], int]:
    """The configurations evaluated at ``rung`` with a finite loss, best first (ties in
    the order they were evaluated), and how many were evaluated there (failed ones too:
    they count in the rung's share of promotions)."""
    losses = _losses_at(points, rung)
    ranked = sorted((loss, i, c) for i, (c, loss) in enumerate(losses.items()) if math.isfinite(loss))
    return [c for _, _, c in ranked], len(losses)


def _climb(points: Sequence[Point], rungs: Sequence[float], highest: dict[Hashable, float], *, to_top: bool) -> Next | None:
    """In an exhausted space, the best configuration not yet at the top, from the highest
    rung holding one, to the rung above (to the top when the lower rungs mislead)."""
    for k in range(len(rungs) - 2, -1, -1):
        waiting = next((c for c in _ranked(points, rungs[k])[0] if highest[c] == rungs[k]), None)
        if waiting is not None:
            return Next(rungs[-1] if to_top else rungs[k + 1], waiting)
    return None


def _chosen(
    choose: Chooser,
    due: Hashable | None,
    ranked: Sequence[Hashable],
    share: int,
    highest: dict[Hashable, float],
    rungs: tuple[float, float],
    started: set[tuple[Hashable, float]],
) -> tuple[bool, Hashable | None]:
    """``choose``'s decision at ``rung``: whether it made one, and the configuration to
    continue (None: none, the rung's share of promotions being spent). It is offered the
    configurations paused at the rung (ASHA's ``due`` first) while the rung has promoted
    fewer than its ``share`` to the rung above (a check, gone to the top, is no promotion),
    or ASHA has one ``due``; its pick counts only within the share."""
    rung, above = rungs
    paused = [c for c in ranked if highest[c] == rung]
    promoted = sum((c, above) in started for c in ranked)
    if not paused or (due is None and promoted >= share):
        return False, None
    offered = [due, *(c for c in paused if c != due)] if due is not None else paused
    index = choose(offered)
    if index is None:
        return False, None
    return True, offered[index] if promoted < share else None


def next_evaluation(
    points: Sequence[Point],
    pending: Sequence[tuple[Hashable, float]],
    rungs: Sequence[float],
    eta: int,
    checks: int = 0,
    exhausted: bool = False,
    *,
    misled: bool | None = None,
    choose: Chooser | None = None,
) -> Next:
    """ASHA's next evaluation (see the module docstring): a check's top evaluation
    first, then a promotion from the highest rung that has one due, else a new
    configuration at the lowest rung, or at the top one when the lower rungs mislead.
    In a finite space every configuration of which is ``exhausted`` (evaluated or
    pending at some rung), there is no new one to start: the best configuration not
    yet at the top climbs instead; once every one is at the top (:func:`all_at_top`), the
    next evaluation is planned at the top (the study then evaluates one again, as a
    finished study of a finite space repeats: at the top, where a repeat measures the
    value that counts, not at a lower rung whose value is known and never counts); while
    some are still pending below it, a repeat at the lowest rung. ``misled`` is
    :func:`misleading`'s verdict on these points when the caller has it already
    (None: judged here). A check whose configuration is pending at a lower rung waits
    for it, then continues from it: with several workers the first ``checks`` completed
    at the lowest rung change as earlier trials finish, so a configuration may have been
    promoted before it became a check.

    ``choose`` lets a model pick which configuration continues (as MOBSTER and DyHPO
    let the model pick the trial to continue: Tiao, Klein, Seeger, Archambeau &
    Wistuba, "Model-based Asynchronous Hyperparameter and Neural Architecture
    Search", 2020; Wistuba, Kadra & Grabocka, "Supervising the Multi-Fidelity Race of
    Hyperparameter Configurations", 2022): it is offered every configuration paused
    at a rung (finished there, not gone further), ASHA's pick first, and its pick is
    promoted while the rung has promoted fewer than ASHA's share (``1 / eta`` of the
    configurations evaluated there), so that the rungs are paid as ASHA pays them;
    where it gives no pick (None), ASHA's rule holds."""
    started = {(p.config, p.fidelity) for p in points} | set(pending)
    highest = _highest(started)
    if misled is None:
        misled = misleading(points, rungs, checks)
    if misled:
        climb = _climb(points, rungs, highest, to_top=True) if exhausted else None
        return climb or Next(rungs[-1], None)
    climbing = {config for config, fidelity in pending if fidelity < rungs[-1]}
    for config in checked(points, rungs, checks):
        if (config, rungs[-1]) not in started and config not in climbing:
            return Next(rungs[-1], config)
    for k in range(len(rungs) - 2, -1, -1):
        ranked, evaluated = _ranked(points, rungs[k])
        due = next((c for c in ranked[: evaluated // eta] if highest[c] < rungs[k + 1]), None)
        decided, config = False, None
        if choose is not None:
            share, pair = evaluated // eta, (rungs[k], rungs[k + 1])
            decided, config = _chosen(choose, due, ranked, share, highest, pair, started)
        if decided:
            if config is not None:
                return Next(rungs[k + 1], config)
        elif due is not None:
            return Next(rungs[k + 1], due)
    climb = _climb(points, rungs, highest, to_top=False) if exhausted else None
    if climb is None and exhausted and _at_top(highest, rungs):
        return Next(rungs[-1], None)
    return climb or Next(rungs[0], None)


def all_at_top(points: Sequence[Point], pending: Sequence[tuple[Hashable, float]], rungs: Sequence[float]) -> bool:
    """Whether every configuration started (evaluated or pending) has reached the top rung: in a
    finite space all of whose configurations are started, nothing is left but repeats."""
    return _at_top(_highest({(p.config, p.fidelity) for p in points} | set(pending)), rungs)


def _highest(started: Iterable[tuple[Hashable, float]]) -> dict[Hashable, float]:
    """Each started configuration's highest rung (evaluated or pending there)."""
    highest: dict[Hashable, float] = {}
    for config, fidelity in started:
        highest[config] = max(fidelity, highest.get(config, fidelity))
    return highest


def _at_top(highest: dict[Hashable, float], rungs: Sequence[float]) -> bool:
    return bool(highest) and min(highest.values()) >= rungs[-1]
