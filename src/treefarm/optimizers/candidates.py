"""Candidate configurations near given ones: mutation and crossover of derivation trees.

A configuration of a conditional or recursive space is a derivation tree: its
addresses are the positions of the decisions taken. A model-based optimizer
scores candidates with its acquisition; these functions make candidates that
keep most of a good configuration and change a little of it, which is where
an acquisition usually peaks once a model knows the good regions.

Both are one :func:`treefarm.space.walk` with a ``decide`` that copies a
parent's decision where the parent has one, and draws from the prior where
the changed structure reaches addresses the parent never had:

- :func:`mutate` changes one decision: a numeric one by a Gaussian step on its
  unit scale (reflected at the bounds), a choice or a join option by drawing
  another option; a changed join option regrows the subtree under it.
- :func:`crossover` grafts the subtree of a second parent at one of its
  addresses onto the first.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..encoding import numeric_unit, numeric_value
from ..exceptions import ConfigError
from ..space import Choice, Config, Int, Join, Real, Space, draw_decision, walk
from ..space.config import Decision, Scalar, check_decision

__all__ = ["crossover", "mutate", "neighbours", "reflect", "step_decision", "still_valid"]


def reflect(u: float) -> float:
    """``u`` folded into [0, 1] by reflection at both ends."""
    u = abs(u) % 2.0
    return 2.0 - u if u > 1.0 else u


def step_decision(
    node: Decision, old: Scalar, allowed: tuple[int, ...], rng: np.random.Generator, scale: float
) -> Scalar:
    """A decision near ``old``, different from it where the node allows: a
    Gaussian step of ``scale`` on the unit scale (reflected) for numbers, an
    integer that rounds back moves one level, another option for a choice or
    a join."""
    if isinstance(node, (Real, Int)):
        assert isinstance(old, (int, float))
        value = numeric_value(node, reflect(numeric_unit(node, float(old)) + scale * rng.standard_normal()))
        if isinstance(node, Int) and value == old and node.high > node.low:
            value = int(old) + (
                1 if old == node.low else -1 if old == node.high else int(rng.choice([-1, 1]))
            )
        return value
    options = node.decisions() if isinstance(node, Choice) else [node.labels[i] for i in allowed]
    others = [o for o in options if o != old]
    return others[int(rng.integers(len(others)))] if others else old


def still_valid(address: str, node: Decision, value: Scalar | None, allowed: tuple[int, ...]) -> bool:
    """Whether a parent's decision is still a valid decision here."""
    if value is None:
        return False
    if isinstance(node, Join):
        return value in {node.labels[i] for i in allowed}
    try:
        check_decision(address, node, value)
    except ConfigError:
        return False
    return True


def mutate(space: Space, parent: Config, rng: np.random.Generator, *, scale: float = 0.1) -> Config:
    """``parent`` with one decision changed (see the module docstring).

    ``scale`` is the standard deviation of a numeric step on the unit scale.
    """
    targets = list(parent)
    target = targets[int(rng.integers(len(targets)))] if targets else None

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        old = parent.get(address)
        if address == target and old is not None:
            return step_decision(node, old, allowed, rng, scale)
        return old if still_valid(address, node, old, allowed) else draw_decision(node, allowed, rng)

    return walk(space, decide)[0]


def crossover(space: Space, first: Config, second: Config, rng: np.random.Generator) -> Config:
    """``first`` with the subtree of ``second`` at a random address of ``second`` grafted in."""
    targets = list(second)
    root = targets[int(rng.integers(len(targets)))] if targets else ""

    def inside(address: str) -> bool:
        return address == root or address.startswith(root + ".")

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        donors = (second, first) if inside(address) else (first, second)
        for donor in donors:
            value = donor.get(address)
            if still_valid(address, node, value, allowed):
                return value
        return draw_decision(node, allowed, rng)

    return walk(space, decide)[0]


def neighbours(
    space: Space, parents: Sequence[Config], n: int, rng: np.random.Generator, *, scale: float = 0.1
) -> list[Config]:
    """``n`` candidates: mutations of the parents (cycled), and crossovers of
    two parents for a quarter of them when there are at least two."""
    out: list[Config] = []
    for i in range(n):
        first = parents[i % len(parents)]
        if len(parents) > 1 and i % 4 == 3:
            second = parents[int(rng.integers(len(parents)))]
            out.append(crossover(space, first, second, rng))
        else:
            out.append(mutate(space, first, rng, scale=scale))
    return out
