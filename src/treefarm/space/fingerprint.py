"""A space's fingerprint: what a stored study remembers of the space it was made for.

Two spaces have the same fingerprint when they have the same structure and
the same bounds, options, priors, labels, op names and rules, and recursion
bounds: then every stored configuration means the same thing in both. The
functions an op calls are identified by the op's name only (their code may
change, as a bug fix would), and a constant by its JSON value, or by its type
for a value JSON cannot hold. Reopening a study with a space of another
fingerprint mixes trials of two problems, which the study refuses.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .nodes import Const, Op, Space
from .recursion import Var

__all__ = ["describe", "fingerprint"]

_SKIPPED_SLOTS = frozenset({"func", "_body", "by_index"})
"""Slots that are code, or derived from other slots, rather than structure."""


def _slots(node: Space) -> list[str]:
    names: list[str] = []
    for cls in type(node).__mro__:
        names.extend(s for s in getattr(cls, "__slots__", ()) if s not in names)
    return sorted(s for s in names if s not in _SKIPPED_SLOTS)


def _plain(value: Any) -> Any:
    """A JSON-able stand-in for an attribute: itself if JSON holds it, else its type and repr
    (a prior's repr names its parameters; a function's would carry an address, so only its type)."""
    try:
        json.dumps(value, allow_nan=False)
        return value
    except (TypeError, ValueError):
        pass
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if callable(value):
        return {"type": type(value).__qualname__, "name": getattr(value, "__qualname__", None)}
    text = repr(value)
    return {"type": type(value).__qualname__, "repr": text if " at 0x" not in text else None}


def describe(space: Space, *, legacy: bool = False) -> Any:
    """A JSON-able description of ``space``'s structure (see the module docstring);
    a variable's body is described once, then referred to by name. A mapping of
    names to sub-spaces is described name by name, so ``{"lr": A, "m": B}`` and
    ``{"lr": B, "m": A}`` differ and a reordering of the keys does not;
    ``legacy=True`` gives the description of treefarm before that (the keys
    sorted, the members in insertion order), which a stored study may hold."""
    seen: set[int] = set()

    def visit(node: Space) -> Any:
        if isinstance(node, Var):
            if id(node) in seen:
                return {"var": node.name}
            seen.add(id(node))
            body = visit(node.body) if node.defined else None
            return {"var": node.name, "max_depth": node.max_depth, "body": body}
        if isinstance(node, Const):
            return {"const": _plain(node.value)}
        out: dict[str, Any] = {"node": type(node).__name__}
        members: dict[str, Any] = {}  # slots holding sub-spaces, described by name beside a mapping's
        paired = False  # a mapping's members are described with their names
        for name in _slots(node):
            value = getattr(node, name)
            if isinstance(value, Space) or (
                isinstance(value, (tuple, list)) and any(isinstance(v, Space) for v in value)
            ):
                members[name] = value
            elif isinstance(value, dict) and any(isinstance(v, Space) for v in value.values()):
                out[name] = sorted(value) if legacy else {key: visit(v) for key, v in value.items()}
                paired = not legacy
            else:
                out[name] = _plain(value)
        if paired:
            for name, value in members.items():
                out[name] = visit(value) if isinstance(value, Space) else [
                    visit(v) if isinstance(v, Space) else _plain(v) for v in value
                ]
        elif not isinstance(node, Op):
            out["children"] = [visit(child) for child in node.children()]
        return out

    return visit(space)


def fingerprint(space: Space, *, legacy: bool = False) -> str:
    """The SHA-256 of :func:`describe` as canonical JSON, in hex."""
    text = json.dumps(describe(space, legacy=legacy), sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode()).hexdigest()
