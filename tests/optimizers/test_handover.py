"""``algo="auto"`` on a numeric space past ``handover_after`` trials: CMA-ES started from the history."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from treefarm import Auto, History, Int, Optimizer, Study
from treefarm.encoding.unit import numeric_unit
from treefarm.exceptions import ConfigError
from treefarm.optimizers.gp import GP
from treefarm.optimizers.handover import SIGMA_BOUNDS, HandOver, handover_start
from treefarm.testing.optimizer_suite import OptimizerSuite

from .bowl import SPACE, bowl
from .bowl import bowl_history as _history


@pytest.mark.parametrize("value", [0, -3, 2.5, "100"])
def test_a_bad_handover_after_names_the_parameter_the_value_and_the_expectation(value: object) -> None:
    with pytest.raises(ConfigError) as info:
        Auto(handover_after=value)  # type: ignore[arg-type]
    assert str(info.value) == f"handover_after must be an integer >= 1 or None, but got handover_after={value!r}"


class TestHandOverConformance(OptimizerSuite):
    supports_recursive = False
    history_sizes = (0, 30)

    @pytest.fixture
    def optimizer_factory(self) -> Callable[[], Optimizer]:
        return lambda: HandOver(after=12)


def test_past_the_handover_auto_suggests_what_the_handover_optimizer_does() -> None:
    history = _history(40)
    for n in (16, 30, 40):
        head = History(complete=history.complete[:n])
        auto = Auto(handover_after=15).suggest(SPACE, head, 2, np.random.default_rng(n))  # type: ignore[arg-type]
        assert auto == HandOver(after=15).suggest(SPACE, head, 2, np.random.default_rng(n)), f"at {n} trials"  # type: ignore[arg-type]


@pytest.mark.parametrize(("options", "message"), [({"after": 0}, "after must be an integer >= 1, but got after=0"),
                                                  ({"after": 5, "elite": 1.5}, "elite must be an integer >= 1, but got elite=1.5")])
def test_bad_handover_options_are_named(options: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        HandOver(**options)  # type: ignore[arg-type]
    assert str(info.value) == message


def test_up_to_the_handover_auto_suggests_what_the_gp_does() -> None:
    history = _history(20)
    for n in (12, 20):
        head = History(complete=history.complete[:n])
        auto = Auto(handover_after=20).suggest(SPACE, head, 2, np.random.default_rng(n))  # type: ignore[arg-type]
        gp = GP(trust_after=Auto().trust_after)  # auto's GP on reals keeps to its trust region
        assert auto == gp.suggest(SPACE, head, 2, np.random.default_rng(n)), f"at {n} trials"  # type: ignore[arg-type]


def test_the_start_is_the_incumbent_and_the_spread_of_the_best() -> None:
    history = _history(30)
    mean, sigma = handover_start(SPACE, history.complete, elite=5)  # type: ignore[arg-type]
    best = sorted(history.complete, key=lambda o: o.loss)
    assert np.allclose(mean, [numeric_unit(SPACE[a], best[0].config[a]) for a in ("x", "y")])
    U = np.array([[numeric_unit(SPACE[a], o.config[a]) for a in ("x", "y")] for o in best[:5]])
    assert sigma == pytest.approx(float(np.clip(np.sqrt(np.mean(U.var(axis=0))), *SIGMA_BOUNDS)))


def test_past_the_handover_a_fresh_worker_suggests_what_a_running_one_does() -> None:
    history = _history(40)
    running = Auto(handover_after=15)
    for n in range(10, 40):  # the running optimizer's replay and fits are cached along the way
        running.suggest(SPACE, History(complete=history.complete[:n]), 1, np.random.default_rng(n))  # type: ignore[arg-type]
    fresh = Auto(handover_after=15).suggest(SPACE, history, 3, np.random.default_rng(5))  # type: ignore[arg-type]
    assert running.suggest(SPACE, history, 3, np.random.default_rng(5)) == fresh  # type: ignore[arg-type]


def test_cmaes_starts_near_the_incumbent() -> None:
    history = _history(40)
    best = min(history.complete, key=lambda o: o.loss).config
    mean, sigma = handover_start(SPACE, history.complete[:30])  # type: ignore[arg-type]
    (point,) = Auto(handover_after=30).suggest(SPACE, history, 1, np.random.default_rng(0))  # type: ignore[arg-type]
    u = np.array([numeric_unit(SPACE[a], point[a]) for a in ("x", "y")])
    assert np.sqrt(np.mean((u - mean) ** 2)) < 5 * sigma, (point, best)


def test_the_optimum_is_found_after_the_handover() -> None:
    # the GP over the whole box before the hand-over: this run's CMA-ES starts from its trials
    study = Study.create(space=SPACE, algo=Auto(handover_after=12, trust_after=None), seed=0)
    study.optimize(bowl, n_trials=80)
    early = min(t.value for t in study.trials[:12] if t.value is not None)
    assert study.best_value < 1e-4 < early, (early, study.best_value)


def test_the_first_trials_are_never_suggested_again() -> None:
    space = {"a": Int(0, 4), "b": Int(0, 4)}
    study = Study.create(space=space, algo=Auto(handover_after=8), seed=0)
    study.optimize(lambda v: float((v["a"] - 2) ** 2 + (v["b"] - 3) ** 2), n_trials=20)
    configs = [tuple(sorted(t.params.items())) for t in study.trials]
    assert len(set(configs)) == 20 and study.best_value == 0.0


def test_two_objectives_hand_over_to_nsga2_past_the_threshold() -> None:
    import treefarm as tf
    from treefarm.pareto import ranking_losses

    space = {"x": tf.Real(0, 1), "y": tf.Real(0, 1)}
    rng = np.random.default_rng(2)
    configs = [tf.space.sample(space, rng) for _ in range(12)]
    losses = np.array([[c["x"], 1 - c["x"] * c["y"]] for c in configs])
    ranks = ranking_losses(losses, None)
    history = tf.History(
        complete=[tf.Observation(c, float(r), losses=tuple(map(float, f))) for c, r, f in zip(configs, ranks, losses)]
    )
    auto = tf.Auto(handover_after=10)
    got = auto.suggest(space, history, 2, np.random.default_rng(0))
    assert got == tf.NSGA2().suggest(space, history, 2, np.random.default_rng(0))
