"""The import-cycle check of CI finds every ring of modules, and only rings."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("grimp", reason="the cycle check reads the import graph with grimp (import-linter)")

TOOL = Path(__file__).resolve().parents[1] / "tools" / "check_cycles.py"


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_cycles", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def edges(graph: dict[str, set[str]]):
    return lambda module: graph.get(module, set())


def test_rings_are_found_and_chains_are_not() -> None:
    tool = load_tool()
    graph = {
        "a": {"b"},
        "b": {"c"},
        "c": {"a", "d"},  # a -> b -> c -> a is a ring; d hangs below it
        "d": {"e"},
        "e": set(),
        "x": {"y"},
        "y": {"x"},  # a direct pair
        "z": {"z"},  # importing itself is not a ring between modules
    }
    assert tool.strongly_connected(graph, edges(graph)) == [["a", "b", "c"], ["x", "y"]]


def test_a_long_chain_does_not_overflow_the_stack() -> None:
    tool = load_tool()
    size = 5000
    graph = {f"m{i}": {f"m{i + 1}"} for i in range(size)}
    graph[f"m{size}"] = {"m0"}
    (component,) = tool.strongly_connected(graph, edges(graph))
    assert len(component) == size + 1


def test_the_ring_shown_is_a_shortest_one() -> None:
    tool = load_tool()
    graph = {"a": {"b", "c"}, "b": {"c"}, "c": {"a"}}
    assert tool.shortest_ring("a", set(graph), edges(graph)) == ["a", "c", "a"]


def test_no_two_modules_of_treefarm_import_each_other() -> None:
    import grimp

    tool = load_tool()
    graph = grimp.build_graph("treefarm", cache_dir=None)
    cycles = tool.strongly_connected(graph.modules, graph.find_modules_directly_imported_by)
    assert cycles == [], "\n".join(line for c in cycles for line in tool.describe(graph, c))
