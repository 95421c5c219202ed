"""Annealing's neighbour proposal, the same on flat, conditional and recursive spaces.

A proposal is one :func:`treefarm.space.walk` whose ``decide`` copies the
parent's decision at each address, except that

- a number moves with probability ``rate``: a Gaussian step of standard
  deviation ``scale`` on its unit scale (log scale for log parameters),
  reflected at the bounds; an integer that rounds back to its old value goes
  to a neighbouring level instead;
- a categorical choice moves with probability ``rate``, to another value
  drawn uniformly;
- a join option changes with probability ``rate / J`` (``J`` = the parent's
  join decisions), so however deep a derivation tree is, about ``rate``
  subtrees are regrown per proposal; a changed option's subtree, whose
  addresses the parent never had, is drawn from the prior;
- one decision, uniform over the parent's, always moves, so a proposal never
  equals its parent. In a derivation tree most decisions are join options,
  so this is usually the subtree replacement of genetic programming (Koza,
  1992), which favours small, deep subtrees over the root.

The joins' lower rate is what makes the walk local on recursive spaces: with
every decision moving at ``rate``, changing an option near the root regrows
the whole tree and the chain is little better than sampling from the prior.
"""

from __future__ import annotations

import numpy as np

from ..encoding import numeric_unit, numeric_value
from ..exceptions import ConfigError
from ..space import Choice, Config, Int, Join, Real, Space, draw_decision, walk
from ..space.config import Decision, Scalar, check_decision

__all__ = ["neighbour", "reflect"]


def reflect(u: float) -> float:
    """``u`` folded into [0, 1] by reflection at both ends."""
    u = abs(u) % 2.0
    return 2.0 - u if u > 1.0 else u


def neighbour(space: Space, parent: Config, rng: np.random.Generator, *, scale: float, rate: float) -> Config:
    """A random neighbour of ``parent`` (see the module docstring)."""
    joins = sum(isinstance(node, Join) for node in _nodes(space, parent).values())
    targets = list(parent)
    forced = targets[int(rng.integers(len(targets)))] if targets else None

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        old = parent.get(address)
        if old is None or not _valid(address, node, old, allowed):
            return draw_decision(node, allowed, rng)
        chance = rate / joins if isinstance(node, Join) else rate
        if address == forced or rng.random() < chance:
            return _move(node, old, allowed, rng, scale)
        return old

    return walk(space, decide)[0]


def _nodes(space: Space, parent: Config) -> dict[str, Decision]:
    """The decision node at each of ``parent``'s addresses."""
    nodes: dict[str, Decision] = {}

    def record(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        nodes[address] = node
        return parent[address]

    walk(space, record)
    return nodes


def _valid(address: str, node: Decision, value: Scalar, allowed: tuple[int, ...]) -> bool:
    """Whether the parent's ``value`` is still a valid decision here."""
    if isinstance(node, Join):
        return value in {node.labels[i] for i in allowed}
    try:
        check_decision(address, node, value)
    except ConfigError:
        return False
    return True


def _move(
    node: Decision, old: Scalar, allowed: tuple[int, ...], rng: np.random.Generator, scale: float
) -> Scalar:
    """A decision near ``old``, different from it where the node allows."""
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
