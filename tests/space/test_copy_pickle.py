"""Spaces survive copy and pickle (scikit-learn clones them; joblib and fitted models pickle them)."""

from __future__ import annotations

import copy
import operator
import pickle

import treefarm as tf


def _grammar() -> tf.Var:
    add = tf.op(operator.add, name="add")
    G = tf.Var("G", max_depth=4)
    G.define(add(G, G) | tf.Int(1, 9))
    return G


def test_a_copy_of_a_space_is_the_space_itself() -> None:
    space = tf.convert({"lr": tf.Real(1e-4, 1e-1, log=True), "act": tf.Choice("relu", "tanh")})
    assert copy.copy(space) is space
    assert copy.deepcopy({"s": space})["s"] is space


def test_a_pickled_space_builds_the_same_values_from_the_same_configs() -> None:
    for space in (
        tf.convert(
            {
                "C": tf.Real(1e-3, 1e3, log=True),
                "k": tf.Join(rbf={"g": tf.Real(0, 1)}, poly={"d": tf.Int(2, 5)}),
            }
        ),
        _grammar(),
    ):
        restored = pickle.loads(pickle.dumps(space))
        for seed in range(5):
            config = tf.sample(space, seed)
            assert tf.build(restored, config) == tf.build(space, config)
            assert tf.sample(restored, seed) == config
