"""The command line as a person runs it: Ctrl-C, kill -9 of a parallel run, a resume in another process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import treefarm as tf
from treefarm.storage import TrialState, open_storage

SRC = Path(__file__).resolve().parents[2] / "src"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), *sys.path])}

SCRIPT = '''
import time
import treefarm as tf
space = {"x": tf.Real(-5.0, 5.0), "y": tf.Real(-5.0, 5.0)}
def objective(p):
    time.sleep(SLEEP)
    return (p["x"] - 1.0) ** 2 + (p["y"] + 2.0) ** 2
'''


def _script(tmp_path: Path, sleep: float) -> Path:
    path = tmp_path / "job.py"
    path.write_text(SCRIPT.replace("SLEEP", repr(sleep)))
    return path


def _cli(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "treefarm.cli.main", *args],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _trials(db: Path, study: str = "job") -> list[tf.TrialRecord]:
    storage = open_storage(db, read_only=True)
    try:
        return storage.get_trials(storage.get_study(study).study_id)
    finally:
        storage.close()


def _wait_for_complete(db: Path, n: int, timeout: float = 120, *, running: bool = False) -> None:
    """Until ``n`` trials are complete (and, with ``running``, one started 0.2-1.0 s ago is
    running: a Ctrl-C then lands inside a 1.5 s objective, not in the suggestion between two
    trials, nor in the recording of a batch whose trials all just finished)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if db.exists():
            try:
                trials = _trials(db)
                complete = sum(t.state is TrialState.COMPLETE for t in trials)
                inside = [
                    t for t in trials
                    if t.state is TrialState.RUNNING and t.started is not None and 0.2 <= time.time() - t.started <= 1.0
                ]
                if complete >= n and (not running or inside):
                    return
            except Exception:
                pass
        time.sleep(0.05)
    raise AssertionError(f"fewer than {n} trials completed{' and one running' if running else ''} in {timeout} s")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_fails_the_running_trials_prints_a_summary_and_exits_130(tmp_path: Path, jobs: str) -> None:
    db = tmp_path / "c.db"
    # 1.5 s an objective: the Ctrl-C lands inside the running trial seen, even on a loaded machine (at
    # 0.3 s that trial could end, and the next not yet be claimed, before the signal arrived)
    proc = _cli("run", str(_script(tmp_path, 1.5)), "--storage", str(db), "--seed", "0", "--jobs", jobs)
    _wait_for_complete(db, 3, running=True)
    os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole process group
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    assert "best value:" in out
    trials = _trials(db)
    assert not [t for t in trials if t.state is TrialState.RUNNING]
    assert any(t.system_attrs.get("fail_reason") == "interrupted" for t in trials)


def _descendants(pid: int) -> set[int]:
    found: set[int] = set()
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                if int(stat.rpartition(")")[2].split()[1]) == parent and int(entry.name) not in found:
                    found.add(int(entry.name))
                    frontier.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to list a process's children")
def test_kill_9_of_a_parallel_run_leaves_no_orphan_and_the_next_run_recovers(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    script = _script(tmp_path, 1.0)
    proc = _cli("run", str(script), "--storage", str(db), "--seed", "0", "--jobs", "2")
    _wait_for_complete(db, 2)
    children = _descendants(proc.pid)
    assert len(children) >= 2  # the pool's workers (and multiprocessing's resource tracker)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    deadline = time.monotonic() + 10
    while any(_alive(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [c for c in children if _alive(c)]
    running = [t.number for t in _trials(db) if t.state is TrialState.RUNNING]
    assert running  # killed mid-batch
    done = sum(1 for t in _trials(db))
    resumed = _cli("run", str(script), "--storage", str(db), "--n-trials", str(done + 2))
    _, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    trials = {t.number: t for t in _trials(db)}
    assert all(trials[n].state is TrialState.FAILED and "died" in trials[n].system_attrs["fail_reason"] for n in running)


def test_a_gp_study_resumed_by_the_cli_continues_as_an_uninterrupted_run(tmp_path: Path) -> None:
    # Both runs go through the CLI, in processes with one environment: a BLAS with
    # another thread count (this test process's may be limited by earlier tests)
    # rounds the GP's linear algebra differently in the last bits.
    script = _script(tmp_path, 0.0)
    namespace: dict = {}
    exec(compile(script.read_text(), str(script), "exec"), namespace)
    gp = tf.GP(n_startup=4, acquisition="ucb")
    runs = {"whole": ("9",), "resumed": ("5", "9")}
    for name, totals in runs.items():
        db = tmp_path / f"{name}.db"
        tf.Study.create("job", space=namespace["space"], storage=db, algo=gp, seed=3)
        for total in totals:
            run = _cli("run", str(script), "--storage", str(db), "--n-trials", total)
            _, err = run.communicate(timeout=300)
            assert run.returncode == 0, err
    stored = open_storage(tmp_path / "resumed.db", read_only=True).get_study("job").attrs["optimizer"]
    assert stored["algo"] == "gp" and stored["options"]["acquisition"] == "ucb"
    whole, resumed = ([dict(t.params) for t in _trials(tmp_path / f"{name}.db")] for name in runs)
    assert len(whole) == 9 and resumed == whole


def test_a_reader_that_leaves_early_gets_no_traceback(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    study = tf.Study.create("job", space={"x": tf.Real(0, 1)}, storage=db, seed=0, algo="random")
    study.optimize(lambda p: p["x"], 3000)  # more rows than a pipe buffers
    show = subprocess.Popen(
        [sys.executable, "-m", "treefarm.cli.main", "show", str(db), "--study", "job"],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert show.stdout is not None
    show.stdout.readline()
    show.stdout.close()  # as `| head -1` does
    _, err = show.communicate(timeout=60)
    assert b"Traceback" not in err
