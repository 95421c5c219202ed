"""SIGTERM (kill, docker stop, systemd) and SIGHUP (a closed terminal) end a run, a worker
and a dashboard as Ctrl-C does: their trials are failed "interrupted" (a dashboard's, the
ones asked from its page), never left running."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import treefarm as tf
from treefarm.storage import TrialState, open_storage

SRC = Path(__file__).resolve().parents[2] / "src"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), *sys.path])}
SCRIPT = """import time
import treefarm as tf
space = {"x": tf.Real(0, 1)}
def objective(p):
    time.sleep(30)
    return p["x"]
"""


def _cli(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "treefarm.cli.main", *args],
        env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )


def _trials(db: Path, study: str) -> list[tf.TrialRecord]:
    storage = open_storage(db, read_only=True)
    try:
        return storage.get_trials(storage.get_study(study).study_id)
    finally:
        storage.close()


def _until_running(db: Path, study: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if any(t.state is TrialState.RUNNING for t in _trials(db, study)):
                return
        except Exception:  # the file or the study is not there yet
            pass
        time.sleep(0.1)
    raise AssertionError("no trial started")


@pytest.mark.parametrize("command", ["run", "worker"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_terminated_run_or_worker_fails_its_trial_and_exits_130(tmp_path: Path, command: str, signum: int) -> None:
    db, script = tmp_path / "t.db", tmp_path / "job.py"
    script.write_text(SCRIPT)
    if command == "run":
        proc = _cli("run", str(script), "--storage", str(db), "--study", "job", "--n-trials", "3")
    else:
        proc = _cli("worker", str(db), "--study", "job", "--file", str(script), "--n-trials", "3")
    _until_running(db, "job")
    os.kill(proc.pid, signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    trials = _trials(db, "job")
    assert [t.system_attrs.get("fail_reason") for t in trials] == ["interrupted"]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_terminated_dashboard_releases_the_trial_asked_from_its_page(tmp_path: Path, signum: int) -> None:
    pytest.importorskip("uvicorn")
    db, port = tmp_path / "d.db", _port()
    tf.Study.create("s", space={"x": tf.Real(0, 1)}, storage=str(db), algo="random").storage.close()
    space = tmp_path / "space.py"
    space.write_text(SCRIPT)
    proc = _cli("dashboard", str(db), "--allow-writes", "--port", str(port), "--space", str(space))
    assert proc.stderr is not None
    token = ""
    while not token:
        line = proc.stderr.readline()
        assert line, "the dashboard stopped before printing its token"
        token = (re.search(r"\?token=(\S+)", line) or [None, ""])[1]  # type: ignore[index]
    origin = f"http://127.0.0.1:{port}"
    request = urllib.request.Request(
        f"{origin}/api/studies/1/ask", data=json.dumps({"author": "a"}).encode(), method="POST",
        headers={"Content-Type": "application/json", "Origin": origin, "X-Treefarm-Token": token},
    )
    for _ in range(100):  # until the server listens
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                assert json.load(answer)["number"] == 0
            break
        except urllib.error.HTTPError as refused:
            raise AssertionError(refused.read()) from None
        except OSError:
            time.sleep(0.1)
    assert _trials(db, "s")[0].state is TrialState.RUNNING
    os.kill(proc.pid, signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode in (0, 130), err
    (trial,) = _trials(db, "s")
    assert trial.state is TrialState.FAILED and trial.system_attrs.get("fail_reason") == "the dashboard that asked it stopped"
