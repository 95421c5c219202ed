"""Search hints: regions a person believes good (or bad), and how suggestions honour them.

A hint is a partial configuration with a *credibility* c in [0, 1] (how far
to trust it), a *weight* +1 (good region) or -1 (bad region) and a *spread*
(the width of its window). Read as a Parzen estimator reads it, a good hint is a
sample from the distribution of the optimum's location: a Parzen window
around it. Its window at a configuration x is the kernel

    k_h(x) = prod over hinted numeric addresses a  exp(-(u_a(x) - u_a(h))^2 / (2 s^2))
           * prod over hinted choices/joins a      (1 if x_a == h_a else s)

with u the unit-cube coordinate (log-scaled where the parameter is) and s the
spread; an address x does not reach counts as outside the window (factor s).
k_h is 1 at the hint and 0 < k_h <= 1 elsewhere.

Every optimizer's suggestion is passed through :func:`apply_hints`, a pure
function of the history (hints included) and the trial's generator:

* a good hint at credibility 1 whose point no trial of the history holds
  yet (completed, failed or pending: :func:`hint_tried`) is tried as given:
  the suggestion takes the hint's decisions exactly, the rest of the
  optimizer's suggestion where it reaches them (:func:`hint_point`). A person
  who says "I am sure it is about here" sees that point evaluated next; its
  window follows by the draws below;
* with probability ``min(1, 2 c r) * n0 / (n0 + n)`` (n completed trials,
  n0 = ``EVIDENCE``) the suggestion is replaced by a draw from a good hint's
  window (hints chosen in proportion to their credibility): the hint's
  decisions perturbed by the spread, the rest from the prior. ``r`` is what
  the evidence says of the hint: with the window's weights w_i = k_h(x_i) of
  the last ``RECENT`` completed trials,

      r = (1 + sum_i w_i [loss_i <= median]) / (2 + sum_i w_i),

  1/2 before any evidence, towards 1 when the trials in the window are among
  the better half, towards 0 when they are not. So a misleading hint loses
  its say as soon as its region has been tried, a good one keeps it, and
  both fade as real evidence accumulates (the model's own proposals take
  over; the evaluated hint draws are real observations the model learns
  from, as TPE's l(x) and the GP's posterior see any trial).
* a suggestion inside a bad hint's window is drawn again with probability
  ``c * k_h(x)``, up to ``REDRAWS`` times.

A hint of credibility 0 changes nothing: no random number is even drawn for
it, so the suggestions are exactly those without it. The GP also weights its
acquisition by the hints' prior, πBO-style (Hvarfner et al., "πBO:
Augmenting Acquisition Functions with User Beliefs for Bayesian
Optimization", ICLR 2022): :func:`hint_log_prior` states that prior on a
configuration, :mod:`treefarm.optimizers.hints.pibo` computes it on the
GP's encoded points.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...encoding import numeric_unit, numeric_value
from ...space import Config, Int, Join, Real, Space, convert, walk
from ...space.config import Decision, Scalar
from ...space.sample import decision_at

__all__ = [
    "EVIDENCE",
    "FLOOR",
    "RECENT",
    "REDRAWS",
    "Hint",
    "apply_hints",
    "hint_draw",
    "hint_kernel",
    "hint_log_prior",
    "hint_point",
    "hint_reliability",
    "hint_tried",
    "hint_window",
    "window_draws",
]

EVIDENCE = 10
"""n0: after n0 completed trials a good hint's draws are half as likely as at the start."""
REDRAWS = 10
"""How many times a suggestion inside a bad hint's window may be drawn again."""
RECENT = 100
"""How many of the latest completed trials judge a hint's region."""
FLOOR = 1e-12
"""The smallest value of 1 - c w under a bad hint in the hints' prior (SMAC3's ``prior_floor``): log stays finite."""


@dataclass(frozen=True)
class Hint:
    """A region of the space, as an optimizer sees it (see the module docstring)."""

    config: Mapping[str, Scalar]
    credibility: float = 1.0
    weight: int = 1
    spread: float = 0.1
    hint_id: int | None = field(default=None, compare=False)


