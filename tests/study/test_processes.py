"""Crash safety and concurrency: SIGKILL mid-run, two processes on one SQLite file, worker pools."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest

import treefarm as tf
from treefarm.exceptions import StudyError
from treefarm.execution.liveness import identity
from treefarm.storage import TrialState, open_storage

from . import objectives

WORKER = Path(objectives.__file__)
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(WORKER.parents[2] / "src"), *sys.path])}


def spawn(db: Path, study: str, n: int, sleep: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKER), str(db), study, str(n), str(sleep)],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def completed(db: Path, study: str) -> list:
    storage = open_storage(db)
    try:
        sid = storage.get_study(study).study_id
        return storage.get_trials(sid, states=[TrialState.COMPLETE])
    except Exception:
        return []
    finally:
        storage.close()


def test_sigkill_mid_run_then_resume_loses_nothing(tmp_path: Path) -> None:
    db = tmp_path / "crash.db"
    proc = spawn(db, "crash", 1000, 0.05)
    deadline = time.monotonic() + 60
    while len(completed(db, "crash")) < 8 and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    before = {t.number: (dict(t.params), t.value) for t in completed(db, "crash")}
    assert len(before) >= 8

    study = tf.Study.load("crash", space=objectives.SPACE, storage=db, requeue_interrupted=True)
    opened = [(t.number, t.state) for t in study.trials]
    assert [(t.number, t.state) for t in study.trials] == opened  # opening changed nothing
    study.recover()
    after = {t.number: (dict(t.params), t.value) for t in study.trials if t.state is TrialState.COMPLETE}
    assert all(after[n] == before[n] for n in before)
    assert not [t for t in study.trials if t.state is TrialState.RUNNING]
    interrupted = [t for t in study.trials if t.state is TrialState.FAILED]
    if interrupted:
        assert "died" in interrupted[0].system_attrs["fail_reason"]
    budget = 30
    study.optimize(objectives.quadratic, n_new_trials=budget - len(after))
    final = [t for t in study.trials if t.state is TrialState.COMPLETE]
    assert len(final) == budget
    if interrupted and interrupted[0].params:  # killed mid-objective, not mid-suggestion
        requeued = [t for t in study.trials if t.system_attrs.get("requeued_from") == interrupted[0].number]
        assert requeued and dict(requeued[0].params) == dict(interrupted[0].params)


def test_trials_of_a_dead_worker_are_failed_and_requeued_when_they_have_a_configuration(
    tmp_path: Path,
) -> None:
    """The SIGKILL test cannot choose where the kill lands; this places it: one
    trial died mid-objective (params set), one mid-suggestion (none yet)."""
    db = tmp_path / "dead.db"
    tf.Study.create("dead", space=objectives.SPACE, storage=db, seed=0)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    worker = {"worker": {**identity(), "pid": dead.pid, "token": "dead"}}
    storage = open_storage(db)
    try:
        sid = storage.get_study("dead").study_id
        params = {"x": 0.25, "k": "b"}
        evaluating = storage.create_trial(sid, params=params, system_attrs=worker).number
        suggesting = storage.create_trial(sid, params={}, system_attrs=worker).number
    finally:
        storage.close()

    study = tf.Study.load("dead", space=objectives.SPACE, storage=db, requeue_interrupted=True)
    assert study.recover() == [evaluating, suggesting]
    trials = {t.number: t for t in study.trials}
    assert trials[evaluating].state is TrialState.FAILED
    assert "died while running the trial" in trials[evaluating].system_attrs["fail_reason"]
    assert trials[suggesting].state is TrialState.FAILED
    assert "before the trial's configuration was chosen" in trials[suggesting].system_attrs["fail_reason"]
    requeued = [t for t in study.trials if "requeued_from" in t.system_attrs]
    assert [(t.system_attrs["requeued_from"], dict(t.params)) for t in requeued] == [(evaluating, params)]
    study.optimize(objectives.quadratic, n_new_trials=1)
    assert dict(study.trials[-1].params) == params and study.trials[-1].state is TrialState.COMPLETE


@pytest.mark.parametrize("algo", ["tpe", "gp"])
def test_four_processes_share_one_sqlite_study_and_its_budget(tmp_path: Path, algo: str) -> None:
    """Each worker is given the study's total: together they make exactly that many
    trials, never one configuration twice (the GP, deterministic given the history,
    makes the same suggestion in workers that suggest at one instant)."""
    db = tmp_path / "shared.db"
    tf.Study.create("shared", space=objectives.SPACE, storage=db, seed=1, algo=algo)
    budget = 60
    # 0.05 s an evaluation: a first worker alone needs 3 s for the budget, so the others,
    # started at once but slow to import on a loaded machine, still take part
    procs = [spawn(db, "shared", budget, 0.05) for _ in range(4)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        assert "locked" not in err
    storage = open_storage(db)
    trials = storage.get_trials(storage.get_study("shared").study_id)
    assert [t.number for t in trials] == list(range(budget))
    assert all(t.state is TrialState.COMPLETE and t.value is not None for t in trials)
    assert len({tuple(sorted(t.params.items())) for t in trials}) == budget
    assert len({t.system_attrs["worker"]["token"] for t in trials}) > 1


@pytest.mark.parametrize("backend", ["process", "thread"])
def test_parallel_batches_are_reproducible(backend: str) -> None:
    def run() -> list[dict]:
        study = tf.Study.create(space=objectives.SPACE, seed=9)
        study.optimize(objectives.slow_quadratic, 8, n_jobs=2, backend=backend)
        return [dict(t.params) for t in study.trials]

    first = run()
    assert len(first) == 8 and first == run()


def test_a_dying_worker_process_fails_its_trial_only() -> None:
    study = tf.Study.create(space=objectives.SPACE, seed=2)
    study.optimize(objectives.suicidal, 12, n_jobs=2)
    # a lost evaluation's re-run claimed once the budget is spent comes on top of it
    states = [t.state for t in study.trials if t.state is not TrialState.WAITING]
    lost = sum(1 for t in study.trials if t.system_attrs.get("worker_lost"))
    assert 12 <= len(states) <= 12 + lost and TrialState.COMPLETE in states
    died = [t for t in study.trials if "died" in t.system_attrs.get("fail_reason", "")]
    assert any(t.params["x"] > 3.0 for t in died)
    assert all(t.params["x"] <= 3.0 for t in study.trials if t.state is TrialState.COMPLETE)


def test_a_configuration_that_kills_its_pool_worker_runs_again_once() -> None:
    """A dead pool process breaks the pool and fails every trial it held: each is a
    lost evaluation (``worker_lost``), queued again as on Dask and with ``treefarm
    worker``, at most ``requeue_lost`` times, so the killer runs twice and stops."""
    study = tf.Study.create(space=objectives.SPACE, seed=2)
    study.enqueue({"x": 3.5, "k": "a"})
    study.optimize(objectives.suicidal, 6, n_jobs=2)
    killers = [t for t in study.trials if t.params.get("x") == 3.5]
    assert [t.state for t in killers] == [TrialState.FAILED] * 2
    assert killers[1].system_attrs["requeued_from"] == killers[0].number
    assert all(t.system_attrs.get("worker_lost") for t in killers)
    lost = [t for t in study.trials if t.system_attrs.get("worker_lost") and "requeued_from" not in t.system_attrs]
    rerun = {t.system_attrs.get("requeued_from") for t in study.trials}
    assert all(t.number in rerun for t in lost)
    # no process of a broken pool outlives the run: one left waiting for work hung the
    # interpreter's exit, which joins every worker process (about one run in ten)
    assert multiprocessing.active_children() == []


def test_a_bystander_of_a_broken_pool_ends_evaluated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A killer and a bystander that is still running when the killer dies: the
    bystander's configuration ends evaluated (in its first run, or in its re-run,
    which goes alone), the killer's runs twice and stops."""
    study = tf.Study.create(space=objectives.SPACE, algo="random", seed=2)
    monkeypatch.setenv("TREEFARM_TEST_MARKER", str(tmp_path / "killer-started"))
    study.enqueue({"x": 0.5, "k": "a"})  # waits in its process until the killer has started
    study.enqueue({"x": 3.5, "k": "a"})
    study.optimize(objectives.killer_and_bystander, 2, n_jobs=2)
    assert [t.state for t in study.trials if t.params.get("x") == 0.5][-1] is TrialState.COMPLETE
    assert [t.state for t in study.trials if t.params.get("x") == 3.5] == [TrialState.FAILED] * 2


