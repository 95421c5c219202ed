"""An objective taking ``trial`` away from the study's process (an executor, worker
processes): it gets a detached trial that carries what it reads and brings back what it
writes, so the same seed makes the same trials as in the study's process, the cost
budget is spent once, and what needs the storage during the run names itself."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

import treefarm as tf
from treefarm.exceptions import StorageError, StudyError
from treefarm.storage import TrialRecord
from treefarm.study.run.remote_trial import RemoteTrial, StudyAddress, call_with_trial, detach, settle

from ..execution import objectives
from .resume_worker import FIDELITY, SPACE, train


@pytest.fixture(autouse=True)
def _artifacts_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A study in memory keeps its artifacts in ``treefarm.artifacts`` in the working directory."""
    monkeypatch.chdir(tmp_path)


class SerialExecutor:
    """Runs each task at once, its function, arguments and result through pickle as a
    cluster's would travel: a deterministic executor."""

    def submit(self, function: Callable[..., Any], *args: Any) -> Future[Any]:
        function, args = pickle.loads(pickle.dumps((function, args)))
        future: Future[Any] = Future()
        future.set_result(pickle.loads(pickle.dumps(function(*args))))
        return future


def _study(name: str) -> tf.Study:
    return tf.Study.create(name, space=SPACE, fidelity=FIDELITY, seed=2, algo="random")


def _trials(study: tf.Study) -> list[tuple[Any, ...]]:
    return [
        (t.number, dict(t.params), t.state, t.value, t.system_attrs.get("fidelity"), t.system_attrs.get("continues"),
         t.system_attrs.get("resumed"), t.cost, t.user_attrs.get("trained"), t.user_attrs.get("checkpoint_of"))
        for t in study.trials
    ]


def _fidelity(t: TrialRecord) -> float:
    return float(t.system_attrs["fidelity"])


def test_worker_processes_make_the_trials_threads_make() -> None:
    """Synchronous batches of two: in threads the objective gets the study's Trial, in
    worker processes the detached one; the same seed gives the same trials, the same
    continuations from the same checkpoints and the same costs."""
    runs = []
    for backend in ("thread", "process"):
        study = _study(backend)
        study.optimize(train, max_cost=60, n_jobs=2, backend=backend, progress=False)
        runs.append(_trials(study))
    assert runs[0] == runs[1]
    assert any(row[6] for row in runs[1]), "a promotion resumed from its checkpoint"


def test_a_serial_executor_makes_the_same_trials_for_the_same_seed_and_spends_the_budget_once() -> None:
    runs = []
    for name in ("first", "second"):
        study = _study(name)
        study.optimize(train, max_cost=100, executor=SerialExecutor(), progress=False)
        runs.append(_trials(study))
        trials = study.trials
        spent = study.storage.spent_cost(study.study_id)
        assert 100 - FIDELITY.high <= spent < 100 + FIDELITY.high
        assert spent == pytest.approx(sum(t.user_attrs["trained"] for t in trials))  # the cost is the work done
        for t in trials:
            if t.system_attrs.get("resumed"):
                source = study.storage.get_trial(study.study_id, t.system_attrs["continues"])
                assert t.user_attrs["checkpoint_of"] == source.number
                assert t.cost == FIDELITY.cost_of(_fidelity(t)) - FIDELITY.cost_of(_fidelity(source))
    assert runs[0] == runs[1]
    assert any(row[6] for row in runs[0]), "a promotion resumed from its checkpoint"


def _first_promotion(study: tf.Study) -> tf.Trial:
    trial = study.ask()
    while trial.continues is None:
        study.tell(trial, train(trial.value, trial))
        trial = study.ask()
    return trial


