"""TPE in long studies of recursive spaces: a model narrowed onto what was
already tried gives way to the prior, and its pooled columns are kept."""

from __future__ import annotations

import operator

import numpy as np

from treefarm import Config, History, Observation, Var, op, sample
from treefarm.optimizers.tpe import TPE
from treefarm.optimizers.tpe.pooled import node_columns
from treefarm.optimizers.unseen import unseen
from treefarm.space import convert, trace

add = op(operator.add, name="add", commutative=True, associative=True)
neg = op(operator.neg, name="neg")


def _grammar() -> Var:
    G = Var("G", max_depth=6)
    G.define(add(G, G) | neg(G) | 1)
    return G


def _leaf(G: Var) -> Config:
    return next(c for c in sample(G, np.random.default_rng(0), n=200) if len(c) == 1)


def test_a_model_that_only_repeats_gives_way_to_a_prior_draw_in_a_large_space() -> None:
    G = convert(_grammar())
    leaf, rng = _leaf(G), np.random.default_rng(1)
    found = unseen(G, lambda: leaf, [leaf], rng, explore=lambda: sample(G, rng))
    assert found != leaf
    assert unseen(G, lambda: leaf, [leaf], rng) == leaf, "without a prior to explore, the repeat is returned"


def test_tpe_on_a_grammar_proposes_a_new_expression_when_its_good_trials_are_one_seen_point() -> None:
    """The one-leaf expression evaluated twelve times (enqueued again and again) at
    the best loss fills the good trials: every candidate the model draws is that
    seen leaf, and the suggestion is a new expression all the same."""
    G = _grammar()
    leaf = _leaf(G)
    others = [c for c in sample(G, np.random.default_rng(2), n=300) if c != leaf][:40]
    history = History([*(Observation(leaf, 0.0) for _ in range(12)), *(Observation(c, 1.0 + i) for i, c in enumerate(others))])
    seen = {leaf, *others}
    for seed in range(5):
        suggested = TPE().suggest(G, history, 3, np.random.default_rng(seed))
        assert not seen & set(suggested), f"seed {seed}: TPE repeated a configuration it was told of"
        assert len(set(suggested)) == 3


def test_pooled_columns_hold_each_nodes_values_at_every_position_and_skip_what_the_space_refuses() -> None:
    G = convert(_grammar())
    configs = sample(G, np.random.default_rng(3), n=30)
    refused = Config({"G": "nonsense"})
    columns = node_columns(G, [*configs, refused])
    expected: dict[int, list[object]] = {}
    for config in configs:
        for address, node in trace(G, config):
            expected.setdefault(id(node), []).append(config[address])
    assert columns == expected
    assert node_columns(G, configs) == expected, "a second call, from the kept walks, is the same"
