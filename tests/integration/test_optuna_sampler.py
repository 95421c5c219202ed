"""TreefarmSampler against Optuna's own sampler conformance suite, run unmodified.

Optuna's ``BasicSamplerTestCase`` and ``RelativeSamplerTestCase`` are
subclassed with a fixture giving the sampler; every optimizer runs the
basic suite; the GP and TPE (the optimizers with a model over the joint
space) run the relative one too, and the GP the single-objective check.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

optuna = pytest.importorskip("optuna")

from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution  # noqa: E402
from optuna.testing.pytest_samplers import (  # noqa: E402
    BasicSamplerTestCase,
    MultiObjectiveSamplerTestCase,
    RelativeSamplerTestCase,
    _create_new_trial,
)

import treefarm as tf  # noqa: E402
from treefarm.integration.optuna import TreefarmSampler, trials_to_history  # noqa: E402

optuna.logging.set_verbosity(optuna.logging.WARNING)


class _Sampler:
    algo = "gp"

    @pytest.fixture
    def sampler(self) -> Callable[[], TreefarmSampler]:
        return lambda: TreefarmSampler(self.algo, seed=0)


class TestGPSampler(_Sampler, BasicSamplerTestCase, RelativeSamplerTestCase, MultiObjectiveSamplerTestCase):
    algo = "gp"


class TestTPESampler(_Sampler, BasicSamplerTestCase, RelativeSamplerTestCase, MultiObjectiveSamplerTestCase):
    algo = "tpe"


class TestNSGA2Sampler(_Sampler, BasicSamplerTestCase, RelativeSamplerTestCase, MultiObjectiveSamplerTestCase):
    algo = "nsga2"


class TestAnnealSampler(_Sampler, BasicSamplerTestCase):
    algo = "anneal"


class TestRandomSampler(_Sampler, BasicSamplerTestCase):
    algo = "random"


@pytest.mark.parametrize(
    "distribution",
    [
        FloatDistribution(-10.2, 10.2, step=0.1),
        FloatDistribution(0.0, 1.0, step=0.25),
        IntDistribution(3, 9, step=2),
        IntDistribution(1, 100, log=True),
        FloatDistribution(1e-7, 1.0, log=True),
        CategoricalDistribution([None, True, 2, 2.5, "a"]),
    ],
)
def test_every_value_round_trips_through_its_decision(distribution: object) -> None:
    from treefarm.integration.optuna_space import from_decision, to_decision, to_space

    space = to_space(distribution)
    if isinstance(space, tf.Real):
        decisions = [space.low, (space.low + space.high) / 2, space.high]
    else:
        decisions = [c["_"] for c in tf.enumerate_configs(space)]
    for decision in decisions:
        value = from_decision(distribution, decision)
        assert distribution._contains(distribution.to_internal_repr(value))
        assert to_decision(distribution, value) == decision


def _quadratic(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -5, 5)
    y = trial.suggest_int("y", -5, 5)
    return (x - 1.3) ** 2 + (y + 2) ** 2


def test_gp_through_optuna_finds_the_optimum_of_a_mixed_quadratic() -> None:
    study = optuna.create_study(sampler=TreefarmSampler("gp", seed=0))
    study.optimize(_quadratic, n_trials=25)
    assert study.best_params["y"] == -2
    assert abs(study.best_params["x"] - 1.3) < 0.2


def test_the_same_seed_gives_the_same_trials() -> None:
    runs = []
    for _ in range(2):
        study = optuna.create_study(sampler=TreefarmSampler("tpe", seed=3))
        study.optimize(_quadratic, n_trials=25)
        runs.append([t.params for t in study.trials])
    assert runs[0] == runs[1]


def test_a_maximized_study_is_seen_as_negated_losses_with_failed_and_pending_trials() -> None:
    space = {"x": FloatDistribution(0, 1), "c": CategoricalDistribution(["a", "b"])}
    study = optuna.create_study(direction="maximize")
    study.add_trial(optuna.create_trial(params={"x": 0.5, "c": "b"}, distributions=space, value=2.0))
    study.add_trial(
        optuna.create_trial(
            params={"x": 0.2, "c": "a"}, distributions=space, state=optuna.trial.TrialState.FAIL
        )
    )
    study.add_trial(
        optuna.create_trial(
            params={"x": 0.7, "c": "a"}, distributions=space, state=optuna.trial.TrialState.WAITING
        )
    )
    study.add_trial(optuna.create_trial(params={"x": 0.1}, distributions={"x": space["x"]}, value=9.0))
    history = trials_to_history(study.trials, space, direction=study.direction)
    assert [(dict(o.config), o.loss) for o in history.complete] == [({"0": 0.5, "1": 1}, -2.0)]
    assert [dict(c) for c in history.failed] == [{"0": 0.2, "1": 0}]
    assert [dict(c) for c in history.pending] == [{"0": 0.7, "1": 0}]


def test_a_bad_seed_is_named() -> None:
    with pytest.raises(tf.StudyError, match="seed=-1"):
        TreefarmSampler("gp", seed=-1)


def _branches(trial: optuna.Trial) -> float:
    if trial.suggest_categorical("kind", ["quadratic", "flat"]) == "quadratic":
        return (trial.suggest_float("x", -5, 5) - 2) ** 2
    return 1 + trial.suggest_float("y", 0, 1)


def test_conditional_parameters_are_sampled_jointly_as_a_join() -> None:
    sampler = TreefarmSampler("tpe", seed=0)
    study = optuna.create_study(sampler=sampler)
    study.optimize(_branches, n_trials=30)
    trial = _create_new_trial(study)
    space = sampler.infer_relative_search_space(study, trial)
    assert set(space) == {"kind", "x", "y"}
    for _ in range(5):
        params = sampler.sample_relative(study, _create_new_trial(study), space)
        assert set(params) == ({"kind", "x"} if params["kind"] == "quadratic" else {"kind", "y"})
    assert study.best_params["kind"] == "quadratic"
    assert study.best_value < 0.05


def test_a_parameter_present_under_two_values_is_left_to_independent_sampling() -> None:
    kinds = {"kind": CategoricalDistribution(["a", "b", "c"])}
    x = {"x": FloatDistribution(0, 1)}
    study = optuna.create_study(sampler=TreefarmSampler("gp", seed=0))
    for kind, value in (("a", 1.0), ("b", 2.0), ("c", 3.0)):
        has_x = kind != "c"
        study.add_trial(
            optuna.create_trial(
                params={"kind": kind, **({"x": 0.5} if has_x else {})},
                distributions={**kinds, **(x if has_x else {})},
                value=value,
            )
        )
    space = study.sampler.infer_relative_search_space(study, _create_new_trial(study))
    assert space == kinds


def _feasible_first(history: tf.optimizers.History) -> None:
    assert all(len(o.losses) == 2 and len(o.constraints) == 1 for o in history.complete)
    ranked = sorted(history.complete, key=lambda o: o.loss)
    feasible = [o.constraints[0] <= 0 for o in ranked]
    assert feasible == sorted(feasible, reverse=True), "an infeasible trial ranked before a feasible one"


def test_a_multi_objective_study_with_constraints_ranks_feasible_trials_first() -> None:
    sampler = TreefarmSampler("tpe", seed=0, constraints_func=lambda t: [t.params["x"] - 0.5])
    study = optuna.create_study(directions=["minimize", "maximize"], sampler=sampler)
    study.optimize(lambda t: (t.suggest_float("x", 0, 1), t.suggest_float("y", 0, 1)), n_trials=25)
    history = trials_to_history(
        study.trials, study.trials[0].distributions, directions=study.directions, constraints_func=sampler.constraints_func
    )
    _feasible_first(history)
    assert [o.constraints[0] for o in history.complete] == [t.params["x"] - 0.5 for t in study.trials]


def test_constraints_set_by_the_objective_are_read_and_optuna_sees_them_too() -> None:
    """Optuna 5's own way (``trial.set_constraint``): the sampler ranks by them and
    ``study.best_trials`` leaves the infeasible out."""

    def objective(trial: optuna.Trial) -> tuple[float, float]:
        x = trial.suggest_float("x", 0, 1)
        trial.set_constraint("x_at_most_half", x - 0.5)
        return x, trial.suggest_float("y", 0, 1)

    study = optuna.create_study(directions=["minimize", "maximize"], sampler=TreefarmSampler("tpe", seed=0))
    study.optimize(objective, n_trials=25)
    history = trials_to_history(study.trials, study.trials[0].distributions, directions=study.directions)
    _feasible_first(history)
    assert all(t.params["x"] <= 0.5 for t in study.best_trials)


def test_a_nan_constraint_is_named() -> None:
    sampler = TreefarmSampler("tpe", seed=0, constraints_func=lambda t: [float("nan")])
    study = optuna.create_study(sampler=sampler)
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=1)
    with pytest.raises(tf.StudyError, match=r"constraint values must not be NaN, but got constraints=\[nan\]"):
        trials_to_history(study.trials, study.trials[0].distributions, constraints_func=sampler.constraints_func)


def test_a_bad_constraints_func_is_named() -> None:
    with pytest.raises(tf.StudyError, match="constraints_func"):
        TreefarmSampler("tpe", constraints_func=3)  # type: ignore[arg-type]
