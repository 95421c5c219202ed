"""Families: product, rename, projection, repr in the thesis's notation."""

from __future__ import annotations

from treefarm.space import Args, Choice, Family, I, Join, R, Real, build, convert, sample


def test_product_shifts_positions_and_copies_keywords() -> None:
    a = Family((Real(0, 1),), {"beta": Real(0, 1)})
    c = Family((Choice(1, 2),), {"delta": Choice(3, 4)})
    p = a * c
    assert isinstance(p, Family)
    assert [k for k, _ in p.members()] == ["0", "1", "beta", "delta"]
    value = build(p, sample(p, 0))
    assert isinstance(value, Args) and len(value.args) == 2 and set(value.kwargs) == {"beta", "delta"}


def test_rename_and_projection() -> None:
    fam = convert((R[0:1], I[1:3], Choice("x")))
    renamed = fam.rename({1: "a"})
    assert [k for k, _ in renamed.members()] == ["0", "1", "a"]
    assert renamed.project("a") is fam.project(1)
    sub = fam.project(0, 2)
    assert isinstance(sub, Family) and len(sub) == 2


def test_lists_tuples_and_dicts_build_their_own_types() -> None:
    space = {"layers": [I[1:3], I[1:3]], "pair": (R[0:1], "const"), "n": 5}
    value = build(space, sample(space, 1))
    assert isinstance(value["layers"], list) and isinstance(value["pair"], tuple)
    assert value["pair"][1] == "const" and value["n"] == 5


def test_repr_reads_like_the_notation() -> None:
    assert repr(R[-10:10]) == "R[-10:10]"
    assert repr(R[1e-5:1:"log"]) == "R[1e-05:1:log]"
    assert repr(I[1:5]) == "I[1:5]"
    assert repr(convert([R[0:1], I[1:2]])) == "[R[0:1], I[1:2]]"
    assert repr(convert({"a": R[0:1]}) | Choice(1, 2)) == "({'a': R[0:1]} | Choice(1, 2))"
    assert repr(Join(svm=1, rf=2)) == "Join(svm=1, rf=2)"
