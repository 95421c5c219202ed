"""NSGA-II passes the optimizer conformance suite, improves a two-objective
front over random search, puts feasible trials first, and its operators keep
their textbook properties."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import treefarm as tf
from treefarm import ConfigError, History, Observation, Optimizer
from treefarm.optimizers.nsga2 import NSGA2, polynomial_mutation, sbx_pair, survival_order
from treefarm.pareto import hypervolume
from treefarm.testing.optimizer_suite import OptimizerSuite


class TestNSGA2(OptimizerSuite):
    @pytest.fixture
    def optimizer_factory(self) -> Callable[[], Optimizer]:
        return lambda: NSGA2(population_size=4)


def zdt1(config: tf.Config) -> tuple[float, float]:
    x = np.array([config[f"x{i}"] for i in range(5)])
    g = 1 + 9 * x[1:].mean()
    return float(x[0]), float(g * (1 - np.sqrt(x[0] / g)))


def _run(optimizer: Optimizer, seed: int, n: int = 240, batch: int = 8) -> np.ndarray:
    space = {f"x{i}": tf.Real(0, 1) for i in range(5)}
    complete: list[Observation] = []
    step = 0
    while len(complete) < n:
        rng = np.random.default_rng([seed, step])
        for config in optimizer.suggest(space, History(complete=tuple(complete)), batch, rng):  # type: ignore[arg-type]
            complete.append(Observation(config, 0.0, losses=zdt1(config)))
        step += 1
    return np.array([o.losses for o in complete])


def test_nsga2_reaches_a_larger_hypervolume_than_random_search_on_zdt1() -> None:
    ref = np.array([1.1, 11.0])
    wins = 0
    for seed in range(3):
        nsga = hypervolume(_run(NSGA2(population_size=24), seed), ref)
        rand = hypervolume(_run(tf.RandomSearch(), seed), ref)
        wins += nsga > rand
    assert wins == 3


def test_survival_puts_feasible_trials_first_then_fronts_then_spread() -> None:
    Y = np.array([[0.0, 0.0], [1.0, 1.0], [0.5, 2.0], [2.0, 0.5], [-1.0, -1.0]])
    C = np.array([[0.0], [0.0], [0.0], [0.0], [3.0]])
    order = survival_order(Y, C)
    assert order[0] == 0 and order[-1] == 4
    assert set(order[1:4].tolist()) == {1, 2, 3}
    assert survival_order(Y)[0] == 4


def test_sbx_keeps_the_parents_mean_and_bounds() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        u1, u2, r = rng.random(3)
        c1, c2 = sbx_pair(u1, u2, 20.0, r)
        assert 0.0 <= c1 <= 1.0 and 0.0 <= c2 <= 1.0
        if 0.0 < c1 < 1.0 and 0.0 < c2 < 1.0:
            assert c1 + c2 == pytest.approx(u1 + u2)


def test_polynomial_mutation_stays_in_bounds_and_centres_on_the_parent() -> None:
    rng = np.random.default_rng(1)
    moved = np.array([polynomial_mutation(0.5, 20.0, r) for r in rng.random(4000)])
    assert moved.min() >= 0.0 and moved.max() <= 1.0
    assert abs(np.median(moved) - 0.5) < 0.01
    assert polynomial_mutation(0.0, 20.0, 0.0) == 0.0


def test_same_history_and_seed_give_the_same_children() -> None:
    Y = _run(NSGA2(population_size=8), 5, n=40)
    assert np.array_equal(Y, _run(NSGA2(population_size=8), 5, n=40))


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"population_size": 1}, "population_size"),
        ({"population_size": 2.5}, "population_size"),
        ({"crossover_prob": 1.5}, "crossover_prob"),
        ({"eta_mutation": -1}, "eta_mutation"),
        ({"eta_crossover": float("nan")}, "eta_crossover"),
    ],
)
def test_bad_options_name_the_option(options: dict[str, object], name: str) -> None:
    with pytest.raises(ConfigError, match=name):
        NSGA2(**options)  # type: ignore[arg-type]
