"""The cell-search example: its graph reuses a node's value, its tree cannot, and a short search improves the loss."""

from __future__ import annotations

import treefarm as tf
from tests.test_examples import load


def test_graph_reuses_a_node_and_search_improves_on_the_features_alone() -> None:
    ex = load("cell_search")
    config = tf.Config(
        {
            "@node3": "mul",
            "@node3.mul.0": "node2",
            "@node2": "add",
            "@node2.add.0": "node1",
            "@node1": "mul",
            "@node1.mul.0": "bmi",
            "@node1.mul.1": "s5",
            "@node2.add.1": "bp",
            "@node3.mul.1": "node1",
        }
    )
    expr = tf.build(ex.graph, config)
    assert ex.text(expr) == "(((bmi * s5) + bp) * (bmi * s5))"
    assert expr[1][1] is expr[2]  # one shared value, read by two nodes
    result = tf.minimize(ex.objective, ex.graph, algo="grammar", max_evals=15, seed=0, storage=None)
    assert result.best_value < 2993.0
