"""The thesis's variables: computation graphs, and values updated a bounded number of times.

The thesis (Meier, "Bayesian Hyperparameter-Optimization in Grammar-Based Search
Spaces", undated; section "Constants and variables") lets an instance be a graph
rather than a tree: a constant is a sub-result that several later steps use
(:class:`treefarm.space.Shared`: drawn and built once per instance, reused
wherever it appears), and a *variable* may "change value in the computation
process", which gives the instances cyclic structures. Both are made here
from the language's own parts, so sampling, ``build``, canonical forms, JSON
configurations and every optimizer work on them unchanged:

- :func:`cell` — a computation DAG of ``n_nodes`` nodes, each applying one of
  a set of ops to inputs chosen among the cell's inputs and the earlier
  nodes (a neural-architecture "cell", or a formula that reuses a
  sub-expression). Each node is a :class:`Shared` keyed ``node<i>``: its
  decisions live at ``@node<i>`` and, however many later nodes read it, it is
  built once. Two cells that differ only by the order of their nodes build
  equal expressions, so with the ops' rules declared they share a canonical
  form (:mod:`treefarm.space.canonical`) and are one point of the search.
- :class:`Loop` — a variable updated a bounded number of times, the cycle
  ``x <- update(x)`` unrolled: ``x_0 = init`` and ``x_{t+1} = update(x_t)``
  for ``t < times``, where ``times`` (an :class:`Int` decision, or a fixed
  integer) and the update (an op, or a join of ops: one decision, the same
  rule at every step) are decisions of the instance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..exceptions import SpaceError
from ..validation import check_bool, is_integer
from .nodes import Const, Join, Op, Shared, Space, as_space
from .primitives import Int

__all__ = ["Loop", "cell"]


class Loop(Space):
    """``x_0 = init; x_{t+1} = update(x_t)`` for ``t < times`` (see the module docstring).

    Its decisions: ``init``'s under ``<address>.init``, the number of steps at
    ``<address>.times`` (when it is an :class:`Int`), the update's option at
    ``<address>.update`` (when it is a join of several ops).
    """

    __slots__ = ("init", "times", "update")
    init: Space
    update: Op | Join
    times: Int | Const

    def __init__(self, init: object, update: Op | Join, times: Int | int) -> None:
        object.__setattr__(self, "init", as_space(init))
        ok_update = isinstance(update, Op) or (
            isinstance(update, Join) and update.options and all(isinstance(o, Op) for o in update.options)
        )
        if not ok_update:
            raise SpaceError(f"a Loop's update must be an op or a join of ops, but got update={update!r}")
        object.__setattr__(self, "update", update)
        if isinstance(times, Int):
            if times.low < 0:
                raise SpaceError(f"a Loop's times must be >= 0, but got times.low={times.low}")
            object.__setattr__(self, "times", times)
        elif is_integer(times) and times >= 0:
            object.__setattr__(self, "times", Const(times))
        else:
            raise SpaceError(f"a Loop's times must be an integer >= 0 or an Int, but got times={times!r}")

    def children(self) -> tuple[Space, ...]:
        return (self.init, self.update, self.times)

    def __repr__(self) -> str:
        return f"Loop({self.init!r}, {self.update!r}, times={self.times!r})"


def cell(
    inputs: Mapping[str, Any],
    ops: Sequence[Op],
    *,
    n_nodes: int,
    arity: int = 2,
    key: str = "node",
    shared: bool = True,
) -> Space:
    """A computation DAG (see the module docstring): node ``i`` applies one of
    ``ops`` to ``arity`` inputs, each chosen among ``inputs`` (name -> value
    or space) and nodes ``0 .. i-1``; the cell builds the value of its last node.

    ``shared=False`` makes the same search written as a tree: each use of an
    earlier node draws and builds its own copy of that node's sub-space, so
    two later nodes can never read one intermediate result."""
    check_bool("shared", shared, error=SpaceError)
    if not is_integer(n_nodes) or n_nodes < 1:
        raise SpaceError(f"a cell needs n_nodes >= 1, but got n_nodes={n_nodes!r}")
    if not is_integer(arity) or arity < 1:
        raise SpaceError(f"a cell needs arity >= 1, but got arity={arity!r}")
    if not inputs or not ops:
        raise SpaceError(
            f"a cell needs at least one input and one op, but got inputs={list(inputs)!r}, ops={list(ops)!r}"
        )
    sources: dict[str, Any] = {name: as_space(v) for name, v in inputs.items()}
    node: Space = Const(None)
    for i in range(n_nodes):
        choose = Join(**sources) if len(sources) > 1 else next(iter(sources.values()))
        node = Join(*(o(*([choose] * arity)) for o in ops))
        node = Shared(node, key=f"{key}{i}") if shared else node
        sources[f"{key}{i}"] = node
    return node
