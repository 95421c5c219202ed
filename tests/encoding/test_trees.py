"""Narrowed encodings of derivation trees keep every distance the full encoding has."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import treefarm as tf
from treefarm.encoding import TreeColumns, UnitEncoding
from treefarm.encoding.trees import n_columns

add = tf.op(operator.add, name="add")
neg = tf.op(operator.neg, name="neg")
E = tf.Var("E", max_depth=5)
E.define(add(E, E) | neg(E) | tf.Real(-1.0, 1.0) | tf.Choice("x", "y", "z") | tf.Choice("one"))


def _squared(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8), st.integers(1, 8))
def test_distances_to_the_covered_rows_are_the_full_encodings(seed: int, n_base: int, n_other: int) -> None:
    configs = tf.sample(E, seed, n=n_base + n_other)
    base, others = configs[:n_base], configs[n_base:]
    full = UnitEncoding.for_configs(E, configs)
    trees = TreeColumns(E, configs)
    narrow = trees.encoding(base)
    Xb, _ = trees.encode(narrow, base)
    Xo, Ao = trees.encode(narrow, others)
    Fb, _ = full.encode(base)
    Fo, _ = full.encode(others)
    assert narrow.dim <= full.dim and trees.width == full.dim
    np.testing.assert_allclose(_squared(Xo, Xb), _squared(Fo, Fb), rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(_squared(Xb, Xb), _squared(Fb, Fb), rtol=1e-12, atol=1e-9)
    assert np.all(Xb[:, -1] == 0.0) and not Ao[:, -1].any()


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_configuration_covered_by_the_encoding_decodes_to_itself(seed: int) -> None:
    configs = tf.sample(E, seed, n=4)
    trees = TreeColumns(E, configs)
    narrow = trees.encoding(configs[:2])
    X, _ = trees.encode(narrow, configs[:2])
    for x, config in zip(X, configs[:2]):
        assert x[-1] == 0.0
        back = narrow.decode(x[:-1])
        assert back.keys() == config.keys()
        for address, value in config.items():
            assert back[address] == (pytest.approx(value, rel=1e-9) if isinstance(value, float) else value)


def test_columns_per_decision_are_the_unit_encodings() -> None:
    configs = tf.sample(E, 0, n=20)
    trees = TreeColumns(E, configs)
    full = UnitEncoding.for_configs(E, configs)
    starts = [*full.start.values(), full.dim]
    for i, address in enumerate(full.start):
        assert n_columns(trees.nodes[address]) == starts[i + 1] - starts[i], address


def test_a_configuration_met_later_is_traced_when_needed() -> None:
    first, later = tf.sample(E, 1, n=2)
    trees = TreeColumns(E, [first])
    narrow = trees.encoding([first, later])
    assert set(later.keys()) <= set(narrow.start)
