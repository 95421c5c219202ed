"""Production features: the same subtree at two depths shares its features."""

from __future__ import annotations

import operator

from treefarm import Config, Real, Var, op
from treefarm.encoding.productions import feature_matrix, productions


def _grammar() -> Var:
    add = op(operator.add, name="add")
    neg = op(operator.neg, name="neg")
    E = Var("E", max_depth=4)
    E.define(add(E, E) | neg(E) | Real(0.0, 1.0))
    return E


def test_a_subtree_has_the_same_features_at_any_depth() -> None:
    E = _grammar()
    shallow = Config({"E": "neg", "E.neg.0": "2", "E.neg.0.2": 0.9})
    deep = Config(
        {
            "E": "add",
            "E.add.0": "neg",
            "E.add.0.neg.0": "2",
            "E.add.0.neg.0.2": 0.9,
            "E.add.1": "2",
            "E.add.1.2": 0.1,
        }
    )
    a, b = productions(E, shallow), productions(E, deep)
    assert {"'neg'", "neg.0>'2'", "0.2>~3"} <= a
    assert {f for f in a if not f.startswith("E")} <= b


def test_feature_matrix_marks_the_features_of_each_bag() -> None:
    X = feature_matrix([{"a", "b"}, {"c", "zzz"}], {"a": 0, "b": 1, "c": 2})
    assert X.tolist() == [[True, True, False], [False, False, True]]
