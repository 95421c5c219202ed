"""Fail when any two modules of ``treefarm`` import each other, directly or around a ring.

import-linter's contracts speak of packages; a ring between modules of one package
(``a`` imports ``b`` imports ``a``) passes them. This check reads the import graph of every
module (grimp, the library import-linter is built on) and finds its strongly connected
components (Tarjan, 1972: "Depth-first search and linear graph algorithms"): a component of
more than one module is a cycle.

Every import statement counts, wherever it stands: an import inside a function (used on
purpose to keep ``import treefarm`` fast) and one under ``if TYPE_CHECKING:`` still tie the two
modules in design, so a ring through them is a ring.

Run from the repository root with the package importable::

    python tools/check_cycles.py            # exit 1 and list every cycle, else exit 0
    python tools/check_cycles.py --package treefarm
"""

from __future__ import annotations

import argparse
import sys
from collections import deque
from collections.abc import Callable, Iterable

import grimp

Edges = Callable[[str], Iterable[str]]


def strongly_connected(modules: Iterable[str], imported_by: Edges) -> list[list[str]]:
    """Components of more than one module, each sorted, in sorted order (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(modules):
        if root in index:
            continue
        work = [(root, iter(sorted(imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            child = next(successors, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return sorted(components)


def shortest_ring(start: str, members: set[str], imported_by: Edges) -> list[str]:
    """A shortest import path from ``start`` back to itself inside one component."""
    previous: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in sorted(imported_by(node)):
            if child not in members:
                continue
            if child == start:
                ring = [node]
                while ring[-1] != start:
                    ring.append(previous[ring[-1]])
                return [start, *reversed(ring[:-1]), start]
            if child not in previous:
                previous[child] = node
                queue.append(child)
    return [start]


def describe(graph: grimp.ImportGraph, component: list[str]) -> list[str]:
    """The imports that tie one component, with their lines, and one ring through it."""
    members = set(component)
    lines = [f"cycle of {len(component)} modules: {', '.join(component)}"]
    for importer in component:
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & members):
            details = graph.get_import_details(importer=importer, imported=imported)
            where = ", ".join(f"line {detail['line_number']}" for detail in details)
            lines.append(f"  {importer} -> {imported} ({where})")
    ring = shortest_ring(component[0], members, graph.find_modules_directly_imported_by)
    lines.append("  e.g. " + " -> ".join(ring))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default="treefarm", help="top-level package to check")
    arguments = parser.parse_args(argv)
    graph = grimp.build_graph(arguments.package, cache_dir=None)
    components = strongly_connected(graph.modules, graph.find_modules_directly_imported_by)
    for component in components:
        print("\n".join(describe(graph, component)))
    modules = sum(len(component) for component in components)
    print(f"{len(components)} import cycle(s) joining {modules} module(s) of {len(graph.modules)}")
    return 1 if components else 0


if __name__ == "__main__":
    sys.exit(main())
