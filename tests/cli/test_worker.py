"""``treefarm worker``: workers sharing a database make exactly the study's budget between
them and exit cleanly; SIGTERM fails the running trial; ``run --dask local`` evaluates on Dask;
``run`` and ``worker`` prune with the pruner the file names."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from treefarm.cli.main import main
from treefarm.storage import SQLStorage, TrialState

from .test_fidelity_cli import RESUMING

OBJECTIVE = """
import time
import treefarm as tf

space = {"x": tf.Real(-2.0, 2.0)}


def objective(p):
    time.sleep(float(__import__("os").environ.get("SLEEP", "0.02")))
    return (p["x"] - 0.5) ** 2
"""


def _worker(tmp_path: Path, db: Path, *extra: str, sleep: str = "0.02") -> subprocess.Popen[str]:
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, "PYTHONPATH": src, "SLEEP": sleep}
    argv = [sys.executable, "-m", "treefarm.cli.main", "worker", f"sqlite:///{db}", "--study", "tune"]
    return subprocess.Popen(
        [*argv, "--file", str(tmp_path / "tune.py"), "--heartbeat", "1", *extra],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_workers_share_the_budget_and_exit_when_it_is_spent(tmp_path: Path) -> None:
    (tmp_path / "tune.py").write_text(OBJECTIVE)
    db = tmp_path / "shared.db"
    workers = [_worker(tmp_path, db, "--n-trials", "12") for _ in range(2)]
    outputs = [w.communicate(timeout=180) for w in workers]
    assert [w.returncode for w in workers] == [0, 0], outputs
    assert all("12 trials claimed" in out for out, _ in outputs)
    storage = SQLStorage(f"sqlite:///{db}", journal=None)
    trials = storage.get_trials(storage.get_study("tune").study_id)
    assert [t.number for t in trials] == list(range(12))
    assert all(t.state is TrialState.COMPLETE for t in trials)
    storage.close()


def test_sigterm_fails_the_running_trial_and_exits_130(tmp_path: Path) -> None:
    (tmp_path / "tune.py").write_text(OBJECTIVE)
    db = tmp_path / "shared.db"
    worker = _worker(tmp_path, db, sleep="30")
    deadline = time.time() + 60
    while time.time() < deadline:
        if db.exists():
            storage = SQLStorage(f"sqlite:///{db}", journal=None)
            studies = storage.list_studies()
            running = storage.count_trials(studies[0].study_id, states=[TrialState.RUNNING]) if studies else 0
            storage.close()
            if running:
                break
        time.sleep(0.1)
    worker.send_signal(signal.SIGTERM)
    _, err = worker.communicate(timeout=60)
    assert worker.returncode == 130, err
    storage = SQLStorage(f"sqlite:///{db}", read_only=True)
    [trial] = storage.get_trials(storage.get_study("tune").study_id)
    assert trial.state is TrialState.FAILED and trial.system_attrs["fail_reason"] == "interrupted"
    storage.close()


def test_run_on_a_local_dask_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    (tmp_path / "tune.py").write_text(OBJECTIVE)
    db = str(tmp_path / "d.db")
    argv = [
        "run",
        str(tmp_path / "tune.py"),
        "--n-trials",
        "6",
        "--storage",
        db,
        "--dask",
        "local",
        "--seed",
        "0",
    ]
    assert main(argv) == 0
    assert "6 trials (complete 6)" in capsys.readouterr().out


def test_run_on_a_local_dask_cluster_at_fidelities_resumes_on_the_workers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file's objective travels by value with its signature: it gets its trial."""
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    (tmp_path / "tune.py").write_text(RESUMING)
    db = tmp_path / "f.db"
    argv = ["run", str(tmp_path / "tune.py"), "--storage", str(db), "--study", "tune", "--dask", "local",
            "--fidelity", "fidelity", "--max-cost", "40", "--seed", "0"]
    assert main(argv) == 0
    capsys.readouterr()
    storage = SQLStorage(f"sqlite:///{db}", journal=None)
    study_id = storage.get_study("tune").study_id
    trials, spent = storage.get_trials(study_id), storage.spent_cost(study_id)
    storage.close()
    assert all(t.state is TrialState.COMPLETE for t in trials)
    assert any(t.system_attrs.get("resumed") for t in trials)
    assert spent == sum(t.user_attrs["trained"] for t in trials) and 40 - 9 <= spent < 40 + 9


PRUNED = """
import treefarm as tf

space = {"x": tf.Real(0.0, 1.0)}
stopper = tf.ThresholdPruner(upper=0.5)


def objective(p, trial):
    for step in range(3):
        trial.report(step, p["x"])
        if trial.should_prune():
            raise tf.TrialPruned()
    return p["x"]
"""


def test_run_and_worker_use_the_pruner_the_file_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tune.py").write_text(PRUNED)
    db = tmp_path / "p.db"
    assert main(["run", str(tmp_path / "tune.py"), "--storage", str(db), "--study", "tune",
                 "--n-trials", "10", "--seed", "0", "--pruner", "stopper"]) == 0
    assert "pruned" in capsys.readouterr().out
    worker = _worker(tmp_path, db, "--n-trials", "20", "--pruner", "stopper")
    _, err = worker.communicate(timeout=180)
    assert worker.returncode == 0, err
    storage = SQLStorage(f"sqlite:///{db}", journal=None)
    trials = storage.get_trials(storage.get_study("tune").study_id)
    storage.close()
    assert len(trials) == 20 and {t.state for t in trials} == {TrialState.COMPLETE, TrialState.PRUNED}
    assert all((t.state is TrialState.PRUNED) == (t.params["x"] > 0.5) for t in trials)
    with pytest.raises(SystemExit) as usage:
        main(["run", str(tmp_path / "tune.py"), "--storage", str(db), "--study", "tune", "--pruner", "space"])
    assert usage.value.code == 2 and "--pruner must name a Pruner" in capsys.readouterr().err
