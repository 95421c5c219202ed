"""Variables, the recursion of the search-space language, and the check that a
definition has a way out.

``need(node)`` is the least number of variable expansions along one path
that an instance of ``node`` requires, the least fixed point of

    need(primitive) = need(const) = 0
    need(Family)    = max over members (0 for the empty family)
    need(Join)      = min over options (∞ for the empty join)
    need(Var)       = 1 + need(definition)

computed by iterating from ``need(Var) = ∞``. A variable whose need stays ∞
has no non-recursive way out (Var.define refuses it); the whole-space
analysis built on it is :mod:`treefarm.space.analysis`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import ClassVar

from ..exceptions import SpaceError, format_values
from ..validation import check_int
from .nodes import Join, Space, as_space, check_key

__all__ = ["Var", "check_definition", "definition_epoch", "fixed_point", "reachable"]

_epoch = itertools.count()
#: Incremented whenever a variable is defined, so cached analyses of a graph know to refresh.
definition_epoch = [next(_epoch)]


class Var(Space):
    """A forward-declared space, for recursion: ``G = Var("G")`` then
    ``G.define(f(G, G) | A)`` (or the thesis's ``G << (f(G, G) | A)``).

    ``max_depth`` bounds how many times a variable may be expanded along one
    path of an instance; at the bound sampling takes only options that can
    finish in time. A definition with no non-recursive way out is an error.
    The bound is one for the whole space: every variable's expansions count
    against the smallest ``max_depth`` of the variables it reaches (a grammar
    ``E -> T -> F`` with ``max_depth=3`` on each expands three times in all
    along a path, not three times each; :mod:`treefarm.space.analysis`).
    """

    __slots__ = ("_body", "max_depth", "name")
    name: str
    max_depth: int
    _body: Space | None

    DEFAULT_MAX_DEPTH: ClassVar[int] = 8
    MAX_DEPTH: ClassVar[int] = 100
    """The deepest expansion searched: the optimizers walk a configuration recursively
    and TPE meets Python's recursion limit past about 140 expansions (measured)."""

    def __init__(self, name: str, *, max_depth: int = DEFAULT_MAX_DEPTH) -> None:
        check_key(name)
        check_int(
            "max_depth",
            max_depth,
            error=SpaceError,
            owner="Var",
            maximum=self.MAX_DEPTH,
            why="deeper expansions exceed Python's recursion limit",
        )
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "max_depth", max_depth)
        object.__setattr__(self, "_body", None)

    @property
    def body(self) -> Space:
        """The definition; an error naming the variable if it was never defined."""
        if self._body is None:
            raise SpaceError(
                f"variable {self.name!r} is used but was never defined: call {self.name}.define(...)"
            )
        return self._body

    @property
    def defined(self) -> bool:
        return self._body is not None

    def define(self, body: object) -> Var:
        """Give the variable its definition (once). Checks that the recursion has
        a way out and that ``max_depth`` allows it, as far as defined variables tell."""
        if self._body is not None:
            raise SpaceError(f"variable {self.name!r} is already defined as {self._body!r}")
        object.__setattr__(self, "_body", as_space(body))
        definition_epoch[0] = next(_epoch)
        try:
            check_definition(self)
        except SpaceError:
            object.__setattr__(self, "_body", None)
            raise
        return self

    def __lshift__(self, body: object) -> Var:
        return self.define(body)

    def children(self) -> tuple[Space, ...]:
        return (self.body,) if self._body is not None else ()

    def __repr__(self) -> str:
        return self.name


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


def fixed_point(nodes: list[Space], undefined: float) -> dict[int, float]:
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


def check_definition(var: Var) -> None:
    """Reject a definition with no non-recursive way out, counting variables not
    yet defined as able to finish (they are checked when they are defined)."""
    nodes = list(reachable(var))
    need = fixed_point(nodes, undefined=0.0)
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