def _numeric(node: Decision) -> bool:
    return isinstance(node, (Real, Int))


def hint_point(space: Space, hint: Hint, config: Config, rng: np.random.Generator) -> Config:
    """The hint's own point: its decisions as given (a number outside its
    parameter's range clipped to it), every other decision the suggestion
    ``config``'s where ``config`` reaches it, else from the prior."""

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        if address in hint.config:
            value = hint.config[address]
            if _numeric(node):
                low, high = node.low, node.high  # type: ignore[union-attr]
                number = min(max(float(value), low), high)  # type: ignore[arg-type]
                return round(number) if isinstance(node, Int) else number
            if not isinstance(node, Join) or node.index_of(value) in allowed:
                return value
        if address in config and (not isinstance(node, Join) or node.index_of(config[address]) in allowed):
            return config[address]
        return decision_at(node, allowed, float(rng.random()))

    return walk(convert(space), decide)[0]


def hint_tried(space: Space, hint: Hint, tried: Sequence[Mapping[str, Scalar]]) -> bool:
    """Whether a configuration of ``tried`` holds every decision of the hint (its
    numbers within 1e-9 of their range). An address names one node of the space
    (its path), so a configuration is walked through the space only to learn
    the node of a hinted address not met before: the check runs at every
    suggestion over the whole history."""
    nodes: dict[str, Decision] = {}
    for config in tried:
        if any(address in config and address not in nodes for address in hint.config):
            nodes.update(_nodes_of(space, config))
        if all(_same(nodes.get(address), config.get(address), value) for address, value in hint.config.items()):
            return True
    return False


def _same(node: Decision | None, got: Scalar | None, value: Scalar) -> bool:
    if node is None or got is None:
        return False
    if _numeric(node):
        return abs(numeric_unit(node, float(got)) - numeric_unit(node, float(value))) <= 1e-9  # type: ignore[arg-type]
    return got == value


def hint_draw(space: Space, hint: Hint, rng: np.random.Generator) -> Config:
    """A configuration from the hint's window: hinted numbers moved by a normal of
    sd ``spread`` in the unit cube (clipped), hinted choices kept with probability
    1 - spread, everything else from the prior."""

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        if address not in hint.config:
            return decision_at(node, allowed, float(rng.random()))
        value = hint.config[address]
        if _numeric(node):
            u = numeric_unit(node, float(value)) + hint.spread * float(rng.standard_normal())  # type: ignore[arg-type]
            return numeric_value(node, min(max(u, 0.0), 1.0))  # type: ignore[arg-type]
        keep = rng.random() >= hint.spread
        if keep and (not isinstance(node, Join) or node.index_of(value) in allowed):
            return value
        return decision_at(node, allowed, float(rng.random()))

    return walk(convert(space), decide)[0]


def window_draws(space: Space, hints: Sequence[Hint], n: int, rng: np.random.Generator) -> list[Config]:
    """``n`` draws from the windows of the good hints with a positive
    credibility (:func:`hint_draw`, the hints taken in turn); none without one."""
    good = [h for h in hints if h.weight > 0 and h.credibility > 0]
    return [hint_draw(space, good[i % len(good)], rng) for i in range(n if good else 0)]


def hint_kernel(space: Space, hint: Hint, config: Mapping[str, Scalar]) -> float:
    """k_h(config) in (0, 1] (see the module docstring)."""
    nodes = _nodes_of(space, config)
    log_k = 0.0
    for address, value in hint.config.items():
        if address not in config or address not in nodes:
            log_k += math.log(hint.spread)
        elif _numeric(nodes[address]):
            node = nodes[address]
            d = numeric_unit(node, float(config[address])) - numeric_unit(node, float(value))  # type: ignore[arg-type]
            log_k -= d * d / (2.0 * hint.spread**2)
        elif config[address] != value:
            log_k += math.log(hint.spread)
    return math.exp(log_k)


def _nodes_of(space: Space, config: Mapping[str, Scalar]) -> dict[str, Decision]:
    nodes: dict[str, Decision] = {}

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        nodes[address] = node
        return config[address]

    walk(convert(space), decide)
    return nodes


