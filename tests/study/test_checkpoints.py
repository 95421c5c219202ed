"""A promotion continues its trial from the checkpoint it saved: the epochs done carry
over, the trial pays only what it adds, four processes continue no evaluation twice
and spend the budget once, a killed worker's continuation is taken up by another from
the same checkpoint, and a call that cannot mean anything names its cause."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

import treefarm as tf
from treefarm.exceptions import StorageError, StudyError
from treefarm.storage import TrialRecord, open_storage

from .resume_worker import FIDELITY, SPACE, train

WORKER = Path(__file__).with_name("resume_worker.py")
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(WORKER.parents[2] / "src"), *sys.path])}


@pytest.fixture(autouse=True)
def _artifacts_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A study in memory keeps its artifacts in ``treefarm.artifacts`` in the working directory."""
    monkeypatch.chdir(tmp_path)


def _study(**kwargs: object) -> tf.Study:
    return tf.Study.create(space=SPACE, fidelity=FIDELITY, seed=2, algo="random", **kwargs)  # type: ignore[arg-type]


def _fidelity(t: TrialRecord) -> float:
    return float(t.system_attrs["fidelity"])


def _check_continuations(trials: list[TrialRecord]) -> None:
    """Every promotion continued the configuration's latest evaluation at a lower rung
    (the rung below, or the lowest for a check of the rungs against the top), from its
    checkpoint: it trained only the epochs it adds and paid only for them."""
    by_number = {t.number: t for t in trials}
    continued = [t for t in trials if t.state.value == "complete" and t.system_attrs.get("continues") is not None]
    assert continued, "the budget allows promotions"
    for t in continued:
        source = by_number[t.system_attrs["continues"]]
        assert dict(source.params) == dict(t.params)
        assert _fidelity(t) > _fidelity(source)
        assert not any(
            o.params == t.params and _fidelity(source) < _fidelity(o) < _fidelity(t) for o in trials
        ), "the source is the latest evaluation below"
        assert t.system_attrs["resumed"] is True
        assert t.user_attrs["checkpoint_of"] == source.number
        assert t.user_attrs["resumed_at"] == _fidelity(source)
        assert t.user_attrs["trained"] == _fidelity(t) - _fidelity(source)
        assert t.cost == pytest.approx(FIDELITY.cost_of(_fidelity(t)) - FIDELITY.cost_of(_fidelity(source)))
    for t in trials:
        if t.system_attrs.get("continues") is None:
            assert "resumed" not in t.system_attrs and t.cost == FIDELITY.cost_of(_fidelity(t))


def test_a_promotion_resumes_its_source_and_pays_only_the_epochs_it_adds() -> None:
    study = _study()
    study.optimize(train, max_cost=150, progress=False)
    trials = study.trials
    _check_continuations(trials)
    assert any(_fidelity(t) == FIDELITY.high for t in trials), "a configuration climbed to the top rung"
    spent = study.storage.spent_cost(study.study_id)
    assert 150 <= spent < 150 + FIDELITY.high
    assert spent == pytest.approx(sum(t.user_attrs["trained"] for t in trials))  # the cost is the work done


def test_resuming_buys_more_evaluations_than_training_again_for_the_same_budget() -> None:
    resumed, again = _study(), _study()
    resumed.optimize(train, max_cost=150, progress=False)
    again.optimize(_again, max_cost=150, progress=False)
    assert len(resumed.trials) > len(again.trials)
    assert all("resumed" not in t.system_attrs for t in again.trials)


def _again(config: dict, trial: tf.Trial) -> float:
    """The same training without resuming: every promotion trains from the first epoch."""
    from .resume_worker import branin

    trial.set_user_attr("trained", trial.fidelity)
    return branin(config) + 20.0 / (trial.fidelity or 1.0)


