"""Expression equality under the rules ops declare; a study never evaluates one expression twice."""

from __future__ import annotations

import operator

import treefarm as tf
from treefarm.space import canonical, has_rules

add = tf.op(operator.add, name="add", commutative=True, associative=True, identity=0)
sub = tf.op(operator.sub, name="sub")
mx = tf.op(max, name="mx", commutative=True, associative=True, idempotent=True)


def expr(space: object, config: dict) -> str:
    return canonical(space, tf.validate(space, config))


def test_commutative_associative_identity() -> None:
    space = add(add(tf.Int(0, 5), tf.Int(0, 5)), tf.Int(0, 5))
    a = expr(space, {"0.0": 1, "0.1": 2, "1": 3})
    assert a == expr(space, {"0.0": 3, "0.1": 1, "1": 2}) == expr(space, {"0.0": 2, "0.1": 3, "1": 1})
    assert expr(space, {"0.0": 0, "0.1": 2, "1": 3}) == expr(
        add(tf.Int(0, 5), tf.Int(0, 5)), {"0": 3, "1": 2}
    )
    assert a != expr(space, {"0.0": 1, "0.1": 2, "1": 4})


def test_idempotent_and_rule_free_ops() -> None:
    assert expr(mx(tf.Int(0, 3), tf.Int(0, 3)), {"0": 2, "1": 2}) == "2"
    s = sub(tf.Int(0, 3), tf.Int(0, 3))
    assert expr(s, {"0": 1, "1": 2}) != expr(s, {"0": 2, "1": 1})
    assert has_rules(add(1, 2)) and not has_rules(s)


def test_study_never_evaluates_one_expression_twice() -> None:
    G = tf.Var("G", max_depth=3)
    G.define(add(G, G) | tf.Choice(1, 2))
    n_distinct = len({canonical(G, c) for c in tf.enumerate_configs(G)})
    evaluated: list[int] = []

    def objective(value: int) -> float:
        evaluated.append(value)
        return float(value)

    assert n_distinct == 14 and len(list(tf.enumerate_configs(G))) == 38
    study = tf.Study.create(space=G, seed=0)
    study.optimize(objective, 10)
    keys = [t.system_attrs["canonical"] for t in study.trials]
    assert len(set(keys)) == len(keys) == 10
