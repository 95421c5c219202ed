"""The semiring laws of join and product, on the extensions of random finite spaces."""

from __future__ import annotations

import operator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treefarm.exceptions import SpaceError
from treefarm.space import Choice, Const, Family, Int, Join, op, sample
from treefarm.space.nodes import Space, product

from .helpers import extension

leaves = st.one_of(
    st.integers(0, 3).map(Const),
    st.lists(st.integers(0, 4), min_size=1, max_size=3, unique=True).map(lambda v: Choice(*v)),
    st.integers(0, 2).map(lambda lo: Int(lo, lo + 1)),
)
families = leaves.map(lambda s: Family((s,))) | st.dictionaries(
    st.sampled_from("abc"), leaves, min_size=1, max_size=2
).map(lambda d: Family((), d))


def _grow(children: st.SearchStrategy[Space]) -> st.SearchStrategy[Space]:
    return st.one_of(
        st.tuples(children, children).map(lambda p: p[0] | p[1]),
        st.tuples(children, children).map(lambda p: _safe_product(*p)),
    )


def _safe_product(a: Space, b: Space) -> Space:
    try:
        return product(a, b)
    except SpaceError:
        return a | b


spaces = st.recursive(families, _grow, max_leaves=4)
common = settings(max_examples=60, deadline=None)


@common
@given(spaces, spaces, spaces)
def test_join_is_associative(a: Space, b: Space, c: Space) -> None:
    assert extension((a | b) | c) == extension(a | (b | c))


@common
@given(spaces, spaces)
def test_join_is_commutative_and_idempotent(a: Space, b: Space) -> None:
    assert extension(a | b) == extension(b | a)
    assert extension(a | a) == extension(a)


@common
@given(spaces)
def test_empty_join_is_the_identity_of_join(a: Space) -> None:
    assert extension(Join() | a) == extension(a) == extension(a | Join())


@common
@given(spaces)
def test_empty_family_is_the_identity_of_product(a: Space) -> None:
    assert extension(product(Family(), a)) == extension(a) == extension(product(a, Family()))


@common
@given(families, families, families)
def test_product_is_associative(a: Space, b: Space, c: Space) -> None:
    try:
        left = product(product(a, b), c)
    except SpaceError:
        return
    assert extension(left) == extension(product(a, product(b, c)))


@common
@given(spaces, spaces, spaces)
def test_product_distributes_over_join(a: Space, b: Space, c: Space) -> None:
    try:
        left = product(a, b | c)
        right = product(a, b) | product(a, c)
    except SpaceError:
        return
    assert extension(left) == extension(right)
    assert extension(product(b | c, a)) == extension(product(b, a) | product(c, a))


@common
@given(spaces)
def test_empty_join_annihilates_product(a: Space) -> None:
    for p in (product(a, Join()), product(Join(), a)):
        assert isinstance(p, Join) and p.options == ()
        with pytest.raises(SpaceError, match="no instance"):
            sample(p, 0)


def test_nested_joins_flatten_without_changing_the_extension() -> None:
    a, b, c = Const(1), Choice(2, 3), Const(4)
    nested = (a | b) | c
    assert len(nested.options) == 3
    assert extension(nested) == extension(Join(a, b, c)) == frozenset({1, 2, 3, 4})


add = op(operator.add, name="add")
sub = op(operator.sub, name="sub")


@common
@given(families.filter(lambda f: len(f) == 1), families.filter(lambda f: len(f) == 1))
def test_application_distributes_over_join(a: Family, b: Family) -> None:
    x, y = a.children()[0], b.children()[0]
    assert extension(add(x | y, 1)) == extension(add(x, 1) | add(y, 1))
    assert extension((add | sub)(x, y)) == extension(add(x, y) | sub(x, y))