def hint_window(space: Space, hint: Hint, config: Mapping[str, Scalar]) -> float:
    """w_h(config) in (0, 1], the hint's window on a floor: per hinted address
    ``s + (1 - s) exp(-d^2 / (2 s^2))`` for a number at unit distance d, 1 or s
    for a choice, s where ``config`` does not reach the address (the prior of
    :mod:`treefarm.optimizers.hints.pibo`, which computes it on encoded points)."""
    nodes = _nodes_of(space, config)
    w = 1.0
    for address, value in hint.config.items():
        if address not in config or address not in nodes:
            w *= hint.spread
        elif _numeric(nodes[address]):
            node = nodes[address]
            d = numeric_unit(node, float(config[address])) - numeric_unit(node, float(value))  # type: ignore[arg-type]
            w *= hint.spread + (1.0 - hint.spread) * math.exp(-d * d / (2.0 * hint.spread**2))
        elif config[address] != value:
            w *= hint.spread
    return w


def hint_log_prior(space: Space, hints: Sequence[Hint], config: Mapping[str, Scalar]) -> float:
    """log pi(config), the hints' belief about where the optimum is, up to a constant:

        log pi(x) = c_max log(sum_good c_h w_h(x) / sum_good c_h) + sum_bad log(max(1 - c_h w_h(x), FLOOR))

    with w_h :func:`hint_window` (0 everywhere when every credibility is 0). The
    GP adds ``beta / n`` times it to its log-acquisition (πBO,
    :mod:`treefarm.optimizers.hints.pibo`, which computes it on encoded points
    with the credibilities judged by the evidence, a good hint's squared)."""
    good = [h for h in hints if h.weight > 0 and h.credibility > 0]
    bad = [h for h in hints if h.weight < 0 and h.credibility > 0]
    log_pi = 0.0
    if good:
        c_max = max(h.credibility for h in good)
        mixture = sum(h.credibility * hint_window(space, h, config) for h in good) / sum(h.credibility for h in good)
        log_pi += c_max * math.log(mixture)
    for h in bad:
        log_pi += math.log(max(1.0 - h.credibility * hint_window(space, h, config), FLOOR))
    return log_pi


def hint_reliability(space: Space, hint: Hint, complete: Sequence[tuple[Config, float]]) -> float:
    """r, what the recent evidence says of a hint's region (see the module docstring)."""
    recent = complete[-RECENT:]
    if not recent:
        return 0.5
    median = float(np.median([loss for _, loss in recent]))
    weights = [hint_kernel(space, hint, config) for config, _ in recent]
    good = sum(w for w, (_, loss) in zip(weights, recent) if loss <= median)
    return (1.0 + good) / (2.0 + sum(weights))


def apply_hints(
    space: Space,
    hints: Sequence[Hint],
    config: Config,
    complete: Sequence[tuple[Config, float]],
    rng: np.random.Generator,
    redraw: Callable[[], Config],
    tried: Sequence[Config] = (),
) -> Config:
    """The suggestion ``config`` after the hints had their say (see the module docstring);
    ``complete`` holds the (configuration, loss) of the completed trials, oldest
    first; ``redraw`` gives another suggestion when a bad hint refuses one;
    ``tried`` every configuration of the history (completed, failed, pending)."""
    good = [h for h in hints if h.weight > 0 and h.credibility > 0]
    bad = [h for h in hints if h.weight < 0 and h.credibility > 0]
    sure = [h for h in good if h.credibility >= 1.0 and not hint_tried(space, h, tried)]
    if sure:
        config = hint_point(space, sure[0], config, rng)
    elif good:
        shares = np.array([min(1.0, 2.0 * h.credibility * hint_reliability(space, h, complete)) for h in good])
        if rng.random() < shares.max() * EVIDENCE / (EVIDENCE + len(complete)):
            chosen = good[int(rng.choice(len(good), p=shares / shares.sum()))]
            config = hint_draw(space, chosen, rng)
    for _ in range(REDRAWS if bad else 0):
        refuse = max(h.credibility * hint_kernel(space, h, config) for h in bad)
        if rng.random() >= refuse:
            break
        config = redraw()
    return config
