"""Evaluations on a Dask cluster: suggestions here, objectives on the workers, and a
worker killed mid-trial fails its trial once and re-runs its configuration once."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import treefarm as tf
from treefarm.exceptions import StudyError
from treefarm.execution.dask import connect
from treefarm.storage import SQLStorage, TrialState

from . import objectives

pytest.importorskip("distributed", reason="the dask extra is not installed")

BUDGET = 16


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with connect("local", n_workers=2) as running:
        yield running


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'dask.db'}"
    return str(request.getfixturevalue("postgres_url"))


def test_a_worker_killed_mid_trial_fails_its_trial_which_is_rerun_once(
    client: Any, url: str, tmp_path: Path
) -> None:
    _run_with_one_worker_killed(client, url, tmp_path, BUDGET)


@pytest.mark.slow
def test_four_workers_two_hundred_trials_one_killed(url: str, tmp_path: Path) -> None:
    with connect("local", n_workers=4) as client:
        _run_with_one_worker_killed(client, url, tmp_path, 200)


def _run_with_one_worker_killed(client: Any, url: str, tmp_path: Path, budget: int) -> None:
    """Exactly ``budget`` trials, numbered densely; the one whose worker was killed is
    FAILED with the reason, and its configuration completed once more."""
    name = f"killed-{tmp_path.name}"
    storage = SQLStorage(url, journal=None)
    study = tf.Study.create(name, space=objectives.SPACE, storage=storage, algo="random", seed=5)
    marker = tmp_path / "killed"
    study.optimize(functools.partial(objectives.kill_once, marker=str(marker)), budget, executor=client)
    assert marker.exists()
    trials = storage.get_trials(study.study_id)
    assert [t.number for t in trials] == list(range(budget))
    failed = [t for t in trials if t.state is TrialState.FAILED]
    assert len(failed) == 1
    [killed] = failed
    assert killed.system_attrs["worker_lost"] is True
    assert "worker died" in str(killed.system_attrs["fail_reason"])
    reruns = [t for t in trials if t.system_attrs.get("requeued_from") == killed.number]
    assert [(t.state, t.params) for t in reruns] == [(TrialState.COMPLETE, killed.params)]
    assert sum(t.state is TrialState.COMPLETE for t in trials) == budget - 1
    storage.close()


def test_a_seeded_study_suggests_the_same_trials_on_dask_as_inline(client: Any) -> None:
    runs = []
    for executor in (client, None):
        study = tf.Study.create(space=objectives.SPACE, storage=None, algo="random", seed=11)
        study.optimize(objectives.square, 8, executor=executor)
        runs.append([(t.number, t.params["x"], t.value) for t in study.trials])
    assert runs[0] == runs[1]


def test_minimize_takes_an_executor() -> None:
    with ThreadPoolExecutor(2) as pool:
        result = tf.minimize(
            objectives.square, objectives.SPACE, max_evals=6, storage=None, seed=0, executor=pool
        )
    assert len(result.trials) == 6 and result.best_value == min(t.value for t in result.trials)


def test_bad_executors_and_addresses_are_refused_by_name() -> None:
    study = tf.Study.create(space=objectives.SPACE, storage=None, seed=0)
    with pytest.raises(StudyError, match=r"connect\('local'\).*executor='local'"):
        study.optimize(objectives.square, 2, executor="local")
    with pytest.raises(StudyError, match=r"submit.*executor=3"):
        study.optimize(objectives.square, 2, executor=3)
    with pytest.raises(StudyError, match="requeue_lost=-1"):
        study.optimize(objectives.square, 2, requeue_lost=-1)
    with pytest.raises(StudyError, match="address=''"), connect(""):
        pass
    with pytest.raises(StudyError, match="n_workers=0"), connect("local", n_workers=0):
        pass


def test_prepared_trials_on_dask_are_each_run_once(client: Any, url: str, tmp_path: Path) -> None:
    """TPE reads the history, trials are prepared while the workers run: every trial
    number once, the budget exact, every trial completed, no configuration twice."""
    storage = SQLStorage(url, journal=None)
    study = tf.Study.create(
        f"ahead-{tmp_path.name}", space=objectives.SPACE, storage=storage, algo="tpe", seed=3
    )
    study.optimize(objectives.square, 24, executor=client)
    trials = storage.get_trials(study.study_id)
    assert [t.number for t in trials] == list(range(24))
    assert all(t.state is TrialState.COMPLETE for t in trials)
    assert len({t.params["x"] for t in trials}) == 24
    storage.close()


def test_the_last_trial_of_the_budget_killed_is_still_rerun(client: Any, tmp_path: Path) -> None:
    """Its re-run is queued after the budget was spent, and takes the lost trial's place."""
    storage = SQLStorage(f"sqlite:///{tmp_path / 'last.db'}", journal=None)
    study = tf.Study.create("last", space=objectives.SPACE, storage=storage, algo="random", seed=3)
    marker = tmp_path / "killed"  # seed 3: trial 4, the last of 5, is the first with x > 0
    study.optimize(functools.partial(objectives.kill_once, marker=str(marker)), 5, executor=client)
    trials = storage.get_trials(study.study_id)
    assert [(t.number, t.state) for t in trials] == [(i, TrialState.COMPLETE) for i in range(4)] + [
        (4, TrialState.FAILED),
        (5, TrialState.COMPLETE),
    ]
    assert trials[5].params == trials[4].params and trials[5].system_attrs["requeued_from"] == 4
    storage.close()