def _first_promotion_to(study: tf.Study, fidelity: float | None = None) -> tf.Trial:
    """Ask and tell (the lowest rung, the checks of the rungs against the top) until a
    trial continues another (at ``fidelity``, when given)."""
    trial = study.ask()
    while trial.continues is None or fidelity not in (None, trial.fidelity):
        study.tell(trial, train(trial.value, trial))
        trial = study.ask()
    return trial


def test_ask_and_tell_continue_a_trial_and_loading_twice_gives_back_the_cost_once() -> None:
    study = _study()
    promoted = _first_promotion_to(study, 3.0)
    assert promoted.continues is not None
    source = study.storage.get_trial(study.study_id, promoted.continues)
    assert _fidelity(source) == 1.0
    assert dict(source.params) == dict(promoted.config)
    assert promoted.load_checkpoint() == promoted.load_checkpoint() is not None
    assert study.storage.get_trial(study.study_id, promoted.number).cost == 2.0  # 3 reserved, 1 given back once


def test_a_trial_at_the_lowest_rung_or_whose_source_saved_nothing_loads_none() -> None:
    study = _study()
    trial = study.ask()
    assert trial.fidelity == 1.0 and trial.continues is None
    assert trial.load_checkpoint() is None
    study.tell(trial, 1.0)

    def without_checkpoints(config: dict, trial: tf.Trial) -> float:
        assert trial.load_checkpoint() is None
        return _again(config, trial)

    study.optimize(without_checkpoints, max_cost=30, progress=False)
    promoted = [t for t in study.trials if t.system_attrs.get("continues") is not None]
    assert promoted and all(t.cost == _fidelity(t) and "resumed" not in t.system_attrs for t in promoted)


def test_a_checkpoint_missing_from_the_artifact_store_is_named(tmp_path: Path) -> None:
    study = _study()
    promoted = _first_promotion_to(study)
    study.artifact_store = str(tmp_path / "elsewhere")
    with pytest.raises(StudyError, match=rf"checkpoint must be in the study's artifact store .* but got trial={promoted.continues}"):
        promoted.load_checkpoint()
    reserved = FIDELITY.cost_of(float(promoted.fidelity or 0))
    assert study.storage.get_trial(study.study_id, promoted.number).cost == reserved  # nothing given back


def test_checkpoints_in_a_study_without_a_fidelity_are_refused_naming_the_cause() -> None:
    study = tf.Study.create(space=SPACE)
    trial = study.ask()
    assert trial.continues is None
    with pytest.raises(StudyError, match=r"load_checkpoint needs a study with a fidelity .* but got fidelity=None"):
        trial.load_checkpoint()
    with pytest.raises(StudyError, match=r"save_checkpoint needs a study with a fidelity .* but got fidelity=None"):
        trial.save_checkpoint(b"state")


def test_a_refund_beyond_the_trials_cost_is_refused_by_the_storage() -> None:
    storage = tf.InMemoryStorage()
    study = _study(storage=storage)
    trial = study.ask()
    with pytest.raises(StorageError, match=r"at most the trial's cost, but got \(refund=2.0, cost=1.0\) on trial 0"):
        storage.refund_trial_cost(study.study_id, trial.number, 2.0)
    with pytest.raises(StorageError, match="cost must be a finite number >= 0, but got cost=-1"):
        storage.refund_trial_cost(study.study_id, trial.number, -1)


def _run(db: Path, max_cost: float, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKER), str(db), "shared", str(max_cost), *extra],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _trials(db: Path) -> tuple[list[TrialRecord], float]:
    storage = open_storage(db)
    try:
        study_id = storage.get_study("shared").study_id
        return storage.get_trials(study_id), storage.spent_cost(study_id)
    finally:
        storage.close()


