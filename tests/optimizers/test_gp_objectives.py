"""The GP with one model per objective and constraint (``GP(objectives="ehvi")``)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import treefarm as tf
from treefarm import ConfigError, History, Observation, Optimizer
from treefarm.optimizers.gp import GP
from treefarm.pareto import hypervolume, ranking_losses

SPACE = {f"x{i}": tf.Real(0, 1) for i in range(5)}
Outcome = tuple[tuple[float, ...], tuple[float, ...]]


def zdt1(config: tf.Config) -> Outcome:
    x = np.array([config[f"x{i}"] for i in range(5)])
    g = 1 + 9 * x[1:].mean()
    return (float(x[0]), float(g * (1 - np.sqrt(x[0] / g)))), ()


def constrained(config: tf.Config) -> Outcome:
    """Two objectives; feasible only where x0 + x1 >= 1.2 (a corner of the cube)."""
    (f1, f2), _ = zdt1(config)
    return (f1, f2), (1.2 - config["x0"] - config["x1"],)


def three(config: tf.Config) -> Outcome:
    x = np.array([config[f"x{i}"] for i in range(5)])
    return tuple(float(((x - c) ** 2).sum()) for c in (0.2, 0.5, 0.8)), ()


def _history(outcomes: list[tuple[tf.Config, Outcome]]) -> History:
    Y = np.array([f for _, (f, _) in outcomes])
    C = np.array([c for _, (_, c) in outcomes]) if outcomes[0][1][1] else None
    ranks = ranking_losses(Y, C)
    return History(
        complete=tuple(
            Observation(config, float(r), losses=f, constraints=c)
            for (config, (f, c)), r in zip(outcomes, ranks)
        )
    )


def _run(
    optimizer: Optimizer, f: Callable[[tf.Config], Outcome], seed: int, n: int, batch: int = 1
) -> History:
    outcomes: list[tuple[tf.Config, Outcome]] = []
    step = 0
    while len(outcomes) < n:
        rng = np.random.default_rng([seed, step])
        history = _history(outcomes) if outcomes else History()
        for config in optimizer.suggest(SPACE, history, batch, rng):  # type: ignore[arg-type]
            outcomes.append((config, f(config)))
        step += 1
    return _history(outcomes)


def test_ehvi_gp_reaches_a_larger_hypervolume_than_random_search_on_zdt1() -> None:
    ref = np.array([1.1, 7.0])
    for seed in range(3):
        gp = hypervolume(
            np.array([o.losses for o in _run(GP(objectives="ehvi"), zdt1, seed, 60).complete]), ref
        )
        rand = hypervolume(
            np.array([o.losses for o in _run(tf.RandomSearch(), zdt1, seed, 60).complete]), ref
        )
        assert gp > rand, f"seed {seed}: the EHVI GP's hypervolume {gp} must beat random search's {rand}"


def test_same_history_and_seed_give_the_same_batch() -> None:
    history = _run(tf.RandomSearch(), constrained, 0, 14)
    a = GP(objectives="ehvi").suggest(SPACE, history, 3, np.random.default_rng(7))  # type: ignore[arg-type]
    b = GP(objectives="ehvi").suggest(SPACE, history, 3, np.random.default_rng(7))  # type: ignore[arg-type]
    assert a == b
    assert len(set(a)) == 3, "the believer must spread a batch over distinct points"


def test_no_feasible_trial_yet_seeks_feasibility() -> None:
    rng = np.random.default_rng(0)
    outcomes = []
    for _ in range(12):
        config = tf.Config({f"x{i}": float(v) for i, v in enumerate(rng.random(5) * 0.5)})
        outcomes.append((config, constrained(config)))
    history = _history(outcomes)
    batch = GP(objectives="ehvi").suggest(SPACE, history, 2, np.random.default_rng(1))  # type: ignore[arg-type]
    sums = [c["x0"] + c["x1"] for c in batch]
    assert min(sums) > 0.9, (
        f"with nothing feasible the GP must head for x0 + x1 >= 1.2, but proposed sums {sums}"
    )


def four(config: tf.Config) -> Outcome:
    x = np.array([config[f"x{i}"] for i in range(5)])
    return tuple(float(((x - c) ** 2).sum()) for c in (0.2, 0.4, 0.6, 0.8)), ()


@pytest.mark.parametrize(
    "f, k, objectives",
    [(three, 3, "ehvi"), (three, 3, "ehvi3"), (four, 4, "ehvi3")],
    ids=["three: ParEGO", "three: EHVI", "four: ParEGO"],
)
def test_three_and_four_objectives_improve_on_random_search(
    f: Callable[[tf.Config], Outcome], k: int, objectives: str
) -> None:
    ref = np.full(k, 3.0)
    gp = hypervolume(np.array([o.losses for o in _run(GP(objectives=objectives), f, 0, 30).complete]), ref)
    rand = hypervolume(np.array([o.losses for o in _run(tf.RandomSearch(), f, 0, 30).complete]), ref)
    assert gp > rand, f"the GP's hypervolume {gp} must beat random search's {rand} with {k} objectives"


def test_rank_remains_the_default_and_bad_values_name_the_option() -> None:
    assert GP().objectives == "rank"
    with pytest.raises(ConfigError, match="objectives"):
        GP(objectives="hypervolume")
