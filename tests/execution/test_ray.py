"""Evaluations on a real local Ray cluster (2 CPUs): Dask's contract, a worker killed mid-trial
included, and ``treefarm run --ray``."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

import treefarm as tf
from treefarm.cli.main import main
from treefarm.execution.ray import RayExecutor, connect
from treefarm.storage import SQLStorage, TrialState

from . import objectives

pytest.importorskip("ray", reason="the Ray executor needs Ray: pip install 'treefarm[ray]'")

BUDGET = 12


@pytest.fixture(scope="module")
def ray_executor() -> Iterator[RayExecutor]:
    with connect("local", num_cpus=2) as running:
        yield running


@pytest.mark.parametrize(
    ("seed", "budget"),
    [(5, BUDGET), (3, 5)],  # seed 3: trial 4, the last of the budget, is the first with x > 0
    ids=["midway", "the-last-trial"],
)
def test_a_worker_killed_mid_trial_fails_its_trial_which_is_rerun_once(
    ray_executor: RayExecutor, tmp_path: Path, seed: int, budget: int
) -> None:
    storage = SQLStorage(f"sqlite:///{tmp_path / 'ray.db'}", journal=None)
    study = tf.Study.create("killed", space=objectives.SPACE, storage=storage, algo="random", seed=seed)
    marker = tmp_path / "killed"
    study.optimize(functools.partial(objectives.kill_once, marker=str(marker)), budget, executor=ray_executor)
    assert marker.exists()
    trials = storage.get_trials(study.study_id)
    [killed] = [t for t in trials if t.state is TrialState.FAILED]
    assert killed.system_attrs["worker_lost"] is True
    assert "worker died" in str(killed.system_attrs["fail_reason"])
    reruns = [t for t in trials if t.system_attrs.get("requeued_from") == killed.number]
    assert [(t.state, t.params) for t in reruns] == [(TrialState.COMPLETE, killed.params)]  # once, not twice
    assert [t.number for t in trials] == list(range(len(trials)))  # nothing lost, nothing left waiting
    # the budget exact: the re-run is one of the budget's trials, or past it when the loss was
    # recorded after the budget was spent (Ray notices a dead worker a moment later)
    assert len(trials) == budget + (reruns[0].number >= budget)
    storage.close()


def test_a_seeded_study_suggests_the_same_trials_on_ray_as_inline(ray_executor: RayExecutor) -> None:
    runs = []
    for executor in (ray_executor, "ray", None):
        study = tf.Study.create(space=objectives.SPACE, storage=None, algo="random", seed=11)
        study.optimize(objectives.square, 6, executor=executor)
        runs.append([(t.number, t.params["x"], t.value) for t in study.trials])
    assert runs[0] == runs[1] == runs[2]


def test_a_model_based_study_on_ray_runs_each_trial_once(ray_executor: RayExecutor) -> None:
    study = tf.Study.create(space=objectives.SPACE, storage=None, algo="tpe", seed=3)
    study.optimize(objectives.square, 14, executor=ray_executor)
    assert [t.number for t in study.trials] == list(range(14))
    assert all(t.state is TrialState.COMPLETE for t in study.trials)
    assert len({t.params["x"] for t in study.trials}) == 14
    assert ray_executor.capacity() == 2


KILLING = """
import os
import signal

import treefarm as tf

space = {"x": tf.Real(-1.0, 1.0)}


def objective(p):
    if p["x"] > 0:  # the first such evaluation kills its Ray worker
        try:
            os.close(os.open(MARKER, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return p["x"] ** 2
        os.kill(os.getpid(), signal.SIGKILL)
    return p["x"] ** 2
"""


def test_run_on_ray_with_a_worker_killed(
    ray_executor: RayExecutor, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "killed"
    (tmp_path / "tune.py").write_text(f"MARKER = {str(marker)!r}\n" + KILLING)  # sent by value
    db = tmp_path / "r.db"
    argv = [
        "run",
        str(tmp_path / "tune.py"),
        "--n-trials",
        "8",
        "--storage",
        str(db),
        "--seed",
        "1",
        "--algo",
        "random",
        "--ray",
    ]
    assert main(argv) == 0
    assert marker.exists()
    storage = SQLStorage(f"sqlite:///{db}", journal=None)
    trials = storage.get_trials(storage.get_study("tune").study_id)
    [killed] = [t for t in trials if t.state is TrialState.FAILED]
    [rerun] = [t for t in trials if t.system_attrs.get("requeued_from") == killed.number]
    assert rerun.params == killed.params and rerun.state is TrialState.COMPLETE
    total = 8 + (rerun.number >= 8)  # the re-run within the budget, or in the lost trial's place past it
    assert f"{total} trials (complete {total - 1}, failed 1)" in capsys.readouterr().out
    storage.close()
    with pytest.raises(SystemExit) as exited:
        main([*argv, "--dask", "local"])
    assert exited.value.code == 2 and "give one" in capsys.readouterr().err


def test_bad_addresses_are_refused_by_name() -> None:
    with pytest.raises(tf.StudyError, match="address=''"), connect(""):
        pass
    study = tf.Study.create(space=objectives.SPACE, storage=None, seed=0)
    with pytest.raises(tf.StudyError, match=r"'ray' or an object with submit.*executor='dask'"):
        study.optimize(objectives.square, 2, executor="dask")  # type: ignore[arg-type]
