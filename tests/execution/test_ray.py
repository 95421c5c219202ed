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


def test_a_worker_killed_mid_trial_fails_its_trial_which_is_rerun_once(
    ray_executor: RayExecutor, tmp_path: Path
) -> None:
    storage = SQLStorage(f"sqlite:///{tmp_path / 'ray.db'}", journal=None)
    study = tf.Study.create("killed", space=objectives.SPACE, storage=storage, algo="random", seed=5)
    marker = tmp_path / "killed"
    study.optimize(functools.partial(objectives.kill_once, marker=str(marker)), BUDGET, executor=ray_executor)
    assert marker.exists()
    trials = storage.get_trials(study.study_id)
    assert [t.number for t in trials] == list(range(BUDGET))  # the budget exact, nothing lost
    [killed] = [t for t in trials if t.state is TrialState.FAILED]
    assert killed.system_attrs["worker_lost"] is True
    assert "worker died" in str(killed.system_attrs["fail_reason"])
    reruns = [t for t in trials if t.system_attrs.get("requeued_from") == killed.number]
    assert [(t.state, t.params) for t in reruns] == [(TrialState.COMPLETE, killed.params)]  # once, not twice
    assert sum(t.state is TrialState.COMPLETE for t in trials) == BUDGET - 1
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


OBJECTIVE = """
import treefarm as tf

space = {"x": tf.Real(-1.0, 1.0)}


def objective(p):
    return p["x"] ** 2
"""


def test_run_on_ray(ray_executor: RayExecutor, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tune.py").write_text(OBJECTIVE)  # a module the workers cannot import: sent by value
    argv = ["run", str(tmp_path / "tune.py"), "--n-trials", "6", "--storage", str(tmp_path / "r.db"), "--ray"]
    assert main(argv) == 0
    assert "6 trials (complete 6)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exited:
        main([*argv, "--dask", "local"])
    assert exited.value.code == 2 and "give one" in capsys.readouterr().err


def test_bad_addresses_are_refused_by_name() -> None:
    with pytest.raises(tf.StudyError, match="address=''"), connect(""):
        pass
    study = tf.Study.create(space=objectives.SPACE, storage=None, seed=0)
    with pytest.raises(tf.StudyError, match=r"'ray' or an object with submit.*executor='dask'"):
        study.optimize(objectives.square, 2, executor="dask")  # type: ignore[arg-type]
