"""Recursive spaces: grammars with a depth bound, never an infinite loop."""

from __future__ import annotations

import operator

import numpy as np
import pytest

from treefarm.exceptions import ConfigError, SpaceError
from treefarm.space import Choice, Const, Join, Var, build, enumerate_configs, op, sample, size, validate

add = op(operator.add, name="add")
mul = op(operator.mul, name="mul")


def tree(a: object, b: object) -> tuple[object, object]:
    return (a, b)


f = op(tree, name="f")


def depth(value: object) -> int:
    return 1 + max(depth(v) for v in value) if isinstance(value, tuple) else 0


def test_grammar_builds_trees_within_the_depth_bound() -> None:
    G = Var("G", max_depth=4)
    G.define(f(G, G) | Const("A"))
    rng = np.random.default_rng(0)
    depths = [depth(build(G, sample(G, rng))) for _ in range(2000)]
    assert max(depths) == 3  # four expansions of G: three levels of f above the leaves
    assert min(depths) == 0
    assert len(set(depths)) == 4


def test_bound_forces_only_finishing_options_at_the_limit() -> None:
    G = Var("G", max_depth=1)
    G.define(f(G, G) | Const("A"))
    assert {build(G, c) for c in enumerate_configs(G)} == {"A"}


def test_size_and_enumeration_of_a_bounded_grammar_agree() -> None:
    G = Var("G", max_depth=3)
    G.define(f(G, G) | Choice(1, 2))
    n = size(G)
    # s(1) = 2, s(d) = 2 + s(d-1)^2: s(2) = 6, s(3) = 38.
    assert n == 38
    configs = list(enumerate_configs(G))
    assert len(configs) == len(set(configs)) == 38


def test_recursion_without_a_way_out_is_an_error_at_definition() -> None:
    G = Var("G")
    with pytest.raises(SpaceError, match="variable 'G' has no non-recursive way out"):
        G.define(f(G, G))
    assert not G.defined
    # a way out of weight 0 is never drawn: sampling raised a bare StopIteration at the depth bound
    H = Var("H", max_depth=3)
    with pytest.raises(SpaceError, match="variable 'H' has no non-recursive way out"):
        H.define(Join(f(H, H), leaf=Const(1), weights=[1, 0]))
    assert not H.defined


def test_mutual_recursion_is_checked_once_both_are_defined() -> None:
    A, B = Var("A"), Var("B")
    A.define(f(B, B) | Const(0))
    B.define(f(A, Const(1)))
    values = {build(A, sample(A, s)) for s in range(50)}
    assert 0 in values and any(v != 0 for v in values)
    C, D = Var("C"), Var("D")
    C.define(f(D, D))  # fine alone: D is not defined yet
    with pytest.raises(SpaceError, match="no non-recursive way out"):
        D.define(f(C, Const(1)))  # now neither C nor D can finish
    assert not D.defined


def test_undefined_variable_is_a_clear_error() -> None:
    G = Var("G")
    with pytest.raises(SpaceError, match="variable 'G' is used but was never defined"):
        sample(f(G, Const(1)), 0)


def test_deep_bound_does_not_hit_python_recursion_limit() -> None:
    G = Var("G", max_depth=60)
    G.define(add(G, Const(1)) | Const(0))
    for seed in range(30):
        cfg = sample(G, seed)
        assert build(G, cfg) >= 0


def test_thesis_notation_and_readable_addresses() -> None:
    G = Var("G", max_depth=3)
    G << (add(G, G) | mul(G, G) | Choice(1, 2, 3))
    cfg = validate(
        G,
        {
            "G": "add",
            "G.add.0": "2",
            "G.add.0.2": 3,
            "G.add.1": "mul",
            "G.add.1.mul.0": "2",
            "G.add.1.mul.0.2": 2,
            "G.add.1.mul.1": "2",
            "G.add.1.mul.1.2": 1,
        },
    )
    assert build(G, cfg) == 3 + 2 * 1
    assert repr(G.body) == "(add(G, G) | mul(G, G) | Choice(1, 2, 3))"


def test_config_beyond_the_bound_is_rejected() -> None:
    G = Var("G", max_depth=2)
    G.define(f(G, G) | Const("A"))
    deep = {"G": "f", "G.f.0": "f", "G.f.0.f.0": "A", "G.f.0.f.1": "A", "G.f.1": "A"}
    with pytest.raises(
        ConfigError, match=r"'f' at G.f.0 cannot finish within the recursion bound max_depth=2"
    ):
        validate(G, deep)


def test_analysis_says_whether_a_space_has_a_choice_or_a_join_anywhere() -> None:
    """What ``auto`` dispatches on: numbers and constants only, or a choice / join at any depth."""
    from treefarm import Int, Join, Real
    from treefarm.space import analyze, convert

    assert not analyze(convert({"x": Real(0, 1), "n": Int(1, 5), "tag": "fixed"})).choices
    assert analyze(convert({"x": Real(0, 1), "c": Choice("a", "b")})).choices
    assert analyze(convert({"x": Real(0, 1), "opt": Join(sgd={"m": Real(0, 1)}, adam={"b": 0.9})})).choices
