"""Expression equality: one canonical form per expression, under the rules ops declare.

Two configurations of a grammar can build the same expression —
``add(x, y)`` and ``add(y, x)`` for a commutative ``add``, ``add(add(a, b), c)``
and ``add(a, add(b, c))`` for an associative one (the thesis, "Expression
Equality"). :func:`canonical` rebuilds an instance as a term, an
``(op name, arguments)`` tree whose leaves are the primitive values, and
normalizes every application bottom-up:

1. associative: arguments that apply the same op are spliced in (flattening);
2. identity: arguments equal to the op's identity element are dropped (an
   application left with one argument becomes that argument, with none the
   identity itself);
3. idempotent: repeated arguments are dropped;
4. commutative: arguments are sorted by their canonical text.

Its text is what a study compares and stores, so an expression is evaluated
once however many derivations reach it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .analysis import reachable
from .build import _replay
from .convert import convert
from .nodes import Apply, Op, Space
from .walk import Args

__all__ = ["canonical", "has_rules"]

Term = tuple[Any, ...]


def has_rules(space: Any) -> bool:
    """Whether any op of the space declares an algebraic rule."""
    for node in reachable(convert(space)):
        if (isinstance(node, Apply) and node.op.has_rules) or (isinstance(node, Op) and node.has_rules):
            return True
    return False


def _key(term: Any) -> str:
    return repr(term)


def _normalize(op: Op, arguments: list[Any]) -> Any:
    if op.associative:
        spliced: list[Any] = []
        for a in arguments:
            is_same = isinstance(a, tuple) and len(a) == 3 and a[0] == "apply" and a[1] == op.name
            spliced.extend(a[2] if is_same else [a])
        arguments = spliced
    if op.has_identity:
        arguments = [a for a in arguments if _key(a) != _key(op.identity)]
        if not arguments:
            return op.identity
    if op.idempotent:
        unique: dict[str, Any] = {}
        for a in arguments:
            unique.setdefault(_key(a), a)
        arguments = list(unique.values())
    if op.commutative:
        arguments = sorted(arguments, key=_key)
    if len(arguments) == 1 and (op.associative or op.has_identity or op.idempotent):
        return arguments[0]
    return ("apply", op.name, tuple(arguments))


def _term(op: Op, built: Any) -> Any:
    if isinstance(built, Args):
        if built.kwargs:
            return ("apply", op.name, tuple(built.args), tuple(sorted(built.kwargs.items())))
        built = built.args
    if isinstance(built, dict):
        return ("apply", op.name, (), tuple(sorted(built.items())))
    return _normalize(op, list(built))


def canonical(space: Space | Any, config: Mapping[str, Any]) -> str:
    """The canonical text of the expression ``config`` selects (see the module docstring).

    Keyword arguments are kept apart and never reordered by the rules, which
    apply to positional arguments only.
    """
    return _key(_replay(convert(space), config, build=True, call=_term)[1])
