"""Grammar search: the optimizer contract, no repeated expressions, and better than random on a grammar."""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np
import pytest

from treefarm import Config, History, Int, Join, Observation, Optimizer, Real, Study, Var, op
from treefarm.exceptions import ConfigError
from treefarm.optimizers import make_optimizer
from treefarm.optimizers.base import variant
from treefarm.optimizers.grammar import GrammarSearch, neutral_subtrees
from treefarm.space import canonical, convert, sample
from treefarm.testing.optimizer_suite import OptimizerSuite


class TestGrammarConformance(OptimizerSuite):
    @pytest.fixture
    def optimizer_factory(self) -> Callable[[], Optimizer]:
        return lambda: GrammarSearch(n_startup=3)


def _polynomials() -> Var:
    """Expressions over +, * (commutative, associative), x and the integers 1-3, depth <= 4."""
    add = op(lambda a, b: ("add", a, b), name="add", commutative=True, associative=True)
    mul = op(lambda a, b: ("mul", a, b), name="mul", commutative=True, associative=True)
    E = Var("E", max_depth=4)
    E.define(add(E, E) | mul(E, E) | "x" | Int(1, 3))
    return E


def _value(expr: object, x: np.ndarray) -> np.ndarray:
    if expr == "x":
        return x
    if isinstance(expr, int):
        return np.full_like(x, float(expr))
    assert isinstance(expr, tuple)
    kind, a, b = expr
    return _value(a, x) + _value(b, x) if kind == "add" else _value(a, x) * _value(b, x)


X = np.linspace(-1, 1, 20)
TARGET = X**3 + X**2 + 2 * X


def _loss(expr: object) -> float:
    return float(np.log1p(np.mean((_value(expr, X) - TARGET) ** 2)))


def _run(algo: object, seed: int, budget: int) -> tuple[float, list[str]]:
    space = _polynomials()
    study = Study.create(space=space, algo=algo, seed=seed)  # type: ignore[arg-type]
    best, keys = np.inf, []
    for _ in range(budget):
        trial = study.ask()
        keys.append(canonical(space, trial.config))
        value = _loss(trial.value)
        study.tell(trial, value)
        best = min(best, value)
    return best, keys


def test_registered_as_grammar() -> None:
    assert isinstance(make_optimizer("grammar"), GrammarSearch)


def test_beats_random_search_on_a_polynomial_and_never_repeats_an_expression() -> None:
    ours, others = [], []
    for seed in range(6):
        best, keys = _run(GrammarSearch(), seed, 60)
        assert len(set(keys)) == len(keys)
        ours.append(best)
        others.append(_run("random", seed, 60)[0])
    assert np.median(ours) < np.median(others)


def test_suggestions_avoid_expressions_equal_to_pending_ones() -> None:
    space = _polynomials()
    rng = np.random.default_rng(0)
    history = History(complete=[Observation(c, float(i)) for i, c in enumerate(sample(space, rng, n=12))])
    opt = GrammarSearch(n_startup=3)
    configs = opt.suggest(space, history, 8, np.random.default_rng(1))
    keys = [canonical(space, c) for c in configs]
    old = {canonical(space, c) for c in history.seen()}
    assert len(set(keys)) == 8 and not old & set(keys)


def test_constant_steps_keep_the_structure_of_the_best() -> None:
    add = op(operator.add, name="add")
    E = Var("E", max_depth=3)
    E.define(add(E, E) | Real(-1.0, 1.0))
    best = Config({"E": "add", "E.add.0": "1", "E.add.0.1": 0.5, "E.add.1": "1", "E.add.1.1": -0.2})
    others = sample(E, np.random.default_rng(0), n=6)
    history = History(
        complete=[Observation(best, 0.0), *(Observation(c, 1.0 + i) for i, c in enumerate(others))]
    )
    opt = variant(GrammarSearch, {"p_constants": 1.0}, n_startup=1)
    config = opt.suggest(E, history, 1, np.random.default_rng(2))[0]
    assert set(config) == set(best) and config != best
    assert all(config[a] == best[a] for a in ("E", "E.add.0", "E.add.1"))


def test_bad_options_name_the_option() -> None:
    with pytest.raises(ConfigError, match="gamma"):
        GrammarSearch(gamma=0.0)
    with pytest.raises(ConfigError, match="n_candidates"):
        GrammarSearch(n_candidates=0)
    with pytest.raises(ConfigError, match="digits"):
        GrammarSearch(digits=0)
    with pytest.raises(ConfigError, match="greed=0"):
        variant(GrammarSearch, {"greed": 0})
    with pytest.raises(ConfigError, match=r"p_crossover=1\.5"):
        variant(GrammarSearch, {"p_crossover": 1.5})


