"""Recovery of dead workers' trials: a zombie is dead, a live worker is never failed on
its heartbeat's age alone, and a configuration that kills its worker is re-run once."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import treefarm as tf
from treefarm.execution.liveness import _start_time, identity, worker_alive, worker_gone
from treefarm.storage import JSON, REQUEUED, TrialRecord, TrialState, memory
from treefarm.study.state.recovery import REQUEUE_LOST

from .objectives import SPACE

NO_PID = 2**22 + 12345  # above any pid_max: no such process
PARAMS: dict[str, JSON] = {"x": 0.25, "k": "b"}


class _PastClock:
    """The ``time`` module, but ``time()`` is ``age`` seconds in the past: a trial the
    storage claims meanwhile starts with a heartbeat that old (no sleeping, and no
    race with a recovery that runs moments later)."""

    def __init__(self, age: float) -> None:
        self._age = age

    def time(self) -> float:
        return time.time() - self._age

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


@pytest.fixture
def child() -> Iterator[subprocess.Popen[bytes]]:
    """A live child process, killed and reaped after the test."""
    process = subprocess.Popen(["sleep", "60"])
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def _identity_of(process: subprocess.Popen[bytes]) -> dict[str, JSON]:
    """The identity ``process`` would store for its trials (as :func:`identity` builds it)."""
    return {
        **identity(),
        "pid": process.pid,
        "token": f"child-{process.pid}",
        "start": _start_time(process.pid),
    }


def _dead_identity() -> dict[str, JSON]:
    """A worker of this PID namespace whose process no longer exists."""
    return {**identity(), "pid": NO_PID, "token": "dead"}


def _kill_unreaped(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL ``process`` and wait until it has exited, without reaping it: a zombie."""
    os.kill(process.pid, signal.SIGKILL)
    os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)


def _state_of(pid: int) -> str:
    """The state letter of /proc/PID/stat ('Z' for a zombie)."""
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]


def _study() -> tf.Study:
    study = tf.Study.create(space=SPACE, seed=0, requeue_interrupted=True)
    assert isinstance(study.storage, memory.InMemoryStorage)
    return study


def _running(study: tf.Study, worker: dict[str, JSON], *, age: float = 0.0, stale_after: float = 10.0) -> int:
    """A RUNNING trial of ``worker`` with PARAMS whose last heartbeat is ``age`` seconds old."""
    clock: ModuleType | _PastClock = _PastClock(age) if age else time
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(memory, "time", clock)
        record = study.storage.claim_trial(
            study.study_id, system_attrs={"worker": worker, "stale_after": stale_after}
        )
    assert record is not None
    study.storage.set_trial_params(study.study_id, record.number, PARAMS)
    return record.number


def _trial(study: tf.Study, number: int) -> TrialRecord:
    return study.storage.get_trial(study.study_id, number)


def _requeued(study: tf.Study) -> list[TrialRecord]:
    return [t for t in study.storage.get_trials(study.study_id) if REQUEUED in t.system_attrs]


# ------------------------------------------------------------------ zombies
def test_a_killed_worker_not_yet_reaped_is_gone(child: subprocess.Popen[bytes]) -> None:
    """Its /proc entry and start time outlive it until its parent reaps it."""
    worker = _identity_of(child)
    assert not worker_gone(worker) and worker_alive(worker)
    _kill_unreaped(child)
    assert _state_of(child.pid) == "Z"
    assert worker_gone(worker)
    assert not worker_alive(worker)


def test_recovery_fails_the_trial_of_a_zombie_worker(child: subprocess.Popen[bytes]) -> None:
    study = _study()
    number = _running(study, _identity_of(child))
    _kill_unreaped(child)
    assert study.recover() == [number]
    assert f"worker process {child.pid}" in _trial(study, number).system_attrs["fail_reason"]


# ------------------------------------------------------------ live workers
def test_worker_alive_only_when_this_process_can_verify_it(child: subprocess.Popen[bytes]) -> None:
    alive = _identity_of(child)
    assert worker_alive(identity())
    assert worker_alive(alive)
    assert not worker_alive({**alive, "namespace": "another-container"})
    assert not worker_alive({**alive, "start": None})
    assert not worker_alive({**alive, "start": int(alive["start"]) + 1})  # type: ignore[arg-type]
    assert not worker_alive({key: value for key, value in alive.items() if key != "pid"})
    assert not worker_alive(_dead_identity())
    assert not worker_alive("host:123")


def test_recovery_keeps_the_trials_of_live_workers_whatever_their_heartbeats_age(
    child: subprocess.Popen[bytes],
) -> None:
    """An objective holding the GIL stops its worker's heartbeat thread: a worker this
    process sees alive keeps its trial; an unverifiable or dead one is failed."""
    study = _study()
    mine = _running(study, identity(), age=100.0)
    childs = _running(study, _identity_of(child), age=100.0)
    dead = _running(study, _dead_identity(), age=100.0)
    elsewhere = {"host": "elsewhere", "pid": child.pid, "token": "t", "namespace": "other", "start": 1}
    remote = _running(study, elsewhere, age=100.0)
    assert study.recover() == [dead, remote]
    assert _trial(study, mine).state is TrialState.RUNNING
    assert _trial(study, childs).state is TrialState.RUNNING
    assert _trial(study, remote).system_attrs["fail_reason"] == "stale heartbeat: worker presumed dead"
    assert "died" in _trial(study, dead).system_attrs["fail_reason"]
    assert study.recover() == []  # the kept trials were beaten: fresh until their next deadline


