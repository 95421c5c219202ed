"""The value a join of dicts builds knows its option, and is otherwise the plain dict it was."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np

import treefarm as tf

OPTIMIZER = tf.Join(adam={}, sgd={"momentum": tf.Real(0.0, 0.99)})


def test_the_built_dict_names_its_option() -> None:
    space = {"lr": tf.Real(1e-4, 1e-1, log=True), "optimizer": OPTIMIZER}
    sgd = tf.build(space, {"lr": 0.01, "optimizer": "sgd", "optimizer.sgd.momentum": 0.9})["optimizer"]
    adam = tf.build(space, {"lr": 0.01, "optimizer": "adam"})["optimizer"]
    assert (sgd.option, dict(sgd)) == ("sgd", {"momentum": 0.9})
    assert (adam.option, dict(adam)) == ("adam", {})
    assert isinstance(sgd, dict) and sgd == {"momentum": 0.9}  # still the dict it was
    assert tf.space.params(space, {"lr": 0.01, "optimizer": "adam"})["optimizer"].option == "adam"


def test_it_serializes_copies_and_pickles_as_a_dict_with_its_option() -> None:
    value = tf.build(OPTIMIZER, {"_": "sgd", "sgd.momentum": 0.5})
    assert json.dumps(value) == '{"momentum": 0.5}'
    for twin in (pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)):
        assert twin == value and twin.option == "sgd" and type(twin) is tf.Chosen
    assert repr(value) == "Chosen('sgd', {'momentum': 0.5})"


def test_options_building_other_values_are_unchanged() -> None:
    join = tf.Join(small=tf.Real(0.0, 1.0), pair=(tf.Int(1, 3), 4), named=tf.Choice("a", "b"))
    rng = np.random.default_rng(0)
    for _ in range(20):
        value = tf.build(join, tf.sample(join, rng))
        assert type(value) in (float, tuple, str), value
    assert tf.build(tf.Join(a=(), b=(1,)), {"_": "a"}) == ()  # an empty tuple option stays a tuple
