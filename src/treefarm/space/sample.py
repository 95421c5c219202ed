"""Drawing configurations from a space's prior.

Each decision is drawn independently from its node's prior: a numeric
primitive by inverting its (truncated) prior CDF at one uniform number, a
choice or a join by its weights (uniform by default), restricted for a join to
the options that can finish within the recursion bound. Every draw comes from
the given :class:`numpy.random.Generator`, so a seed fixes the sequence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import overload

import numpy as np

from .config import Config, Decision, Scalar
from .nodes import Join, Space
from .primitives import Choice, Int, Real
from .walk import walk

__all__ = ["as_generator", "decision_at", "draw_decision", "draw_numeric", "sample", "unsupported", "within_support"]

SeedLike = int | np.random.Generator | None


def as_generator(seed: SeedLike) -> np.random.Generator:
    """A Generator from a seed, or the Generator itself."""
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _pick(weights: Sequence[float] | None, allowed: tuple[int, ...], u: float) -> int:
    """The allowed index whose cumulative (renormalized) weight first exceeds ``u``."""
    w = [1.0 if weights is None else weights[i] for i in allowed]
    total = sum(w)
    target, acc = u * total, 0.0
    for i, wi in zip(allowed, w):
        acc += wi
        if target < acc:
            return i
    return next(i for i, wi in zip(reversed(allowed), reversed(w)) if wi > 0)


def draw_numeric(node: Real | Int, u: float) -> float | int:
    """The value of a numeric primitive at prior quantile ``u`` in [0, 1)."""
    t = node.prior.ppf(u, *node.scale_bounds())
    x = math.exp(t) if node.log else t
    if isinstance(node, Int):
        return int(min(max(round(x), node.low), node.high))
    return min(max(x, node.low), node.high)


def draw_decision(node: Decision, allowed: tuple[int, ...], rng: np.random.Generator) -> Scalar:
    """One decision drawn from the node's prior."""
    return decision_at(node, allowed, float(rng.random()))


def decision_at(node: Decision, allowed: tuple[int, ...], u: float) -> Scalar:
    """The decision at prior quantile ``u`` in [0, 1): the inverse-CDF draw."""
    if isinstance(node, (Real, Int)):
        return draw_numeric(node, u)
    if isinstance(node, Choice):
        return node.decisions()[_pick(node.weights, tuple(range(len(node.values))), u)]
    assert isinstance(node, Join)
    return node.labels[_pick(node.weights, allowed, u)]


@overload
def sample(space: Space, rng: SeedLike = None, n: None = None) -> Config: ...
@overload
def sample(space: Space, rng: SeedLike = None, n: int = ...) -> list[Config]: ...


def sample(space: Space, rng: SeedLike = None, n: int | None = None) -> Config | list[Config]:
    """Draw one configuration (``n=None``) or a list of ``n`` from the prior."""
    from .convert import convert

    space = convert(space)
    uniforms = _Uniforms(as_generator(rng))

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        return decision_at(node, allowed, uniforms.next())

    if n is None:
        return walk(space, decide, check=False)[0]
    return [walk(space, decide, check=False)[0] for _ in range(n)]


class _Uniforms:
    """Uniform numbers drawn from the generator in blocks (one draw per decision, in order)."""

    BLOCK = 1024

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.block: list[float] = []
        self.pos = 0

    def next(self) -> float:
        if self.pos == len(self.block):
            self.block = self.rng.random(self.BLOCK).tolist()
            self.pos = 0
        self.pos += 1
        return self.block[self.pos - 1]


def within_support(space: Space, config: Config, rng: np.random.Generator) -> Config:
    """``config`` with every choice value and join option of prior weight 0 drawn
    again from the prior, with the decisions below a redrawn option; ``config``
    itself when it has none (and without a walk when the space has none).

    A weight of 0 says the option is outside the prior's support. Random search
    and TPE draw from the prior and never propose one; optimizers that move
    between options (the GP's rounding of a relaxed encoding, annealing's and
    grammar search's mutations) would, so the study passes every suggestion
    through here. An option of weight 0 can still be evaluated on purpose
    (``study.enqueue``)."""
    root = _with_zero_weights(space)
    if root is None:
        return config

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        if address not in config or _unweighted(node, config[address]):
            return draw_decision(node, allowed, rng)
        return config[address]

    found = walk(root, decide)[0]
    return config if found == config else found


def unsupported(space: Space, config: Config) -> list[str]:
    """The addresses of ``config`` (a whole configuration) whose choice value or
    join option has prior weight 0, in walk order."""
    root = _with_zero_weights(space)
    if root is None:
        return []
    found = []

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        if address not in config:
            return decision_at(node, allowed, 0.5)
        if _unweighted(node, config[address]):
            found.append(address)
        return config[address]

    walk(root, decide)
    return found


def _with_zero_weights(space: Space) -> Space | None:
    """``space`` converted, if some choice value or join option in it has weight 0; else None."""
    from .analysis import analyze
    from .convert import convert

    root = convert(space)
    return root if analyze(root).unweighted else None


def _unweighted(node: Decision, value: Scalar) -> bool:
    """Whether ``value`` is a choice value or join option of weight 0 at ``node``."""
    if not isinstance(node, (Choice, Join)) or node.weights is None:
        return False
    index = node.index_of(value)
    return index is not None and node.weights[index] == 0.0