def _absorbing() -> Var:
    """Expressions over +, *, x and a zero that absorbs whatever it multiplies."""
    add = op(lambda a, b: ("add", a, b), name="add")
    mul = op(lambda a, b: ("mul", a, b), name="mul")
    E = Var("E", max_depth=4)
    E.define(add(E, E) | mul(E, E) | Join(x="x", zero="zero"))
    return E


def _plateau() -> tuple[Config, list[Observation]]:
    """0 * x, three variations of its factor x at the same loss, and worse trials."""
    best = Config({"E": "mul", "E.mul.0": "zero", "E.mul.1": "x"})
    same = [
        Config({"E": "mul", "E.mul.0": "zero", "E.mul.1": "add", "E.mul.1.add.0": "x", "E.mul.1.add.1": "x"}),
        Config({"E": "mul", "E.mul.0": "zero", "E.mul.1": "mul", "E.mul.1.mul.0": "x", "E.mul.1.mul.1": "x"}),
        Config({"E": "mul", "E.mul.0": "zero", "E.mul.1": "mul", "E.mul.1.mul.0": "zero", "E.mul.1.mul.1": "x"}),
    ]
    worse = [Config({"E": "x"}), Config({"E": "add", "E.add.0": "x", "E.add.1": "x"})]
    complete = [Observation(c, 0.5) for c in same] + [Observation(best, 0.5)]
    complete += [Observation(c, 1.0 + i) for i, c in enumerate(worse)]
    return best, complete


def test_a_subtree_whose_changes_kept_the_loss_is_neutral() -> None:
    best, complete = _plateau()
    assert neutral_subtrees(Observation(best, 0.5), complete) == {"E.mul.1"}
    # a trial differing in both factors says nothing about either
    other = Config({"E": "mul", "E.mul.0": "x", "E.mul.1": "zero"})
    assert neutral_subtrees(Observation(best, 0.5), [Observation(other, 0.5)]) == frozenset()
    # nor does a trial at another loss
    assert neutral_subtrees(Observation(best, 0.5), [Observation(complete[0].config, 0.7)]) == frozenset()
    # nor do two sibling subtrees changed at once: x * 0 and 0 * x are one function, not a neutral product
    swapped = [
        Config({"E": "add", "E.add.0": "mul", "E.add.0.mul.0": "x", "E.add.0.mul.1": "zero", "E.add.1": "x"}),
        Config({"E": "add", "E.add.0": "mul", "E.add.0.mul.0": "zero", "E.add.0.mul.1": "x", "E.add.1": "x"}),
    ]
    assert neutral_subtrees(Observation(swapped[0], 0.5), [Observation(swapped[1], 0.5)]) == frozenset()
    # on a flat space a parameter whose change kept the loss is one
    flat = Observation(Config({"x": 0.5, "y": 1.0}), 2.0)
    assert neutral_subtrees(flat, [Observation(Config({"x": 0.1, "y": 1.0}), 2.0)]) == {"x"}
    assert neutral_subtrees(flat, [Observation(Config({"x": 0.1, "y": 3.0}), 2.0)]) == frozenset()


def test_a_plateau_is_one_parent_and_its_neutral_subtree_is_left_alone() -> None:
    """Four expressions at one loss are one parent, the smallest (0 * x); its
    mutations change the zero or the product, never only the factor x that
    three evaluations showed does not matter."""
    space = _absorbing()
    best, complete = _plateau()
    opt = variant(GrammarSearch, {"p_crossover": 0.0, "greed": 50.0}, n_startup=1, p_prior=0.0)
    parents = opt._parents(convert(space), sorted(complete, key=lambda o: o.loss))
    assert [o.config for o in parents] == [best]  # 3 levels, the good quarter: the plateau, by its smallest
    for seed in range(20):
        child = opt.suggest(space, History(complete=complete), 1, np.random.default_rng(seed))[0]
        assert child.get("E") != "mul" or child.get("E.mul.0") != "zero", child


def test_losses_equal_to_the_stated_digits_are_one_level() -> None:
    """A long RBF kernel whose length moved in the sixth digit of the loss is
    one level, not a better parent: variations that differ only there mark
    the subtree neutral at six digits, not at twelve."""
    best, complete = _plateau()
    nudged = [Observation(o.config, o.loss + 1e-9 * (i + 1)) for i, o in enumerate(complete[:3])] + complete[3:]
    assert neutral_subtrees(Observation(best, 0.5), nudged, digits=6) == {"E.mul.1"}
    assert neutral_subtrees(Observation(best, 0.5), nudged, digits=12) == frozenset()
    space = convert(_absorbing())
    ranked = sorted(nudged, key=lambda o: o.loss)
    assert [o.config for o in GrammarSearch(gamma=0.3, digits=6)._parents(space, ranked)] == [best]
    assert len(GrammarSearch(gamma=0.3, digits=12)._parents(space, ranked)) == 2
