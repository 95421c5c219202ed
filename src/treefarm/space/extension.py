"""Enumerating finite spaces, counting them, and listing every address.

``enumerate_configs`` runs the shared walk repeatedly as an odometer over the
decisions (each walk replays a prefix of choice indices and takes the first
option after it), which visits every configuration exactly once, respects
the recursion bound, and handles shared sub-spaces and dependencies without
special cases. ``size`` counts configurations by dynamic programming over
(node, depth).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from ..exceptions import SpaceError
from .analysis import analyze, reachable
from .config import ROOT_ADDRESS, Config, Decision, Scalar, child_address
from .convert import convert
from .nodes import Apply, Family, Join, Shared, Space
from .primitives import Choice, Int, Real
from .recursion import Var
from .variables import Loop
from .walk import walk

__all__ = ["addresses", "enumerate_configs", "size"]


def _options(address: str, node: Decision, allowed: tuple[int, ...]) -> tuple[Scalar, ...]:
    if isinstance(node, Real):
        raise SpaceError(f"a space with a real interval has no finite extension, but got {address}={node!r}")
    if isinstance(node, Int):
        return tuple(range(node.low, node.high + 1))
    if isinstance(node, Choice):
        return node.decisions()
    return tuple(node.labels[i] for i in allowed)


def enumerate_configs(space: Any, *, limit: int | None = None) -> Iterator[Config]:
    """Every configuration of a finite space (at most ``limit`` of them), in a
    fixed order; a :class:`SpaceError` naming the address of a real interval."""
    root = convert(space)
    path: list[int] = []
    counts: list[int] = []

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        options = _options(address, node, allowed)
        k = len(counts)
        counts.append(len(options))
        return options[path[k] if k < len(path) else 0]

    produced = 0
    while limit is None or produced < limit:
        counts.clear()
        config, _ = walk(root, decide)
        yield config
        produced += 1
        taken = [path[k] if k < len(path) else 0 for k in range(len(counts))]
        k = len(counts) - 1
        while k >= 0 and taken[k] + 1 >= counts[k]:
            k -= 1
        if k < 0:
            return
        path[:] = [*taken[:k], taken[k] + 1]


def size(space: Any) -> float:
    """The number of configurations of a space: ``math.inf`` if it has a real
    interval. Distinct configurations may build equal values (``A | A``)."""
    root = convert(space)
    analysis = analyze(root)
    nodes = list(reachable(root))
    if any(isinstance(n, Real) for n in nodes):
        return math.inf
    if any(isinstance(n, Shared) for n in nodes):
        return float(sum(1 for _ in enumerate_configs(root)))
    memo: dict[tuple[int, int], float] = {}

    def count(node: Space, depth: int) -> float:
        key = (id(node), depth)
        if key not in memo:
            memo[key] = _count(node, depth)
        return memo[key]

    def _count(node: Space, depth: int) -> float:
        if isinstance(node, Int):
            return float(node.size)
        if isinstance(node, Choice):
            return float(len(node.values))
        if isinstance(node, (Family, Apply)):
            return math.prod(
                count(c, depth)
                for c in (node.args.children() if isinstance(node, Apply) else node.children())
            )
        if isinstance(node, Join):
            return sum(
                count(o, depth) for o in node.options if depth + analysis.need_of(o) <= analysis.depth_limit
            )
        if isinstance(node, Var):
            return count(node.body, depth + 1)
        if isinstance(node, Loop):
            updates = len(node.update.options) if isinstance(node.update, Join) else 1
            return count(node.init, depth) * count(node.times, depth) * updates
        return 1.0

    return count(root, 0)


def addresses(space: Any) -> list[tuple[str, Decision]]:
    """Every decision address of a non-recursive space with its node, over all
    branches, in walk order. This is the static schema the encodings use."""
    root = convert(space)
    if analyze(root).recursive:
        raise SpaceError(f"a recursive space has unboundedly many addresses, but got space={root!r}")
    out: list[tuple[str, Decision]] = []
    seen_shared: set[str] = set()

    def visit(node: Space, address: str) -> None:
        if isinstance(node, (Real, Int, Choice)):
            out.append((address or ROOT_ADDRESS, node))
        elif isinstance(node, Join):
            if len(node.options) > 1:
                out.append((address or ROOT_ADDRESS, node))
            for label, option in zip(node.labels, node.options):
                visit(option, child_address(address, label))
        elif isinstance(node, Family):
            for key, member in node.members():
                visit(member, child_address(address, key))
        elif isinstance(node, Apply):
            visit(node.args, address)
        elif isinstance(node, Loop):
            visit(node.init, child_address(address, "init"))
            visit(node.times, child_address(address, "times"))
            if isinstance(node.update, Join) and len(node.update.options) > 1:
                out.append((child_address(address, "update"), node.update))
        elif isinstance(node, Shared) and node.key not in seen_shared:
            seen_shared.add(node.key)
            visit(node.space, "@" + node.key)

    visit(root, "")
    return out
