"""Static analysis of a space graph: recursion, depth bounds, emptiness.

``need(node)`` is the least number of variable expansions along one path
that an instance of ``node`` requires, the least fixed point of

    need(primitive) = need(const) = 0
    need(Family)    = max over members (0 for the empty family)
    need(Join)      = min over options (∞ for the empty join)
    need(Var)       = 1 + need(definition)

computed by iterating from ``need(Var) = ∞``. A variable whose need stays ∞
has no non-recursive way out. While sampling at expansion depth ``d`` under
the bound ``L`` (the least ``max_depth`` of the variables reachable), a join
offers only options with ``d + need(option) <= L``; since need is monotone
along paths, such an option always exists below a feasible root, so sampling
terminates without ever backtracking.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass

from ..exceptions import SpaceError, format_values
from .fingerprint import describe
from .nodes import Choice, Join, Op, Shared, Space, Var, definition_epoch

__all__ = ["Analysis", "analyze", "check_definition", "reachable"]


def reachable(root: Space) -> Iterator[Space]:
    """Every node reachable from ``root`` once, through variable definitions too."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(reversed(node.children()))


def _need(node: Space, var_need: dict[int, float], memo: dict[int, float]) -> float:
    key = id(node)
    if key in memo:
        return memo[key]
    if isinstance(node, Var):
        value = 1 + var_need[key]
    elif isinstance(node, Join):  # an option of weight 0 is never drawn: no way out through it
        options = node.options if node.weights is None else [o for o, w in zip(node.options, node.weights) if w > 0]
        value = min((_need(o, var_need, memo) for o in options), default=math.inf)
    else:  # a product of its children (families, applications, shared spaces, loops); 0 for a leaf
        value = max((_need(c, var_need, memo) for c in node.children()), default=0.0)
    memo[key] = value
    return value


def _fixed_point(nodes: list[Space], undefined: float) -> dict[int, float]:
    """need() of every node; an undefined variable counts as ``undefined``."""
    variables = [n for n in nodes if isinstance(n, Var)]
    var_need = {id(v): (math.inf if v.defined else undefined - 1) for v in variables}
    while True:
        memo: dict[int, float] = {}
        changed = False
        for v in variables:
            if v.defined:
                value = _need(v.body, var_need, memo)
                if value < var_need[id(v)]:
                    var_need[id(v)] = value
                    changed = True
        if not changed:
            break
    memo = {}
    for n in nodes:
        _need(n, var_need, memo)
    return memo


@dataclass(frozen=True)
class Analysis:
    """What a walk over a space needs to know up front."""

    need: dict[int, float]
    depth_limit: float
    recursive: bool
    #: The space has a choice or a join somewhere (else only numbers and constants).
    choices: bool
    #: Some choice value or join option has prior weight 0 (outside the prior's support).
    unweighted: bool

    def need_of(self, node: Space) -> float:
        return self.need[id(node)]


def analyze(root: Space) -> Analysis:
    """Analyse ``root`` (cached until a variable is next defined); errors for an
    undefined variable, an empty space, or a depth bound too small."""
    return _analyze_cached(root, definition_epoch[0])


@functools.lru_cache(maxsize=256)
def _analyze_cached(root: Space, epoch: int) -> Analysis:
    nodes = list(reachable(root))
    for n in nodes:
        if isinstance(n, Var):
            n.body  # noqa: B018 - raises the "never defined" error naming the variable
    _check_shared_keys(nodes)
    _check_op_names(nodes)
    need = _fixed_point(nodes, undefined=math.inf)
    variables = [n for n in nodes if isinstance(n, Var)]
    limit = min((v.max_depth for v in variables), default=math.inf)
    choices = any(isinstance(n, (Choice, Join)) for n in nodes)
    unweighted = any(isinstance(n, (Choice, Join)) and n.weights is not None and 0.0 in n.weights for n in nodes)
    result = Analysis(
        need=need, depth_limit=limit, recursive=bool(variables), choices=choices, unweighted=unweighted
    )
    root_need = need[id(root)]
    if math.isinf(root_need):
        raise SpaceError(
            f"the space has no instance (an empty join, or a recursion with no way out of weight above 0): {root!r}"
        )
    if root_need > limit:
        raise SpaceError(
            "max_depth is too small for any instance: "
            + format_values(max_depth=limit, needed=int(root_need))
        )
    return result


def _check_shared_keys(nodes: list[Space]) -> None:
    """Refuse two different spaces shared under one key: an instance draws a key's
    decisions once, so the second would silently build from the first's value."""
    first: dict[str, Shared] = {}
    for node in nodes:
        if isinstance(node, Shared):
            seen = first.setdefault(node.key, node)
            if seen is not node and describe(seen.space) != describe(node.space):
                raise SpaceError(
                    f"one key must name one shared space, but got key={node.key!r} for "
                    f"{seen.space!r} and {node.space!r}"
                )


def _check_op_names(nodes: list[Space]) -> None:
    """Refuse two different ops under one name: canonical forms and stored
    configurations know an op by its name, so ``f(1, 2)`` of one would be taken
    for ``f(1, 2)`` of the other (``math.log`` and ``numpy.log`` are both "log")."""
    first: dict[str, Op] = {}
    for node in nodes:
        op = node if isinstance(node, Op) else getattr(node, "op", None)
        if isinstance(op, Op):
            seen = first.setdefault(op.name, op)
            if seen is not op and (seen.func != op.func or describe(seen) != describe(op)):
                raise SpaceError(
                    f"one name must name one op (pass name= to tell them apart), but got name={op.name!r} "
                    f"for {seen.func!r} and {op.func!r}"
                )


def check_definition(var: Var) -> None:
    """Reject a definition with no non-recursive way out, counting variables not
    yet defined as able to finish (they are checked when they are defined)."""
    nodes = list(reachable(var))
    need = _fixed_point(nodes, undefined=0.0)
    if math.isinf(need[id(var)]):
        raise SpaceError(
            f"the recursion of variable {var.name!r} has no non-recursive way out: every option "
            f"of its definition of weight above 0 refers back to it, but got {var.name} = {var.body!r}"
        )
    if need[id(var)] > var.max_depth:
        raise SpaceError(
            f"max_depth of variable {var.name!r} is too small for any instance: "
            + format_values(max_depth=var.max_depth, needed=int(need[id(var)]))
        )
