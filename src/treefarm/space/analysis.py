"""Static analysis of a space graph: recursion, depth bounds, emptiness.

``need(node)``, the least number of variable expansions along one path that an
instance of ``node`` requires, is computed in :mod:`treefarm.space.recursion`. A variable
whose need is ∞ has no non-recursive way out. While sampling at expansion depth ``d`` under
the bound ``L`` (the least ``max_depth`` of the variables reachable), a join
offers only options with ``d + need(option) <= L``; since need is monotone
along paths, such an option always exists below a feasible root, so sampling
terminates without ever backtracking.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from ..exceptions import SpaceError, format_values
from .fingerprint import describe
from .nodes import Join, Op, Shared, Space
from .primitives import Choice
from .recursion import Var, check_definition, definition_epoch, fixed_point, reachable

__all__ = ["Analysis", "analyze", "check_definition", "reachable"]


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
    need = fixed_point(nodes, undefined=math.inf)
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
