"""Mutation and crossover of configurations: valid, local, reproducible."""

from __future__ import annotations

import operator

import numpy as np
import pytest

from treefarm.optimizers.variation import crossover, mutate, neighbours, option_swaps
from treefarm.space import Choice, Int, Join, Real, Var, convert, op, sample, validate

FLAT = convert({"x": Real(-5, 5), "n": Int(1, 8), "act": Choice("relu", "tanh", "gelu")})
COND = convert(
    {
        "C": Real(1e-3, 1e3, log=True),
        "kernel": Join(rbf={"gamma": Real(1e-4, 1.0, log=True)}, poly={"degree": Int(2, 5)}, linear={}),
    }
)


def _grammar():
    G = Var("G", max_depth=5)
    G.define(op(operator.add, name="add")(G, G) | op(operator.mul, name="mul")(G, G) | Int(1, 9))
    return G


def test_mutation_changes_exactly_one_decision_of_a_flat_config() -> None:
    rng = np.random.default_rng(0)
    for parent in sample(FLAT, rng, n=50):
        child = mutate(FLAT, parent, rng)
        changed = [k for k in parent if parent[k] != child[k]]
        assert len(changed) == 1
        validate(FLAT, child)


def test_numeric_mutation_is_a_local_step() -> None:
    rng = np.random.default_rng(1)
    space = convert({"x": Real(0, 100)})
    parent = sample(space, rng)
    parent = type(parent)({"x": 50.0})
    steps = np.array([mutate(space, parent, rng, scale=0.1)["x"] - 50.0 for _ in range(2000)])
    assert abs(np.std(steps) - 10.0) < 1.0


def test_integer_mutation_always_moves() -> None:
    rng = np.random.default_rng(2)
    space = convert({"n": Int(1, 3)})
    for parent in sample(space, rng, n=30):
        assert mutate(space, parent, rng, scale=0.01)["n"] != parent["n"]


def test_changing_a_branch_regrows_its_subtree() -> None:
    rng = np.random.default_rng(3)
    switched = 0
    for parent in sample(COND, rng, n=100):
        child = mutate(COND, parent, rng)
        validate(COND, child)
        if child["kernel"] != parent["kernel"]:
            switched += 1
            assert child["C"] == parent["C"]
    assert switched > 20


@pytest.mark.parametrize("space", [FLAT, COND, _grammar()], ids=["flat", "conditional", "recursive"])
def test_neighbours_are_valid_and_reproducible(space) -> None:
    parents = sample(space, 0, n=5)
    a = neighbours(space, parents, 40, np.random.default_rng(7))
    b = neighbours(space, parents, 40, np.random.default_rng(7))
    assert a == b
    for c in a:
        validate(space, c)


def test_crossover_grafts_a_subtree_of_the_second_parent() -> None:
    G = _grammar()
    rng = np.random.default_rng(4)
    first, second = sample(G, rng, n=2)

    def grafted_at(child, root: str) -> bool:
        def under(k: str) -> bool:
            return k == root or k.startswith(root + ".")

        donor = all(child.get(k) == v for k, v in second.items() if under(k))
        rest = all(child[k] == first[k] for k in child if not under(k) and k in first)
        return donor and rest

    changed = 0
    for _ in range(30):
        child = crossover(G, first, second, rng)
        validate(G, child)
        assert any(grafted_at(child, root) for root in second)
        changed += child != first
    assert changed > 10


FLAT_SPACES = [
    {f"x{i}": Real(-5, 5) for i in range(6)},
    {
        "lr": Real(1e-5, 1e-1, log=True),
        "n": Int(1, 100),
        "k": Int(2, 3),
        "c": Choice("a", "b", "c"),
        "opt": {"m": Real(0, 1), "b": Int(1, 1000, log=True)},
    },
    Real(0, 1),
]


@pytest.mark.parametrize("space", FLAT_SPACES)
@pytest.mark.parametrize("seed", range(4))
def test_flat_neighbours_are_the_walks_neighbours(space, seed, monkeypatch) -> None:
    """The dictionary fast path for flat spaces makes the same candidates, in
    the same key order, from the same draws, as mutation and crossover by walks."""
    import treefarm.optimizers.variation as variation

    root = convert(space)
    parents = sample(root, np.random.default_rng(seed), n=5)
    for k in (1, 2, 5):
        fast_rng, walk_rng = np.random.default_rng(seed), np.random.default_rng(seed)
        fast = neighbours(root, parents[:k], 64, fast_rng)
        with monkeypatch.context() as patch:
            patch.setattr(variation, "_flat_nodes", lambda space: None)
            walked = neighbours(root, parents[:k], 64, walk_rng)
        assert [c.to_json() for c in fast] == [c.to_json() for c in walked]
        assert fast_rng.random() == walk_rng.random()


def test_option_swaps_keep_every_decision_but_one_join_and_borrow_the_new_branchs() -> None:
    """The incumbent's settings on each other branch: C stays, the join takes each
    other option once, and a decision only the new branch has comes from the best
    donor that has it (the prior only where none does)."""
    parent = validate(COND, {"C": 3.0, "kernel": "rbf", "kernel.rbf.gamma": 0.01})
    donors = [
        validate(COND, {"C": 50.0, "kernel": "poly", "kernel.poly.degree": 4}),
        validate(COND, {"C": 0.1, "kernel": "poly", "kernel.poly.degree": 2}),
    ]
    swaps = option_swaps(COND, parent, donors, np.random.default_rng(0))
    assert swaps == [
        validate(COND, {"C": 3.0, "kernel": "poly", "kernel.poly.degree": 4}),
        validate(COND, {"C": 3.0, "kernel": "linear"}),
    ]
    drawn = option_swaps(COND, parent, [], np.random.default_rng(0))[0]
    assert drawn["kernel"] == "poly" and drawn["C"] == 3.0 and 2 <= drawn["kernel.poly.degree"] <= 5
    assert option_swaps(FLAT, sample(FLAT, np.random.default_rng(0)), [], np.random.default_rng(0)) == []


def test_option_swaps_cover_every_join_a_configuration_visits() -> None:
    nested = convert({"model": Join(a={"inner": Join(x={}, y={}, z={})}, b={})})
    parent = validate(nested, {"model": "a", "model.a.inner": "x"})
    swaps = option_swaps(nested, parent, [], np.random.default_rng(0))
    assert [dict(s) for s in swaps] == [
        {"model": "b"},
        {"model": "a", "model.a.inner": "y"},
        {"model": "a", "model.a.inner": "z"},
    ]