def test_a_rerun_of_a_lost_evaluation_is_asked_alone() -> None:
    """Re-runs are claimed first; one goes in a batch of its own, so a configuration
    that kills its worker again cannot take the trials beside it along."""
    from treefarm.storage import REQUEUED
    from treefarm.study.run.steps import ask_batch as _ask_batch
    from treefarm.study.run.stopping import Stopper
    from treefarm.study.study import asking_of

    study = tf.Study.create(space=objectives.SPACE, algo="random", seed=2)
    for x in (3.5, 0.5):
        study.storage.create_trial(
            study.study_id, params={"x": x, "k": "a"}, state=TrialState.WAITING, system_attrs={REQUEUED: 0}
        )
    first, _ = _ask_batch(asking_of(study), 2, None, (Exception,), Stopper())
    second, _ = _ask_batch(asking_of(study), 2, None, (Exception,), Stopper())
    assert [[t.config["x"] for t in batch] for batch in (first, second)] == [[3.5], [0.5]]
    study.enqueue({"x": 1.0, "k": "a"})  # not a re-run: a batch fills as before
    assert len(_ask_batch(asking_of(study), 2, None, (Exception,), Stopper())[0]) == 2


def test_a_trial_submitted_after_its_batch_broke_the_pool_runs_in_a_fresh_one() -> None:
    """The race behind a flaky run: a trial of the batch kills its worker before
    the next trial is submitted, so submitting to the broken pool must not fail."""
    from treefarm.study.run.parallel import Evaluator

    ev = Evaluator(objectives.quadratic, n_jobs=2, backend="process", wants_trial=False)
    with ev:
        broken = ev._get_pool()
        with pytest.raises(BrokenProcessPool):
            broken.submit(os._exit, 1).result()
        study = tf.Study.create(space=objectives.SPACE, seed=0)
        trials = [study.ask(), study.ask()]
        outcomes = ev.run(trials)
        assert ev._pool is not None and ev._pool is not broken
    assert [o.state for o, _ in outcomes] == [TrialState.COMPLETE, TrialState.COMPLETE]


