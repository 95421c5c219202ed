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
- :func:`option_swaps` takes each other option of each join a configuration
  visits, keeping everything else: the same settings on another branch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..encoding import numeric_unit, numeric_value
from ..exceptions import ConfigError
from ..space import Choice, Config, Int, Join, Real, Space, draw_decision, walk
from ..space.config import Decision, Scalar, check_decision

__all__ = ["crossover", "mutate", "neighbours", "option_swaps", "reflect", "step_decision", "still_valid"]


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


def inherited(
    address: str, node: Decision, allowed: tuple[int, ...], donors: Sequence[Config], rng: np.random.Generator
) -> Scalar:
    """The first of ``donors``' decisions at ``address`` that is still valid here, else
    a draw from the prior: how a changed tree keeps what it can of its parents."""
    for donor in donors:
        value = donor.get(address)
        if still_valid(address, node, value, allowed):
            return value
    return draw_decision(node, allowed, rng)


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
        return inherited(address, node, allowed, (parent,), rng)

    return walk(space, decide)[0]


def crossover(space: Space, first: Config, second: Config, rng: np.random.Generator) -> Config:
    """``first`` with the subtree of ``second`` at a random address of ``second`` grafted in."""
    targets = list(second)
    root = targets[int(rng.integers(len(targets)))] if targets else ""

    def inside(address: str) -> bool:
        return address == root or address.startswith(root + ".")

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        return inherited(address, node, allowed, (second, first) if inside(address) else (first, second), rng)

    return walk(space, decide)[0]


def option_swaps(
    space: Space, parent: Config, donors: Sequence[Config], rng: np.random.Generator
) -> list[Config]:
    """``parent`` with one join decision changed to another of its options,
    one configuration per (join address, other option), in walk order.

    Every decision the parent has stays; a decision the new branch needs
    and the parent lacks comes from the first of ``donors`` (best first)
    that has it, else from the prior. So a swap asks "the incumbent's
    settings on the other branch", which a model that keeps branches apart
    (inactive columns far outside the cube) cannot answer from the trials of
    that branch made elsewhere."""
    joins: list[tuple[str, list[Scalar]]] = []

    def record(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        if isinstance(node, Join):
            joins.append((address, [node.labels[i] for i in allowed if node.labels[i] != parent[address]]))
        return parent[address]

    walk(space, record)
    out: list[Config] = []
    for target, others in joins:
        for label in others:

            def decide(
                address: str, node: Decision, allowed: tuple[int, ...], target: str = target, label: Scalar = label
            ) -> Scalar:
                return label if address == target else inherited(address, node, allowed, (parent, *donors), rng)

            out.append(walk(space, decide)[0])
    return out


def neighbours(
    space: Space, parents: Sequence[Config], n: int, rng: np.random.Generator, *, scale: float = 0.1
) -> list[Config]:
    """``n`` candidates: mutations of the parents (cycled), and crossovers of
    two parents for a quarter of them when there are at least two.

    On a flat space (every address in every configuration, no join) whose
    parents hold exactly its addresses, the same candidates come from
    dictionary copies instead of walks of the space: the same draws from
    ``rng`` in the same order, so the same configurations, at a tenth of the
    cost (the walks were a tenth of a GP suggestion's CPU time)."""
    nodes = _flat_nodes(space)
    if nodes is not None and not all(
        parent.keys() == nodes.keys() and all(still_valid(a, node, parent[a], ()) for a, node in nodes.items())
        for parent in parents
    ):
        nodes = None
    out: list[Config] = []
    for i in range(n):
        first = parents[i % len(parents)]
        if len(parents) > 1 and i % 4 == 3:
            second = parents[int(rng.integers(len(parents)))]
            if nodes is None:
                out.append(crossover(space, first, second, rng))
            else:
                out.append(_flat_crossover(nodes, first, second, rng))
        elif nodes is None:
            out.append(mutate(space, first, rng, scale=scale))
        else:
            out.append(_flat_mutate(nodes, first, rng, scale))
    return out


def _flat_nodes(space: Space) -> dict[str, Decision] | None:
    """The decision of every address in the walk's order, when the space is
    flat (see :func:`neighbours`); ``None`` otherwise."""
    from ..encoding import UnitEncoding
    from ..space import analyze

    if analyze(space).recursive:
        return None
    encoding = UnitEncoding(space)
    return dict(encoding.nodes) if encoding.flat else None


def _flat_mutate(nodes: dict[str, Decision], parent: Config, rng: np.random.Generator, scale: float) -> Config:
    """:func:`mutate` on a flat space: one decision stepped, the others copied."""
    keys = list(parent)
    target = keys[int(rng.integers(len(keys)))] if keys else None
    data = {address: parent[address] for address in nodes}
    if target is not None:
        data[target] = step_decision(nodes[target], parent[target], (), rng, scale)
    return Config.trusted(data)


def _flat_crossover(
    nodes: dict[str, Decision], first: Config, second: Config, rng: np.random.Generator
) -> Config:
    """:func:`crossover` on a flat space: one decision of ``second`` in ``first``."""
    keys = list(second)
    target = keys[int(rng.integers(len(keys)))] if keys else None
    data = {address: first[address] for address in nodes}
    if target is not None:
        data[target] = second[target]
    return Config.trusted(data)