def test_four_processes_continue_no_evaluation_twice_and_spend_the_budget_once(tmp_path: Path) -> None:
    db, max_cost = tmp_path / "r.db", 300.0
    runs = [_run(db, max_cost) for _ in range(4)]
    for run in runs:
        _, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
    trials, spent = _trials(db)
    assert all(t.state.value == "complete" for t in trials)
    assert max_cost - FIDELITY.high <= spent < max_cost + FIDELITY.high  # within one trial at the top rung
    assert spent == pytest.approx(sum(t.user_attrs["trained"] for t in trials))
    evaluations = Counter((tuple(sorted(t.params.items())), _fidelity(t)) for t in trials)
    assert max(evaluations.values()) == 1, "a configuration was evaluated twice at one rung"
    loads = Counter((t.user_attrs["checkpoint_of"], _fidelity(t)) for t in trials if "checkpoint_of" in t.user_attrs)
    assert loads and max(loads.values()) == 1, "a checkpoint was continued twice at one rung"
    _check_continuations(trials)


def test_a_killed_workers_continuation_is_continued_by_another_from_the_same_checkpoint(tmp_path: Path) -> None:
    db, marker = tmp_path / "k.db", tmp_path / "hung"
    doomed = _run(db, 200.0, str(marker))
    deadline = time.monotonic() + 120
    while not marker.exists() and doomed.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), doomed.communicate()[1]
    time.sleep(0.2)  # the marker is written before the hang: let the write land
    os.kill(doomed.pid, signal.SIGKILL)
    doomed.communicate(timeout=30)
    killed = int(marker.read_text())
    lost = next(t for t in _trials(db)[0] if t.number == killed)
    assert lost.state.value == "running" and lost.system_attrs["resumed"] is True
    survivor = _run(db, 200.0)
    _, err = survivor.communicate(timeout=300)
    assert survivor.returncode == 0, err
    trials, _ = _trials(db)
    lost = next(t for t in trials if t.number == killed)
    assert lost.state.value == "failed" and lost.system_attrs["worker_lost"] is True
    again = [
        t
        for t in trials
        if t.number > killed
        and t.system_attrs.get("continues") == lost.system_attrs["continues"]
        and _fidelity(t) == _fidelity(lost)
    ]
    assert len(again) == 1 and again[0].state.value == "complete"
    assert again[0].user_attrs["checkpoint_of"] == lost.user_attrs["checkpoint_of"]
    assert again[0].user_attrs["resumed_at"] == lost.user_attrs["resumed_at"]
    evaluations = Counter((tuple(sorted(t.params.items())), _fidelity(t)) for t in trials if t.number != killed)
    assert max(evaluations.values()) == 1


def test_a_lost_continuation_is_offered_again_once_and_never_queued_at_another_rung() -> None:
    """Lost first to a stale heartbeat (a worker on another machine), then to a dead
    process: offered again after the first loss, from the same trial; not after the second."""
    from treefarm.study.state.recovery import WORKER_LOST, requeue_lost

    study = _study(requeue_interrupted=True, heartbeat_interval=0.01)
    for _ in range(3):
        trial = study.ask()
        study.tell(trial, train(trial.value, trial))
    continued = []
    for attempt in range(2):
        promoted = study.ask()
        continued.append((promoted.continues, promoted.fidelity, dict(promoted.config)))
        study._recorder.running.discard(promoted.number)  # its worker stops beating it
        if attempt == 0:
            time.sleep(0.2)
            assert study.storage.fail_stale_trials(study.study_id, grace=0.0) == [promoted.number]
        else:
            reason = {"fail_reason": "died", WORKER_LOST: True}
            study.storage.finish_trial(study.study_id, promoted.number, state=tf.TrialState.FAILED, system_attrs=reason)
        requeue_lost(study.storage, study.study_id, study.storage.get_trial(study.study_id, promoted.number), 1)
        assert study.storage.count_trials(study.study_id, states=[tf.TrialState.WAITING]) == 0
    assert continued[0] == continued[1] and continued[0][0] is not None and continued[0][1] > 1.0
    after = study.ask()  # lost twice: something else instead of a third try
    assert (after.continues, after.fidelity, dict(after.config)) != continued[0]
