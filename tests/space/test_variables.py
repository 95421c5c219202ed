"""Variables: computation DAGs (cells) and bounded update loops, through every part of the library."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treefarm import (
    GP,
    TPE,
    Anneal,
    Config,
    GrammarSearch,
    History,
    Int,
    Loop,
    Observation,
    Optimizer,
    RandomSearch,
    build,
    cell,
    op,
    sample,
    size,
    validate,
)
from treefarm.exceptions import SpaceError
from treefarm.space import canonical


class Counter:
    """Ops whose calls are counted, building readable terms."""

    def __init__(self) -> None:
        self.calls = 0

    def op(self, name: str, *, commutative: bool = False) -> Any:
        def f(*args: Any) -> tuple[Any, ...]:
            self.calls += 1
            return (name, *args)

        return op(f, name=name, commutative=commutative)


def _cell(counter: Counter, n_nodes: int = 4, *, shared: bool = True) -> Any:
    ops = [counter.op("add", commutative=True), counter.op("mul", commutative=True), counter.op("sub")]
    return cell({"x": "x", "y": "y"}, ops, n_nodes=n_nodes, shared=shared)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_shared_node_is_built_once_per_instance(seed: int) -> None:
    counter = Counter()
    space = _cell(counter)
    config = sample(space, seed)
    counter.calls = 0
    build(space, config)
    active_nodes = {a.split(".")[0] for a in config if a.startswith("@node")}
    assert counter.calls == len(active_nodes)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_graphs_round_trip_through_json(seed: int) -> None:
    counter = Counter()
    space = {"cell": _cell(counter), "h": Loop("x", counter.op("f") | counter.op("g"), Int(0, 3))}
    config = sample(space, seed)
    again = Config.from_json(config.to_json())
    assert again == config
    assert validate(space, again) == config
    assert build(space, again) == build(space, config)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["add", "mul", "sub"]),
    st.sampled_from(["add", "mul", "sub"]),
    st.sampled_from(["add", "mul", "sub"]),
    st.lists(st.sampled_from(["x", "y"]), min_size=4, max_size=4),
)
def test_graphs_that_differ_only_by_node_order_are_equal(a: str, b: str, out: str, leaves: list[str]) -> None:
    space = _cell(Counter(), n_nodes=3)

    def graph(first: tuple[str, list[str]], second: tuple[str, list[str]], reads: list[str]) -> Config:
        (op0, in0), (op1, in1) = first, second
        return Config(
            {
                "@node2": out,
                f"@node2.{out}.0": reads[0],
                "@node0": op0,
                f"@node0.{op0}.0": in0[0],
                f"@node0.{op0}.1": in0[1],
                f"@node2.{out}.1": reads[1],
                "@node1": op1,
                f"@node1.{op1}.0": in1[0],
                f"@node1.{op1}.1": in1[1],
            }
        )

    one = graph((a, leaves[:2]), (b, leaves[2:]), ["node0", "node1"])
    other = graph((b, leaves[2:]), (a, leaves[:2]), ["node1", "node0"])
    assert one != other
    assert canonical(space, one) == canonical(space, other)
    assert build(space, one) == build(space, other)


def test_a_loop_applies_its_update_the_chosen_number_of_times() -> None:
    counter = Counter()
    space = Loop("x", counter.op("f") | counter.op("g"), Int(0, 3))
    assert build(space, {"times": 3, "update": "g"}) == ("g", ("g", ("g", "x")))
    assert build(space, {"times": 0, "update": "f"}) == "x"
    assert size(space) == 8
    assert build(Loop(1, op(lambda v: v * 2, name="double"), 5), {}) == 32


def test_the_tree_version_draws_each_use_afresh() -> None:
    counter = Counter()
    tree = _cell(counter, shared=False)
    configs = sample(tree, np.random.default_rng(0), n=20)
    assert all(not any(a.startswith("@") for a in c) for c in configs)
    assert max(len(c) for c in configs) > max(len(c) for c in sample(_cell(Counter()), 0, n=20))


@pytest.mark.parametrize(
    "factory",
    [
        RandomSearch,
        lambda: TPE(n_startup=4),
        lambda: Anneal(n_startup=4),
        lambda: GP(n_startup=4),
        GrammarSearch,
    ],
)
def test_every_optimizer_suggests_valid_graphs(factory: Callable[[], Optimizer]) -> None:
    counter = Counter()
    space: Any = {
        "cell": _cell(counter, n_nodes=3),
        "h": Loop("x", counter.op("f") | counter.op("g"), Int(0, 3)),
    }
    rng = np.random.default_rng(0)
    history = History(complete=[Observation(c, float(i % 5)) for i, c in enumerate(sample(space, rng, n=12))])
    for config in factory().suggest(space, history, 3, np.random.default_rng(1)):
        validate(space, config)


def test_bad_graphs_are_clear_errors() -> None:
    f = op(abs, name="f")
    with pytest.raises(SpaceError, match="n_nodes"):
        cell({"x": 1}, [f], n_nodes=0)
    with pytest.raises(SpaceError, match="times"):
        Loop(1, f, -1)
    with pytest.raises(SpaceError, match="update"):
        Loop(1, Int(0, 2), 2)  # type: ignore[arg-type]
