"""The best structures of a recursive space as readable expressions (pure data).

A trial of a grammar is a tree of decisions. Its expression is rendered as
text without the space (which the storage does not keep), from one of:

* the canonical term the study stores for spaces whose ops declare rules
  (``system_attrs["canonical"]``, ``('apply', 'f', (1, 7))``): rendered
  ``f(1, 7)``;
* otherwise the configuration's addresses, which spell the tree: the
  decision at ``a`` picks branch ``v``, whose members sit at ``a.v`` (one
  member, drawn as its value) or ``a.v.<key>`` (several, drawn as
  ``v(member, ...)``); positional keys in order, keyword keys as ``key=``.

Depth is the nesting of applications: a leaf has depth 0, ``f(1, 7)`` depth 1.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..storage import JSON, TrialRecord
from .source import complete_trials, losses

__all__ = ["Structure", "best_structures", "config_expression", "term_expression", "trial_expression"]


@dataclass(frozen=True)
class Structure:
    """One row of the best-structures table."""

    number: int
    expression: str
    depth: int
    value: float


def _term(term: Any) -> tuple[str, int]:
    if isinstance(term, tuple) and len(term) in (3, 4) and term[0] == "apply":
        parts = [_term(a) for a in term[2]]
        if len(term) == 4:
            parts += [(f"{k}={text}", d) for k, (text, d) in ((k, _term(v)) for k, v in term[3])]
        return f"{term[1]}({', '.join(p for p, _ in parts)})", 1 + max((d for _, d in parts), default=0)
    if isinstance(term, tuple):
        parts = [_term(a) for a in term]
        return f"({', '.join(p for p, _ in parts)})", max((d for _, d in parts), default=0)
    return repr(term), 0


class _Atom(str):
    """A leaf of a canonical term that is not a Python literal (a value's own repr, e.g. ``x0``)."""

    def __repr__(self) -> str:
        return str(self)


def _parse(text: str, i: int) -> tuple[Any, int]:
    """The term starting at ``text[i]``: a tuple ``(a, b, ...)``, a quoted string, or an
    atom running to the next top-level ``,`` or ``)``; returns it and the index after it."""
    while text[i] == " ":
        i += 1
    if text[i] == "(":
        items, i = [], i + 1
        while text[i] != ")":
            item, i = _parse(text, i)
            items.append(item)
            while text[i] in ", ":
                i += 1
        return tuple(items), i + 1
    if text[i] in "'\"":
        end = i + 1
        while text[end] != text[i]:
            end += 2 if text[end] == "\\" else 1
        return ast.literal_eval(text[i : end + 1]), end + 1
    end, depth = i, 0
    while end < len(text) and (depth > 0 or text[end] not in ",)"):
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        end += 1
    raw = text[i:end].strip()
    try:
        return ast.literal_eval(raw), end
    except (ValueError, SyntaxError):
        return _Atom(raw), end


def term_expression(canonical: str) -> tuple[str, int]:
    """A stored canonical term as ``f(g(1), 2)`` and its depth (the text itself if it does not parse)."""
    try:
        term, end = _parse(canonical, 0)
    except IndexError:
        return canonical, 0
    return _term(term) if end == len(canonical) else (canonical, 0)


def _key_order(key: str) -> tuple[int, int | str]:
    return (0, int(key)) if key.isdigit() else (1, key)


def _children(params: Mapping[str, JSON], prefix: str) -> list[str]:
    """The direct member addresses ``prefix.<key>`` of ``params``, positional keys first, in order."""
    keys = {a[len(prefix) + 1 :].split(".", 1)[0] for a in params if a.startswith(prefix + ".")}
    return [f"{prefix}.{k}" for k in sorted(keys, key=_key_order)]


def _render(params: Mapping[str, JSON], address: str) -> tuple[str, int]:
    value = params[address]
    branch = f"{address}.{value}"
    if branch in params:
        return _render(params, branch)
    members = _children(params, branch)
    if not members:
        return (repr(value) if not isinstance(value, str) else value), 0
    parts = []
    for m in members:
        text, depth = _render(params, m) if m in params else _members(params, m)
        key = m.rsplit(".", 1)[1]
        parts.append((text if key.isdigit() else f"{key}={text}", depth))
    return f"{value}({', '.join(p for p, _ in parts)})", 1 + max(d for _, d in parts)


def _members(params: Mapping[str, JSON], prefix: str) -> tuple[str, int]:
    """A family without a decision of its own (a nested dict or list) as ``(a, b)`` or ``{k=v}``."""
    parts = [_render(params, m) if m in params else _members(params, m) for m in _children(params, prefix)]
    return f"({', '.join(p for p, _ in parts)})", max((d for _, d in parts), default=0)


def config_expression(params: Mapping[str, JSON]) -> tuple[str, int]:
    """A configuration as an expression and its depth (see the module docstring);
    a flat configuration reads ``lr=0.01, layers=3``."""
    roots = sorted({a.split(".", 1)[0] for a in params}, key=_key_order)
    parts = [(_render(params, r) if r in params else _members(params, r)) for r in roots]
    if len(parts) == 1:
        return parts[0]
    return ", ".join(f"{r}={p}" for r, (p, _) in zip(roots, parts)), max((d for _, d in parts), default=0)


def trial_expression(trial: TrialRecord) -> tuple[str, int]:
    """The trial's expression: from its stored canonical term if any, else from its configuration."""
    canonical = trial.system_attrs.get("canonical")
    return term_expression(canonical) if isinstance(canonical, str) else config_expression(trial.params)


def best_structures(trials: Sequence[TrialRecord], *, direction: str, k: int = 10) -> list[Structure]:
    """The ``k`` best complete trials with distinct expressions, best first."""
    done = complete_trials(trials)
    order = sorted(zip(losses(done, direction), range(len(done))))
    out: list[Structure] = []
    seen: set[str] = set()
    for _, i in order:
        text, depth = trial_expression(done[i])
        if text not in seen:
            seen.add(text)
            out.append(Structure(done[i].number, text, depth, float(done[i].value or 0.0)))
        if len(out) == k:
            break
    return out