def test_a_pool_caught_breaking_sends_the_trial_to_a_fresh_one() -> None:
    """A pool broken by a trial's death but not yet marked broken fails the worker
    process it starts for the next trial with OSError ('handle is closed'): that
    trial did not run and goes to a fresh pool, as after BrokenProcessPool."""
    from concurrent.futures import Executor

    from treefarm.study.run.parallel import Evaluator

    class Breaking(Executor):
        shut = False

        def submit(self, *args: object, **kwargs: object) -> Any:
            raise OSError("handle is closed")

        def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
            self.shut = True

    ev = Evaluator(objectives.quadratic, n_jobs=2, backend="process", wants_trial=False)
    breaking = Breaking()
    with ev:
        ev._pool = breaking
        study = tf.Study.create(space=objectives.SPACE, seed=0)
        outcomes = ev.run([study.ask(), study.ask()])
        assert ev._pool is not None and ev._pool is not breaking
    assert breaking.shut
    assert [o.state for o, _ in outcomes] == [TrialState.COMPLETE, TrialState.COMPLETE]


def test_unpicklable_objective_is_a_clear_error() -> None:
    study = tf.Study.create(space=objectives.SPACE, seed=0)
    with pytest.raises(StudyError, match="must be picklable"):
        study.optimize(lambda p: 1.0, 4, n_jobs=2)


def test_an_exception_that_cannot_be_rebuilt_fails_only_its_own_trial() -> None:
    """A worker's exception whose class cannot be unpickled used to break the whole
    pool: every trial failed as 'the worker process died'."""
    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, seed=0)
    study.enqueue({"x": 0.1})
    study.enqueue({"x": 0.9})
    study.optimize(objectives.raises_below_half, 2, n_jobs=2, backend="process", catch=(Exception,))
    first, second = study.trials
    assert first.state is TrialState.FAILED and "TwoArgumentError: code 7: x below half" in first.system_attrs["fail_reason"]
    assert (second.state, second.value) == (TrialState.COMPLETE, 0.9)