def test_a_detached_trial_carries_what_the_objective_reads_and_brings_back_what_it_writes(tmp_path: Path) -> None:
    study = _study("detached")
    promoted = _first_promotion(study)
    study.storage.set_trial_user_attr(study.study_id, promoted.number, "given", 7)
    remote = pickle.loads(pickle.dumps(detach(promoted)))
    assert (remote.number, remote.fidelity, remote.continues, remote.budget) == (
        promoted.number, promoted.fidelity, promoted.continues, None
    )
    assert remote.value == promoted.value and remote.user_attrs == {"given": 7}
    state = remote.load_checkpoint()
    assert pickle.loads(state)["trial"] == promoted.continues  # read by the study before it was sent
    made = tmp_path / "model.bin"
    made.write_bytes(b"model")
    assert remote.save_artifact(made)["name"] == "model.bin"  # a worker's file travels as its content
    remote.save_checkpoint(b"first")
    entry = remote.save_checkpoint(b"second")
    remote.set_user_attr("seen", remote.user_attrs["given"] + 1)
    reserved = FIDELITY.cost_of(float(promoted.fidelity or 0))
    assert study.storage.get_trial(study.study_id, promoted.number).cost == reserved  # nothing given back yet
    assert settle(promoted, pickle.loads(pickle.dumps(remote.effects()))) is True
    stored = study.storage.get_trial(study.study_id, promoted.number)
    source = study.storage.get_trial(study.study_id, promoted.continues)
    assert stored.cost == reserved - FIDELITY.cost_of(_fidelity(source)) and stored.system_attrs["resumed"] is True
    assert stored.user_attrs["seen"] == 8
    assert study.load_artifact(promoted.number, "checkpoint") == b"second" and study.artifacts(promoted.number)[-1] == entry
    assert study.load_artifact(promoted.number, "model.bin") == b"model"


@pytest.mark.parametrize(
    ("call", "why"),
    [
        (lambda t: t.report(1, 0.5), r"trial\.report needs the study's storage .* pruner to compare"),
        (lambda t: t.should_prune(), r"trial\.should_prune needs the study's storage .* stored curve"),
        (lambda t: t.study, r"trial\.study needs the study's storage"),
    ],
)
def test_what_needs_the_storage_during_the_run_names_itself_on_a_worker(call: Callable[[RemoteTrial], object], why: str) -> None:
    study = tf.Study.create(space=SPACE, pruner=tf.HyperbandPruner(min_resource=1, max_resource=9), seed=0)
    assert study.worker_address() is None
    remote = detach(study.ask(), study.worker_address())  # a study in memory: nothing a worker can open
    with pytest.raises(StudyError, match=why + r".* the study is in memory.* but got trial\.\w+ on trial 0"):
        call(remote)
    assert remote.budget is not None  # the pruner's budget is read by the study before the trial is sent


def test_a_detached_trial_refuses_what_the_study_refuses_at_the_call() -> None:
    remote = detach(tf.Study.create(space=SPACE, seed=0).ask())
    assert remote.continues is None and remote.fidelity is None
    with pytest.raises(StudyError, match=r"load_checkpoint needs a study with a fidelity .* but got fidelity=None"):
        remote.load_checkpoint()
    with pytest.raises(StudyError, match=r"save_checkpoint needs a study with a fidelity .* but got fidelity=None"):
        remote.save_checkpoint(b"state")
    with pytest.raises(StorageError, match="user_attrs"):
        remote.set_user_attr("model", object())
    with pytest.raises(StudyError, match="an artifact given as bytes needs a name"):
        remote.save_artifact(b"data")


def test_a_checkpoint_missing_from_the_store_is_named_by_load_checkpoint_on_the_worker(tmp_path: Path) -> None:
    study = _study("missing")
    promoted = _first_promotion(study)
    study.artifact_store = str(tmp_path / "elsewhere")
    remote = detach(promoted)  # sending it does not fail: the objective may not load it
    kind, error, effects = call_with_trial(train, remote)
    assert kind == "error" and isinstance(error, StudyError)
    assert f"but got trial={promoted.continues}" in str(error)
    assert settle(promoted, effects) is False
    reserved = FIDELITY.cost_of(float(promoted.fidelity or 0))
    assert study.storage.get_trial(study.study_id, promoted.number).cost == reserved  # nothing given back


def _curve_trials(study: tf.Study) -> list[tuple[Any, ...]]:
    return [(t.number, dict(t.params), t.state, t.value, t.cost, dict(t.intermediate), t.system_attrs.get("pruned_step"))
            for t in study.trials]


def _curve_study(tmp_path: Path, name: str, pruner: tf.Pruner | None = None) -> tf.Study:
    pruner = pruner or tf.HyperbandPruner(min_resource=1, max_resource=9, reduction_factor=3)
    return tf.Study.create(name, space=objectives.SPACE, storage=tmp_path / "curves.db", pruner=pruner, seed=3,
                           algo="random")


