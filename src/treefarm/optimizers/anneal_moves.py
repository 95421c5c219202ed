"""Annealing's neighbour proposal, the same on flat, conditional and recursive spaces.

One decision, uniform over the parent's, is the proposal's forced move (so a
proposal never equals its parent). If it is a number or a choice, the
proposal is one :func:`treefarm.space.walk` whose ``decide`` copies the
parent's decision at each address, except that

- a number moves with probability ``rate`` (always, if forced): a Gaussian
  step of standard deviation ``scale`` on its unit scale (log scale for log
  parameters), reflected at the bounds; an integer that rounds back to its
  old value goes to a neighbouring level instead;
- a categorical choice moves with probability ``rate``, to another value
  drawn uniformly;
- a join option changes with probability ``rate / J`` (``J`` = the parent's
  join decisions), so however deep a derivation tree is, about ``rate``
  subtrees are regrown per proposal; a changed option's subtree, whose
  addresses the parent never had, is drawn from the prior.

If the forced decision is a join option at address ``a``, the proposal
changes the structure there and nothing else, by one of the mutations of
genetic programming (Koza, 1992; O'Neill et al., 2010, for grammars) —
in a derivation tree most decisions are join options, so most proposals are
these, and uniform addresses favour small, deep subtrees over the root:

- *hoist* (probability 1/3, when the subtree at ``a`` holds the same join
  deeper, at ``b``): the subtree at ``b`` replaces the one at ``a``
  (``sin(x0 + x1) -> x0 + x1``);
- *wrap* (half of the rest, when the new option holds the same join): another
  option at ``a`` whose nearest recursive position receives the old subtree,
  its other positions drawn from the prior (``x0 -> x0 * sin(x1)``);
- *regrow*: another option at ``a``, its subtree drawn from the prior.

Hoist and wrap make a tree grow and shrink by one level while keeping what
it had, which regrowing alone cannot: from a one-node tree, every regrown
neighbour is a fresh draw from the prior. Decisions the moved subtree cannot
keep (beyond the depth bound, say) are drawn from the prior.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from ..space import Config, Join, Space, draw_decision, walk
from ..space.config import Decision, Scalar
from .variation import step_decision, still_valid

__all__ = ["HOIST", "WRAP", "neighbour"]

#: Probability of a hoist, when one is possible, in a structural move.
HOIST = 1 / 3
#: Probability of a wrap, when one is possible, in a structural move that is no hoist.
WRAP = 1 / 2


def neighbour(
    space: Space,
    parent: Config,
    rng: np.random.Generator,
    *,
    scale: float,
    rate: float,
    avoid: Collection[str] = (),
) -> Config:
    """A random neighbour of ``parent`` (see the module docstring) whose forced
    decision lies in none of the subtrees at the addresses ``avoid``, while the
    parent has a decision outside them."""
    parent, nodes = _nodes(space, parent, rng)
    targets = [a for a in parent if not any(_inside(a, root) for root in avoid)] or list(parent)
    forced = targets[int(rng.integers(len(targets)))] if targets else None
    if forced is not None and isinstance(nodes[forced], Join):
        return _reshape(space, parent, nodes, forced, rng)
    joins = sum(isinstance(node, Join) for node in nodes.values())

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        old = parent.get(address)
        if old is None or not still_valid(address, node, old, allowed):
            return draw_decision(node, allowed, rng)
        chance = rate / joins if isinstance(node, Join) else rate
        if address == forced or rng.random() < chance:
            return step_decision(node, old, allowed, rng, scale)
        return old

    return walk(space, decide)[0]


def _reshape(
    space: Space, parent: Config, nodes: dict[str, Decision], at: str, rng: np.random.Generator
) -> Config:
    """Hoist, wrap or regrow the subtree of ``parent`` at the join address ``at``."""
    deeper = [b for b in nodes if _inside(b, at) and b != at and nodes[b] is nodes[at]]
    if deeper and rng.random() < HOIST:
        below = deeper[int(rng.integers(len(deeper)))]
        kept = {k: v for k, v in parent.items() if not _inside(k, at)}
        return _graft(space, {**kept, **_moved(parent, below, at)}, rng)
    probe: dict[str, Decision] = {}

    def regrow(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        probe[address] = node
        if address == at:
            return step_decision(node, parent[at], allowed, rng, 0.0)
        if _inside(address, at) or address not in parent:
            return draw_decision(node, allowed, rng)
        old = parent[address]
        return old if still_valid(address, node, old, allowed) else draw_decision(node, allowed, rng)

    grown = walk(space, regrow)[0]
    slots = [b for b in probe if _inside(b, at) and b != at and probe[b] is nodes[at]]
    if not slots or rng.random() >= WRAP:
        return grown
    depth = min(b.count(".") for b in slots)
    nearest = [b for b in slots if b.count(".") == depth]
    slot = nearest[int(rng.integers(len(nearest)))]
    kept = {k: v for k, v in grown.items() if not _inside(k, slot)}
    return _graft(space, {**kept, **_moved(parent, at, slot)}, rng)


def _inside(address: str, root: str) -> bool:
    """Whether ``address`` lies in the subtree at ``root``."""
    return address == root or address.startswith(root + ".")


def _moved(config: Config, source: str, target: str) -> dict[str, Scalar]:
    """The subtree of ``config`` at ``source``, re-addressed to ``target``."""
    return {target + k[len(source) :]: v for k, v in config.items() if _inside(k, source)}


def _graft(space: Space, decisions: dict[str, Scalar], rng: np.random.Generator) -> Config:
    """The configuration taking ``decisions`` where they are valid, the prior elsewhere."""

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        old = decisions.get(address)
        if old is None or not still_valid(address, node, old, allowed):
            return draw_decision(node, allowed, rng)
        return old

    return walk(space, decide)[0]


def _nodes(space: Space, parent: Config, rng: np.random.Generator) -> tuple[Config, dict[str, Decision]]:
    """``parent`` as a configuration of ``space`` (a decision it lacks or that
    is no longer valid, as after a bound changed, drawn from the prior) and
    the decision node at each of its addresses."""
    nodes: dict[str, Decision] = {}

    def record(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        nodes[address] = node
        old = parent.get(address)
        if old is None or not still_valid(address, node, old, allowed):
            return draw_decision(node, allowed, rng)
        return old

    return walk(space, record)[0], nodes
