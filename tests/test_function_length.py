"""No function in the package is over 80 lines (DESIGN.md, "Style": small functions,
a median near 15): a longer one is split into named steps before it is merged."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "treefarm"
LIMIT = 80


def _lengths(path: Path) -> list[tuple[str, int, int]]:
    """Every function and method of ``path``: its name, first line and length in lines
    (decorators, signature, docstring and body; nested functions count in their parent too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.name, node.lineno, (node.end_lineno or node.lineno) - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]


def test_no_function_is_over_80_lines() -> None:
    long = [
        f"{path.relative_to(SRC.parent)}:{line} {name} ({length} lines)"
        for path in sorted(SRC.rglob("*.py"))
        for name, line, length in _lengths(path)
        if length > LIMIT
    ]
    assert not long, "functions over 80 lines:\n" + "\n".join(long)


def test_the_walk_sees_every_function() -> None:
    """The check reads the package's code (over a thousand functions), not an empty folder."""
    assert sum(len(_lengths(path)) for path in SRC.rglob("*.py")) > 1000