def test_a_learning_curve_on_a_worker_reports_and_is_pruned_as_in_the_study_process(tmp_path: Path) -> None:
    """Through pickles, the worker opens the study from its database: it writes the reports,
    spends their steps and asks the pruner there, so the same seed makes the same trials,
    curves, prunings and costs as in the study's process."""
    runs = []
    for name, executor in (("here", None), ("away", SerialExecutor())):
        study = _curve_study(tmp_path, name)
        study.optimize(objectives.curve, 15, executor=executor, progress=False)
        runs.append(_curve_trials(study))
        assert study.storage.spent_cost(study.study_id) == sum(t.cost for t in study.trials)
    assert runs[0] == runs[1]
    assert any(row[2] is tf.TrialState.PRUNED and row[6] is not None for row in runs[1]), "the pruner stopped some"


def test_the_cost_budget_stops_learning_curves_on_workers(tmp_path: Path) -> None:
    """The worker's reports spend the study's budget: once it is spent, the running trials
    are stopped at their next report and no trial is claimed, as in the study's process
    (an executor claims its next trial while one runs: one step over at most for it)."""
    study = _curve_study(tmp_path, "budget")
    study.optimize(objectives.curve, max_cost=60, executor=SerialExecutor(), progress=False)
    spent = study.storage.spent_cost(study.study_id)
    assert 60 <= spent <= 61 and spent == sum(t.cost for t in study.trials)
    assert all(t.state is not tf.TrialState.RUNNING for t in study.trials)


def test_worker_processes_report_learning_curves_to_a_sqlite_study(tmp_path: Path) -> None:
    study = _curve_study(tmp_path, "processes")
    study.optimize(objectives.curve, max_cost=80, n_jobs=2, backend="process", progress=False)
    trials = study.trials
    assert all(t.state in (tf.TrialState.COMPLETE, tf.TrialState.PRUNED) for t in trials)
    pruned = [t for t in trials if t.state is tf.TrialState.PRUNED]
    assert pruned and all(t.value == t.intermediate[t.system_attrs["pruned_step"]] for t in pruned)
    assert all(t.cost == max(t.intermediate) for t in trials)  # a step is spent once, by the worker that reached it
    assert 80 <= study.storage.spent_cost(study.study_id) < 80 + 2  # one step per running trial at most


def test_a_worker_that_does_not_see_the_sqlite_file_names_it_and_makes_no_database(tmp_path: Path) -> None:
    study = _curve_study(tmp_path, "elsewhere")
    remote = pickle.loads(pickle.dumps(detach(study.ask(), study.worker_address())))
    (tmp_path / "curves.db").rename(tmp_path / "moved.db")
    with pytest.raises(StudyError, match=r"trial\.report needs .* this worker cannot find the study: .*name='elsewhere'"
                                         r".*curves\.db.* PostgreSQL.* on trial 0"):
        remote.report(1, 0.5)
    assert not (tmp_path / "curves.db").exists()


def test_the_study_on_a_worker_is_the_stored_one(tmp_path: Path) -> None:
    study = _curve_study(tmp_path, "read")
    study.optimize(objectives.curve, 3, progress=False)
    remote = pickle.loads(pickle.dumps(detach(study.ask(), study.worker_address())))
    assert remote.study.name == "read" and [t.number for t in remote.study.trials] == [0, 1, 2, 3]
    assert remote.budget == 9


def test_a_study_address_does_not_show_a_database_password() -> None:
    address = StudyAddress("postgresql+psycopg://user:secret@db/runs", "s", SPACE, None, None, lambda a: tf.Study.load(a.name, space=a.space, storage=a.url))
    assert "secret" not in repr(address) and "name='s'" in repr(address)


def test_a_worker_keeps_a_bounded_number_of_studies_open(tmp_path: Path) -> None:
    """One per run (its cost budget is part of its key); the oldest are let go."""
    from treefarm.study.run import remote_trial

    study = _curve_study(tmp_path, "runs")
    for budget in range(1, remote_trial.KEPT_OPEN + 4):
        study.max_cost = float(budget)
        remote = pickle.loads(pickle.dumps(detach(study.ask(), study.worker_address())))
        remote.report(1, 0.5)
        assert len(remote_trial._OPENED) <= remote_trial.KEPT_OPEN
    assert study.storage.get_trial(study.study_id, remote.number).intermediate == {1: 0.5}
