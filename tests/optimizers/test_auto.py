"""algo="auto": the GP with TPE's proposals interleaved, chosen by the trial's number alone."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from treefarm import GP, TPE, Auto, Choice, Config, History, Int, Observation, Optimizer, Real, Study
from treefarm.exceptions import ConfigError, StudyError
from treefarm.optimizers import available, make_optimizer
from treefarm.testing.optimizer_suite import OptimizerSuite


class TestAutoConformance(OptimizerSuite):
    @pytest.fixture
    def optimizer_factory(self) -> Callable[[], Optimizer]:
        return lambda: Auto(gp=GP(n_candidates=64, n_local=32, n_starts=2, n_startup=5))


def test_auto_is_registered() -> None:
    assert "auto" in available()
    assert isinstance(make_optimizer("auto"), Auto)
    with pytest.raises(StudyError, match="algo="):
        make_optimizer("autto")


def test_every_third_trial_is_tpes_on_a_flat_space_and_the_gps_on_a_recursive_one() -> None:
    auto = Auto()
    flat = [type(auto.proposer(t, recursive=False)).__name__ for t in range(6)]
    tree = [type(auto.proposer(t, recursive=True)).__name__ for t in range(6)]
    assert flat == ["GP", "GP", "TPE", "GP", "GP", "TPE"]
    assert tree == ["TPE", "TPE", "GP", "TPE", "TPE", "GP"]


def _history(n: int, seed: int = 0) -> History:
    rng = np.random.default_rng(seed)
    xs = rng.uniform(-5, 5, n)
    cs = rng.choice(["a", "b"], n)
    return History(
        complete=tuple(
            Observation(Config({"x": float(x), "c": str(c)}), float((x - 1) ** 2 + (c == "a")))
            for x, c in zip(xs, cs)
        )
    )


SPACE = {"x": Real(-5, 5), "c": Choice("a", "b")}


def test_a_tpe_slot_proposes_exactly_what_tpe_does_and_a_gp_slot_what_the_gp_does() -> None:
    """The choice is a function of the history: trial 20 (slot 2 of 3) is TPE's, 21 the GP's."""
    gp = GP(n_candidates=64, n_local=32, n_starts=2)
    auto = Auto(gp=gp)
    tpe_slot, gp_slot = _history(20), _history(21)
    assert auto.suggest(SPACE, tpe_slot, 1, np.random.default_rng(3)) == auto.tpe.suggest(
        SPACE, tpe_slot, 1, np.random.default_rng(3)
    )
    assert auto.suggest(SPACE, gp_slot, 1, np.random.default_rng(3)) == gp.suggest(
        SPACE, gp_slot, 1, np.random.default_rng(3)
    )


def test_tpe_waits_for_the_gps_space_filling_start() -> None:
    auto = Auto(gp=GP(n_startup=8))
    history = _history(2)  # trial 2 is a TPE slot, but the start is not over
    assert auto.suggest(SPACE, history, 1, np.random.default_rng(0)) == auto.gp.suggest(
        SPACE, history, 1, np.random.default_rng(0)
    )


def test_a_batch_counts_its_own_members_as_trials() -> None:
    auto = Auto(gp=GP(n_candidates=64, n_local=32, n_starts=2))
    batch = auto.suggest(SPACE, _history(30), 3, np.random.default_rng(0))
    assert len(set(batch)) == 3


def test_bad_tpe_every_names_the_parameter() -> None:
    with pytest.raises(ConfigError, match="tpe_every"):
        Auto(tpe_every=1)


def test_auto_finds_the_optimum_of_a_mixed_space_and_leaves_a_wrong_category() -> None:
    """The issue's lock-in space: auto's best is the right option with x and y close."""

    def loss(v: dict) -> float:
        return (v["x"] - 1) ** 2 / 10 + ((v["y"] - 30) / 30) ** 2 + {"a": 0.6, "b": 0.0, "c": 0.3}[v["c"]]

    space = {"x": Real(-5, 5), "y": Int(0, 100), "c": Choice("a", "b", "c")}
    study = Study.create(space=space, algo=Auto(gp=GP(n_candidates=64, n_local=32, n_starts=2)), seed=0)
    study.optimize(loss, n_trials=30)
    assert study.best_params["c"] == "b" and study.best_value < 0.05


def test_same_seed_same_study() -> None:
    def run() -> list[dict]:
        study = Study.create(space=SPACE, algo=Auto(gp=GP(n_candidates=64, n_local=32, n_starts=2)), seed=4)
        study.optimize(lambda v: (v["x"] - 1) ** 2 + (v["c"] == "a"), n_trials=15)
        return [dict(t.params) for t in study.trials]

    assert run() == run()


def test_tpe_defaults_inside_auto() -> None:
    assert isinstance(Auto().tpe, TPE) and Auto().tpe.n_startup == 5
