"""The unit-cube encoding round-trips configurations and decodes any vector to a valid one."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import treefarm as tf
from treefarm.encoding import INACTIVE, UnitEncoding
from treefarm.exceptions import SpaceError

SPACE = {
    "lr": tf.Real(1e-5, 1e-1, log=True),
    "n": tf.Int(1, 8),
    "width": tf.Int(16, 1024, log=True),
    "act": tf.Choice("relu", "tanh", "gelu"),
    "model": tf.Join(
        svm={"C": tf.Real(1e-3, 1e3, log=True), "kernel": tf.Choice("rbf", "poly")},
        tree={"depth": tf.Int(1, 10)},
    ),
}
ENC = UnitEncoding(SPACE)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_encode_decode_round_trip(seed: int) -> None:
    config = tf.sample(SPACE, seed)
    X, A = ENC.encode([config])
    assert np.all((X[A] >= 0) & (X[A] <= 1)) and np.all(X[~A] == INACTIVE)
    back = ENC.decode(X[0])
    assert set(back) == set(config)
    for key, value in config.items():
        assert back[key] == (pytest.approx(value, rel=1e-9) if isinstance(value, float) else value)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1, 2), min_size=ENC.dim, max_size=ENC.dim))
def test_any_vector_decodes_to_a_valid_config(values: list[float]) -> None:
    config = ENC.decode(np.array(values))
    assert tf.validate(SPACE, config) == config


def test_column_layout_and_masks() -> None:
    assert [c.address for c in ENC.columns].count("act") == 3
    assert ENC.integer_levels()[ENC.start["n"]] == 8
    assert ENC.integer_levels()[ENC.start["width"]] == 0  # log integers stay continuous
    assert [list(g) for g in ENC.categorical_groups()] == [[3, 4, 5], [6, 7], [9, 10]]
    svm = tf.validate(
        SPACE, {"lr": 0.01, "n": 2, "width": 64, "act": "relu", "model": "tree", "model.tree.depth": 3}
    )
    _, A = ENC.encode([svm])
    assert not A[0, ENC.start["model.svm.C"]] and A[0, ENC.start["model.tree.depth"]]


def test_recursive_spaces_are_refused_with_a_clear_error() -> None:
    G = tf.Var("G")
    G.define(tf.op(max)(G, G) | tf.Int(0, 3))
    with pytest.raises(SpaceError, match="recursive space"):
        UnitEncoding(G)


def test_encoding_from_the_configs_of_a_recursive_space() -> None:
    G = tf.Var("G", max_depth=4)
    G.define(tf.op(max, name="mx")(G, G) | tf.Real(0, 1))
    configs = tf.sample(G, 0, n=20)
    enc = UnitEncoding.for_configs(G, configs)
    X, A = enc.encode(configs)
    assert X.shape == (20, enc.dim) and A.any(axis=0).all()
    for x, c in zip(X, configs):
        assert enc.decode(x) == c
    unseen = next(c for c in tf.sample(G, 1, n=200) if set(c) - set(enc.start))
    X2, _ = enc.encode([unseen])
    assert X2.shape == (1, enc.dim)


FLAT = {
    "lr": tf.Real(1e-5, 1e-1, log=True),
    "x": tf.Real(-2.0, 3.0),
    "n": tf.Int(1, 8),
    "width": tf.Int(16, 1024, log=True),
    "act": tf.Choice("relu", "tanh", "gelu"),
    "only": tf.Choice("adam"),
}
FLAT_ENC = UnitEncoding(FLAT)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.floats(-1, 2), min_size=FLAT_ENC.dim, max_size=FLAT_ENC.dim), min_size=1, max_size=5)
)
def test_flat_spaces_decode_and_encode_by_columns_as_one_by_one(rows: list[list[float]]) -> None:
    """The array path of a flat space gives the configurations and vectors of the general walk."""
    assert FLAT_ENC.flat and not ENC.flat
    X = np.array(rows)
    configs = FLAT_ENC.decode_many(X)
    one_config_at_a_time = [FLAT_ENC.decode(x) for x in X]
    for config, single in zip(configs, one_config_at_a_time, strict=True):
        assert config.keys() == single.keys()
        for address, value in config.items():
            if isinstance(value, float):  # the array path rounds in another order: equal to 1e-12
                assert math.isclose(value, single[address], rel_tol=1e-12, abs_tol=1e-12), address
            else:
                assert value == single[address], address
    assert all(tf.validate(FLAT, c) == c for c in configs)
    encoded, mask = FLAT_ENC.encode(configs)
    one_by_one = np.vstack([FLAT_ENC.encode([c])[0] for c in configs])
    np.testing.assert_allclose(encoded, one_by_one, rtol=0, atol=1e-12)
    assert mask.all() and encoded.shape == (len(rows), FLAT_ENC.dim)


def test_a_choice_of_one_value_has_no_column_and_decodes_to_its_value() -> None:
    config = tf.validate(FLAT, {"lr": 0.01, "x": 0.0, "n": 2, "width": 64, "act": "relu", "only": "adam"})
    X, _ = FLAT_ENC.encode([config])
    assert "only" not in [c.address for c in FLAT_ENC.columns]
    assert FLAT_ENC.decode(X[0])["only"] == "adam" == FLAT_ENC.decode_many(X)[0]["only"]
    mixed = {**FLAT, "model": SPACE["model"]}
    enc = UnitEncoding(mixed)
    tree = tf.validate(mixed, {**config, "model": "tree", "model.tree.depth": 3})
    back = enc.decode(enc.encode([tree])[0][0])
    assert (back["only"], back["model"], back["model.tree.depth"]) == ("adam", "tree", 3)
