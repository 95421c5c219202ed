"""Simulated annealing: the Metropolis rule, a chain replayed from the history, local proposals."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from scipy import stats

from treefarm import Anneal, Choice, Config, History, Int, Join, Observation, Optimizer, Real, Study, Var, op
from treefarm.exceptions import ConfigError
from treefarm.optimizers.anneal import spread
from treefarm.optimizers.anneal_moves import HOIST, WRAP, neighbour
from treefarm.space import convert, sample, validate
from treefarm.testing.optimizer_suite import OptimizerSuite


class TestAnnealConformance(OptimizerSuite):
    @pytest.fixture
    def optimizer_factory(self) -> Callable[[], Optimizer]:
        return lambda: Anneal(n_startup=3)


def test_metropolis_acceptance_frequency() -> None:
    from treefarm.optimizers.anneal import accept

    rng = np.random.default_rng(0)
    delta, temperature = 0.7, 0.5
    hits = sum(accept(delta, temperature, float(u)) for u in rng.random(20_000))
    assert stats.binomtest(hits, 20_000, math.exp(-delta / temperature)).pvalue > 1e-3
    assert accept(-1.0, 1e-9, 0.999)


def test_metropolis_acceptance_through_the_replayed_chain() -> None:
    delta, temperature, n = 0.5, 1.0, 600
    opt = Anneal(T0=temperature, cooling=1.0, n_startup=1)
    complete = [Observation(Config({"x": 0.0}), 0.0)]
    accepted = 0
    for i in range(n):
        state, _ = opt.chain(complete)
        complete.append(Observation(Config({"x": float(i + 1)}), state.loss + delta))
        accepted += opt.chain(complete)[0] is complete[-1]
    assert stats.binomtest(accepted, n, math.exp(-delta / temperature)).pvalue > 1e-3


def test_replayed_chain_equals_the_incremental_one() -> None:
    space = {"x": Real(-3, 3)}
    opt = Anneal(n_startup=4)
    study = Study.create(space=space, algo=opt, seed=0)
    study.optimize(lambda v: (v["x"] - 1) ** 2, n_trials=40)
    complete = list(study.history().complete)
    state, relative = opt.chain(complete[:4])
    assert state.loss == min(o.loss for o in complete[:4]) and relative == 1.0
    for k in range(5, len(complete) + 1):
        proposal = complete[k - 1]
        following, relative = opt.chain(complete[:k])
        assert following in (state, proposal)
        assert proposal.loss > state.loss or following is proposal
        assert relative == pytest.approx(0.95 ** (k - 4))
        state = following
    assert state is opt.chain(complete)[0]


def test_initial_temperature_ignores_a_diverged_evaluation() -> None:
    losses = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 1e6])
    assert 1.0 < spread(losses) < 5.0
    assert spread(np.array([2.0, 2.0, 2.0, 7.0])) == 5.0
    assert spread(np.array([3.0, 3.0])) == 1.0


def test_proposals_are_local_steps_of_the_documented_scale() -> None:
    space = {"x": Real(0, 100)}
    complete = tuple(Observation(Config({"x": float(x)}), float(abs(x - 50))) for x in (50, 10, 90, 30, 70))
    history = History(complete=complete)
    opt = Anneal(n_startup=5, restart=0.0, step=0.1, T0=1.0)
    xs = np.array([opt.suggest(space, history, 1, np.random.default_rng(s))[0]["x"] for s in range(1500)])  # type: ignore[arg-type]
    assert stats.kstest((xs - 50) / 10, "norm").pvalue > 1e-3


def test_each_kind_of_decision_moves_to_a_neighbour() -> None:
    root = convert({"r": Real(1e-3, 1e3, log=True), "i": Int(0, 100), "c": Choice("a", "b", "c", "d")})
    parent = Config({"r": 1.0, "i": 50, "c": "a"})
    rng = np.random.default_rng(0)
    moves = [neighbour(root, parent, rng, scale=0.001, rate=1.0) for _ in range(600)]
    decades = np.log10([m["r"] for m in moves])
    assert stats.kstest(decades / (0.001 * 6), "norm").pvalue > 1e-3
    assert {m["i"] for m in moves} == {49, 51}
    counts = [sum(m["c"] == v for m in moves) for v in "bcd"]
    assert sum(counts) == 600 and stats.chisquare(counts).pvalue > 1e-3


def test_proposals_avoid_pending_and_evaluated_configs() -> None:
    space = {"x": Int(0, 19)}
    complete = tuple(Observation(Config({"x": x}), float(abs(x - 3))) for x in range(5))
    pending = tuple(Config({"x": x}) for x in (1, 2, 4, 5))
    history = History(complete=complete, pending=pending)
    for seed in range(20):
        proposals = Anneal(n_startup=5).suggest(space, history, 3, np.random.default_rng(seed))  # type: ignore[arg-type]
        assert len(set(proposals)) == 3 and not set(proposals) & history.seen()


def test_a_parent_from_an_older_space_is_repaired_first() -> None:
    root = convert({"x": Real(0, 1), "k": Join(a={"u": Real(0, 1)}, b={})})
    parent = Config({"x": 5.0, "k": "c", "k.c.w": 1.0})
    rng = np.random.default_rng(0)
    for _ in range(50):
        config = neighbour(root, parent, rng, scale=0.1, rate=0.5)
        assert validate(root, config) == config


def test_a_changed_branch_regrows_its_subtree_from_the_prior() -> None:
    space = {"m": Join(a={"u": Real(0, 1)}, b={"v": Real(0, 1)})}
    complete = tuple(Observation(Config({"m": "a", "m.a.u": 0.5 + i / 100}), float(i)) for i in range(4))
    opt = Anneal(n_startup=4, rate=1.0)
    proposals = [
        opt.suggest(space, History(complete=complete), 1, np.random.default_rng(s))[0] for s in range(200)
    ]  # type: ignore[arg-type]
    switched = [c for c in proposals if c["m"] == "b"]
    assert switched and all("m.a.u" not in c and 0 <= c["m.b.v"] <= 1 for c in switched)


def test_proposals_on_a_deep_tree_keep_most_of_its_structure() -> None:
    plus = op(lambda a, b: a + b, name="plus")
    tree = Var("T", max_depth=5)
    tree.define(plus(tree, tree) | Join(leaf=Real(0, 1)))
    root = convert(tree)
    rng = np.random.default_rng(0)
    parents = [c for c in sample(root, rng, n=300) if len(c) >= 12][:20]
    kept = [
        len(set(p) & set(neighbour(root, p, rng, scale=0.1, rate=0.5))) / len(p)
        for p in parents
        for _ in range(10)
    ]
    assert np.mean(kept) > 0.7


def _unary_grammar() -> Var:
    plus = op(lambda a, b: a + b, name="plus")
    neg = op(lambda a: -a, name="neg")
    leaf = op(lambda v: v, name="leaf")
    expr = Var("E", max_depth=3)
    expr.define(plus(expr, expr) | neg(expr) | leaf(Real(0, 1)))
    return expr


def test_structural_moves_hoist_and_wrap_subtrees_at_the_documented_rates() -> None:
    root = convert(_unary_grammar())
    parent = Config({"E": "neg", "E.neg.0": "leaf", "E.neg.0.leaf.0": 0.25})
    hoisted = Config({"E": "leaf", "E.leaf.0": 0.25})
    wrapped = Config({"E": "neg", "E.neg.0": "neg", "E.neg.0.neg.0": "leaf", "E.neg.0.neg.0.leaf.0": 0.25})
    rng = np.random.default_rng(0)
    n = 900
    proposals = [neighbour(root, parent, rng, scale=0.1, rate=0.5) for _ in range(n)]
    # a join is forced with probability 2/3; at "E" a hoist with 1/3; at "E.neg.0"
    # the option "neg" (one of two others) and then a wrap with 1/2
    assert stats.binomtest(proposals.count(hoisted), n, 1 / 3 * HOIST).pvalue > 1e-3
    assert stats.binomtest(proposals.count(wrapped), n, 1 / 3 * 1 / 2 * WRAP).pvalue > 1e-3
    grafted = [c for c in proposals if c["E"] == "plus" and 0.25 in c.values()]
    assert grafted and all(c.get("E.plus.0") == "neg" or c.get("E.plus.1") == "neg" for c in grafted)


def _branin(v: dict) -> float:
    x, y = v["x"], v["y"]
    b, c, t = 5.1 / (4 * math.pi**2), 5 / math.pi, 1 / (8 * math.pi)
    return (y - b * x**2 + c * x - 6) ** 2 + 10 * (1 - t) * math.cos(x) + 10


def test_anneal_beats_random_search_on_branin() -> None:
    space = {"x": Real(-5, 10), "y": Real(0, 15)}

    def best(algo: object, seed: int) -> float:
        study = Study.create(space=space, algo=algo, seed=seed)  # type: ignore[arg-type]
        study.optimize(_branin, n_trials=80)
        return study.best_value

    assert np.median([best("anneal", s) for s in range(5)]) < np.median([best("random", s) for s in range(5)])


def test_same_seed_same_study() -> None:
    runs = []
    for _ in range(2):
        study = Study.create(space={"x": Real(-5, 10), "y": Real(0, 15)}, algo="anneal", seed=7)
        study.optimize(_branin, n_trials=30)
        runs.append([t.params for t in study.trials])
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"T0": 0}, "T0"),
        ({"cooling": 1.5}, "cooling"),
        ({"step": -1}, "step"),
        ({"n_startup": 0}, "n_startup"),
    ],
)
def test_bad_options_name_the_parameter(options: dict, name: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Anneal(**options)