def test_recovery_fails_a_live_looking_trial_once_its_worker_is_killed(
    child: subprocess.Popen[bytes],
) -> None:
    study = _study()
    number = _running(study, _identity_of(child), age=100.0)
    assert study.recover() == []
    child.kill()
    child.wait()
    assert study.recover() == [number]


# ---------------------------------------------------- re-queue limit
def test_recovery_reruns_a_configuration_that_kills_its_worker_only_once() -> None:
    study = _study()
    first = _running(study, _dead_identity())
    assert study.recover() == [first]
    [rerun] = _requeued(study)
    assert rerun.state is TrialState.WAITING and rerun.system_attrs[REQUEUED] == first
    assert dict(rerun.params) == PARAMS

    claimed = study.storage.claim_waiting_trial(study.study_id, system_attrs={"worker": _dead_identity()})
    assert claimed is not None and claimed.number == rerun.number
    assert study.recover() == [rerun.number]
    assert [t.number for t in _requeued(study)] == [rerun.number]  # no third run
    assert not study.storage.get_trials(study.study_id, states=[TrialState.WAITING])
    reason = _trial(study, rerun.number).system_attrs["fail_reason"]
    assert "died while running the trial" in reason
    assert f"not queued again: trial {first}'s configuration was already re-run 1 time" in reason
    assert f"requeue_lost={REQUEUE_LOST}" in reason


def test_a_rerun_is_counted_along_the_requeued_from_chain() -> None:
    """A re-run queued without a count (by hand, or an older treefarm) still counts."""
    study = _study()
    first = _running(study, _dead_identity())
    created = study.storage.create_trial(
        study.study_id, params=PARAMS, system_attrs={"worker": _dead_identity(), REQUEUED: first}
    )
    assert study.recover() == [first, created.number]
    assert [t.system_attrs[REQUEUED] for t in _requeued(study)] == [first, first]  # one new: first's
    assert "not queued again" in _trial(study, created.number).system_attrs["fail_reason"]


def test_a_stale_rerun_is_not_queued_again_either(caplog: pytest.LogCaptureFixture) -> None:
    """A worker on another host cannot be checked: its heartbeat fails it, the limit holds."""
    study = _study()
    elsewhere = {"host": "elsewhere", "pid": 1, "token": "t", "namespace": "other", "start": 1}
    first = _running(study, elsewhere, age=100.0)
    assert study.recover() == [first]
    claimed = study.storage.claim_waiting_trial(study.study_id, system_attrs={"worker": elsewhere})
    assert claimed is not None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(memory, "time", _PastClock(-100.0))  # the storage's clock jumps ahead: it is stale
        assert study.recover() == [claimed.number]
    assert len(_requeued(study)) == 1
    assert f"trial {claimed.number} is not queued again" in caplog.text


@pytest.mark.parametrize(("limit", "queued"), [(0, 0), (1, 0), (2, 1)])
def test_optimize_recovers_with_its_own_requeue_lost(limit: int, queued: int) -> None:
    """``requeue_lost`` is also the limit of the recovery ``optimize`` runs first: a dead
    worker's trial that was itself a re-run is queued again only when the limit is 2."""
    study = _study()
    earlier = study.storage.create_trial(study.study_id, params=PARAMS)
    study.storage.finish_trial(study.study_id, earlier.number, state=TrialState.FAILED)
    record = study.storage.claim_trial(
        study.study_id, system_attrs={"worker": _dead_identity(), REQUEUED: earlier.number, "requeues": 1}
    )
    assert record is not None
    study.storage.set_trial_params(study.study_id, record.number, PARAMS)
    study.optimize(lambda p: 0.0, 3, requeue_lost=limit)
    assert _trial(study, record.number).state is TrialState.FAILED
    assert [t.system_attrs[REQUEUED] for t in _requeued(study)] == [earlier.number] + [record.number] * queued


def test_a_worker_that_outlives_a_dead_one_recovers_its_trial_while_it_runs() -> None:
    """Recovery ran only when optimize started: a worker still running when another
    died left the dead one's trial RUNNING to the end. It runs again every stale_after
    seconds, so the dead trial is failed and its configuration re-run by the survivor."""
    study = tf.Study.create(space=SPACE, seed=0, requeue_interrupted=True, heartbeat_interval=0.05)
    dead: list[int] = []

    def objective(p: dict) -> float:
        if not dead:
            dead.append(_running(study, _dead_identity(), stale_after=study.stale_after))
        time.sleep(0.1)
        return 0.0

    study.optimize(objective, 8)
    assert _trial(study, dead[0]).state is TrialState.FAILED
    [rerun] = _requeued(study)
    assert rerun.system_attrs[REQUEUED] == dead[0] and rerun.state is TrialState.COMPLETE

