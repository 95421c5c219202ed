"""Studies with several objectives and constraints: the front is exactly the
non-dominated feasible trials, infeasible trials lose to feasible ones, bad
values fail the trial with a reason, and a resumed study suggests what an
uninterrupted one would."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import treefarm as tf
from treefarm import StudyError, TrialState
from treefarm.pareto import hypervolume

SPACE = {"x": tf.Real(0, 1), "y": tf.Real(0, 1)}


def two(config: dict) -> tuple[float, float]:
    x, y = config["x"], config["y"]
    return x, (1 + y) * (1 - np.sqrt(x / (1 + y)))


def brute_front(points: list[tuple[float, ...]]) -> set[int]:
    def dominates(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
        return all(p <= q for p, q in zip(a, b)) and any(p < q for p, q in zip(a, b))

    return {i for i, a in enumerate(points) if not any(dominates(b, a) for b in points)}


@pytest.mark.parametrize("storage", [None, "sqlite"])
def test_best_trials_is_the_brute_force_front(storage: str | None, tmp_path) -> None:
    url = None if storage is None else f"sqlite:///{tmp_path / 'mo.db'}"
    study = tf.Study.create(space=SPACE, storage=url, directions=["minimize", "maximize"], algo="random", seed=1)
    study.optimize(lambda c: (c["x"], c["y"] - c["x"] ** 2), n_trials=40)
    trials = [t for t in study.trials if t.state is TrialState.COMPLETE]
    losses = [(t.values[0], -t.values[1]) for t in trials]
    assert {t.number for t in study.best_trials} == {trials[i].number for i in brute_front(losses)}
    assert study.directions == ("minimize", "maximize")
    assert all(len(t.values) == 2 for t in trials)


def test_single_best_values_point_to_best_trials() -> None:
    study = tf.Study.create(space=SPACE, directions=["minimize", "minimize"], algo="random", seed=0)
    study.optimize(two, n_trials=5)
    for name in ("best_trial", "best_value", "best_params", "best_config"):
        with pytest.raises(StudyError, match="best_trials"):
            getattr(study, name)
    with pytest.raises(StudyError, match="directions"):
        _ = study.direction


def test_hypervolume_is_that_of_the_front_in_the_users_units() -> None:
    study = tf.Study.create(space=SPACE, directions=["minimize", "maximize"], algo="random", seed=3)
    study.optimize(lambda c: (c["x"], c["y"]), n_trials=30)
    front = np.array([(t.values[0], -t.values[1]) for t in study.best_trials])
    assert study.hypervolume([1.0, 0.0]) == pytest.approx(hypervolume(front, np.array([1.0, 0.0])))
    with pytest.raises(StudyError, match="reference"):
        study.hypervolume([1.0])


def test_constraints_make_infeasible_trials_lose() -> None:
    study = tf.Study.create(space=SPACE, algo="random", seed=2)
    study.optimize(lambda c: {"loss": c["x"], "constraints": [0.5 - c["x"]]}, n_trials=40)
    best = study.best_trial
    assert best.constraints is not None and best.feasible
    feasible = [t.value for t in study.trials if t.feasible]
    assert study.best_value == min(feasible) >= 0.5
    assert any(not t.feasible for t in study.trials)


def test_best_trials_without_a_feasible_trial_are_the_least_infeasible() -> None:
    study = tf.Study.create(space=SPACE, directions=["minimize", "minimize"], algo="random", seed=4)
    study.optimize(lambda c: {"loss": two(c), "constraints": [1 + c["x"], 2.0]}, n_trials=10)
    best = study.best_trials
    violation = [sum(max(v, 0) for v in t.constraints) for t in study.trials]
    assert [t.number for t in best] == [int(np.argmin(violation))]


def test_tell_takes_values_and_constraints() -> None:
    study = tf.Study.create(space=SPACE, directions=["minimize", "maximize"], algo="random", seed=5)
    trial = study.ask()
    record = study.tell(trial, [0.25, 3.0], constraints=[-1.0, 0.0])
    assert record.values == (0.25, 3.0) and record.constraints == (-1.0, 0.0) and record.feasible
    record = study.tell(study.ask(), {"loss": [0.5, 1.0], "constraints": 2.0, "note": "hi"})
    assert record.constraints == (2.0,) and not record.feasible and record.user_attrs == {"note": "hi"}


@pytest.mark.parametrize(
    ("returned", "reason"),
    [
        (0.5, "the study has 2 objectives"),
        ([0.5, 1.0, 2.0], "returned 3 values"),
        ([0.5, float("nan")], "non-finite value for objective 1"),
        ({"loss": [0.1, 0.2], "constraints": ["a"]}, "constraints must be a number or a sequence of numbers"),
        ({"loss": [0.1, 0.2], "constraints": [float("nan")]}, "constraints must be finite"),
        ([], "must return a number, a sequence of numbers"),
    ],
)
def test_bad_values_fail_the_trial_with_a_reason_and_the_run_goes_on(returned: object, reason: str) -> None:
    study = tf.Study.create(space=SPACE, directions=["minimize", "minimize"], algo="random", seed=6)
    calls = itertools.count()

    def objective(config: dict) -> object:
        return returned if next(calls) == 0 else two(config)

    study.optimize(objective, n_trials=3)
    first = study.trials[0]
    assert first.state is TrialState.FAILED
    assert reason in first.system_attrs["fail_reason"]
    assert [t.state for t in study.trials[1:]] == [TrialState.COMPLETE] * 2


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"directions": ["minimize", "maximise"]}, r"directions\[1\]='maximise'"),
        ({"directions": "minimize"}, "non-empty list"),
        ({"directions": []}, "non-empty list"),
        ({"direction": "minimize", "directions": ["minimize"]}, "not both"),
    ],
)
def test_bad_directions_are_named(kwargs: dict, match: str) -> None:
    with pytest.raises(StudyError, match=match):
        tf.Study.create(space=SPACE, **kwargs)


def test_reopening_with_other_directions_is_refused(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'mo.db'}"
    tf.Study.create("s", space=SPACE, storage=url, directions=["minimize", "maximize"])
    with pytest.raises(StudyError, match="directions"):
        tf.Study.create("s", space=SPACE, storage=url, directions=["minimize", "minimize"], load_if_exists=True)
    assert tf.Study.load("s", space=SPACE, storage=url).directions == ("minimize", "maximize")


def test_target_and_patience_are_refused_with_several_objectives() -> None:
    study = tf.Study.create(space=SPACE, directions=["minimize", "minimize"])
    with pytest.raises(StudyError, match="one objective"):
        study.optimize(two, n_trials=3, patience=2)


@pytest.mark.parametrize("algo", ["nsga2", "tpe", "random", "auto"])
def test_a_resumed_study_suggests_what_an_uninterrupted_one_would(algo: str, tmp_path) -> None:
    def run(split: bool) -> list[dict]:
        url = f"sqlite:///{tmp_path / f'{algo}-{split}.db'}"
        options = {"space": SPACE, "storage": url, "directions": ["minimize", "minimize"], "seed": 9}
        if algo == "nsga2":
            options["algo"] = tf.NSGA2(population_size=6)
        else:
            options["algo"] = algo
        study = tf.Study.create("s", **options)
        study.optimize(lambda c: {"loss": two(c), "constraints": [c["y"] - 0.8]}, n_trials=12 if split else 24)
        if split:
            study.storage.close()
            again = tf.Study.load("s", space=SPACE, storage=url)
            again.optimize(lambda c: {"loss": two(c), "constraints": [c["y"] - 0.8]}, n_trials=24)
            study = again
        return [dict(t.params) for t in study.trials]

    assert run(split=False) == run(split=True)


def test_minimize_with_several_objectives_returns_the_front(tmp_path) -> None:
    result = tf.minimize(two, SPACE, directions=["minimize", "minimize"], max_evals=20, storage=None, seed=0)
    assert result.best_trials and {t.number for t in result.best_trials} == {t.number for t in result.study.best_trials}
    with pytest.raises(StudyError, match="best_trials"):
        _ = result.best_value
    assert "front=" in repr(result)
