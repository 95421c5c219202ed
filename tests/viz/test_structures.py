"""Best structures of a grammar: expressions rendered without the space, depth and value."""

from __future__ import annotations

import operator

import treefarm as tf
from treefarm.space import canonical
from treefarm.viz import StudyData, best_structures, config_expression, plot_structures, trial_expression
from treefarm.viz.structures import term_expression

from .records import record

F = tf.op(operator.add, name="f")


def grammar() -> tf.Var:
    g = tf.Var("G", max_depth=4)
    g.define(F(g, g) | tf.Int(1, 9))
    return g


def nesting(text: str) -> int:
    """The deepest bracket nesting of ``text``."""
    depth = deepest = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        deepest = max(deepest, depth)
    return deepest


def test_an_expression_is_read_from_the_configuration_addresses() -> None:
    config = {"G": "f", "G.f.0": "1", "G.f.0.1": 3, "G.f.1": "f", "G.f.1.f.0": "1", "G.f.1.f.0.1": 4}
    config |= {"G.f.1.f.1": "1", "G.f.1.f.1.1": 5}
    assert config_expression(config) == ("f(3, f(4, 5))", 2)
    assert tf.build(grammar(), config) == 12
    assert config_expression({"lr": 0.1, "kernel": "poly", "kernel.poly.degree": 3}) == (
        "kernel=poly(degree=3), lr=0.1",
        1,
    )


def test_every_sampled_grammar_config_renders_with_its_depth() -> None:
    g = grammar()
    for seed in range(20):
        config = tf.sample(g, seed)
        text, depth = config_expression(dict(config))
        assert eval(text, {"f": operator.add}) == tf.build(g, config)
        assert depth == nesting(text)


def test_the_stored_canonical_term_is_preferred() -> None:
    g = tf.Var("G", max_depth=3)
    add = tf.op(operator.add, name="add", commutative=True)
    g.define(add(g, g) | tf.Int(1, 9))
    config = {"G": "add", "G.add.0": "1", "G.add.0.1": 7, "G.add.1": "1", "G.add.1.1": 2}
    trial = record(0, 1.0, config, system_attrs={"canonical": canonical(g, config)})
    assert trial_expression(trial) == ("add(2, 7)", 1)


def test_best_structures_are_distinct_and_best_first() -> None:
    trials = [
        record(0, 3.0, {"G": "1", "G.1": 3}),
        record(1, 1.0, {"G": "f", "G.f.0": "1", "G.f.0.1": 1, "G.f.1": "1", "G.f.1.1": 2}),
        record(2, 1.0, {"G": "f", "G.f.0": "1", "G.f.0.1": 1, "G.f.1": "1", "G.f.1.1": 2}),
        record(3, 2.0, {"G": "1", "G.1": 5}),
    ]
    rows = best_structures(trials, direction="minimize", k=5)
    assert [(r.number, r.expression, r.depth, r.value) for r in rows] == [
        (1, "f(1, 2)", 1, 1.0),
        (3, "5", 0, 2.0),
        (0, "3", 0, 3.0),
    ]
    fig = plot_structures(StudyData("g", "minimize", trials))
    table = fig.axes[0].tables[0]
    assert table[1, 4].get_text().get_text() == "f(1, 2)" and table[1, 3].get_text().get_text() == "1"


def test_a_canonical_term_with_non_literal_leaves_still_renders() -> None:
    text = "('apply', 'add', (('apply', 'mul', (('apply', 'const', (-0.5,)), x0)), x1))"
    assert term_expression(text) == ("add(mul(const(-0.5), x0), x1)", 3)
    assert term_expression("not a (term") == ("not a (term", 0)
