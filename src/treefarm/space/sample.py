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
from .nodes import Choice, Int, Join, Real, Space
from .walk import walk

__all__ = ["as_generator", "draw_decision", "sample"]

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
    u = float(rng.random())
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
    gen = as_generator(rng)
    from .convert import convert

    space = convert(space)

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        return draw_decision(node, allowed, gen)

    if n is None:
        return walk(space, decide)[0]
    return [walk(space, decide)[0] for _ in range(n)]
