"""A study with a fidelity on a Dask cluster: the objective reads its trial's fidelity and
resumes from checkpoints on the workers, every (configuration, rung) is evaluated once,
the cost budget is spent once, a worker killed during a continuation loses no evaluation,
and what needs the study's storage during the run names itself when called on a worker."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import treefarm as tf
from treefarm.exceptions import StudyError
from treefarm.execution.dask import connect
from treefarm.storage import SQLStorage, TrialRecord, TrialState

from ..study.resume_worker import FIDELITY, SPACE, train
from . import objectives

pytest.importorskip("distributed", reason="the dask extra is not installed")

MAX_COST = 120.0


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with connect("local", n_workers=2) as running:  # LocalCluster(processes=True, threads_per_worker=1)
        yield running


def _fidelity(t: TrialRecord) -> float:
    return float(t.system_attrs["fidelity"])


def _evaluation(t: TrialRecord) -> tuple[tuple[tuple[str, Any], ...], float]:
    return tuple(sorted(t.params.items())), _fidelity(t)


def check_resumed(trials: list[TrialRecord]) -> None:
    """Each complete promotion loaded, on its worker, the checkpoint its source saved,
    trained only the epochs it adds and paid only for them; every other trial paid its rung."""
    by_number = {t.number: t for t in trials}
    continued = [t for t in trials if t.state is TrialState.COMPLETE and t.system_attrs.get("continues") is not None]
    assert continued, "the budget allows promotions"
    for t in continued:
        source = by_number[t.system_attrs["continues"]]
        assert dict(source.params) == dict(t.params) and _fidelity(source) < _fidelity(t)
        assert t.system_attrs["resumed"] is True
        assert t.user_attrs["checkpoint_of"] == source.number
        assert t.user_attrs["trained"] == _fidelity(t) - _fidelity(source)
        assert t.cost == pytest.approx(FIDELITY.cost_of(_fidelity(t)) - FIDELITY.cost_of(_fidelity(source)))
    for t in trials:
        if t.system_attrs.get("continues") is None:
            assert "resumed" not in t.system_attrs and t.cost == FIDELITY.cost_of(_fidelity(t))


def _study(tmp_path: Path, name: str) -> tuple[tf.Study, SQLStorage]:
    storage = SQLStorage(f"sqlite:///{tmp_path / (name + '.db')}", journal=None)
    study = tf.Study.create(name, space=SPACE, storage=storage, fidelity=FIDELITY, algo="random", seed=4)
    study.artifact_store = str(tmp_path / "artifacts")
    return study, storage


def test_a_fidelity_study_on_dask_resumes_on_the_workers_and_evaluates_each_rung_once(
    client: Any, tmp_path: Path
) -> None:
    study, storage = _study(tmp_path, "rungs")
    study.optimize(train, max_cost=MAX_COST, executor=client, progress=False)
    trials = storage.get_trials(study.study_id)
    assert all(t.state is TrialState.COMPLETE for t in trials)
    assert max(Counter(_evaluation(t) for t in trials).values()) == 1, "a configuration was evaluated twice at a rung"
    check_resumed(trials)
    spent = storage.spent_cost(study.study_id)
    assert MAX_COST - FIDELITY.high <= spent < MAX_COST + FIDELITY.high  # claimed in the study's process
    assert spent == pytest.approx(sum(t.user_attrs["trained"] for t in trials))
    full = [t for t in trials if _fidelity(t) == FIDELITY.high]
    assert full and study.best_value == min(t.value for t in full if t.value is not None)
    assert _fidelity(study.best_trial) == FIDELITY.high
    storage.close()


def test_a_dask_worker_killed_during_a_continuation_loses_no_evaluation(client: Any, tmp_path: Path) -> None:
    """The killed continuation fails as lost and keeps its reservation; the same promotion
    is offered again and continued once, from the same checkpoint, on another worker; every
    other claimed trial completes, no (configuration, rung) twice, the cost budget kept."""
    study, storage = _study(tmp_path, "killed")
    marker = tmp_path / "killed"
    objective = functools.partial(objectives.train_or_die, marker=str(marker))
    study.optimize(objective, max_cost=MAX_COST, executor=client, progress=False)
    trials = storage.get_trials(study.study_id)
    killed = int(marker.read_text())
    lost = next(t for t in trials if t.number == killed)
    assert lost.state is TrialState.FAILED and lost.system_attrs["worker_lost"] is True
    assert lost.cost == FIDELITY.cost_of(_fidelity(lost)), "nothing was given back: the worker never returned"
    assert [t.number for t in trials if t.state is not TrialState.COMPLETE] == [killed]
    again = [t for t in trials if t.number > killed and _evaluation(t) == _evaluation(lost)]
    assert len(again) == 1 and again[0].state is TrialState.COMPLETE
    assert again[0].system_attrs["continues"] == lost.system_attrs["continues"]
    assert again[0].user_attrs["checkpoint_of"] == lost.system_attrs["continues"]
    kept = [t for t in trials if t.number != killed]
    assert max(Counter(_evaluation(t) for t in kept).values()) == 1
    check_resumed(kept)
    spent = storage.spent_cost(study.study_id)
    assert spent < MAX_COST + FIDELITY.high
    assert spent == pytest.approx(sum(t.cost for t in trials))
    storage.close()


def test_a_report_on_a_dask_worker_is_refused_naming_the_call(client: Any) -> None:
    study = tf.Study.create(space=objectives.SPACE, storage=None, algo="random", seed=0)
    with pytest.raises(StudyError, match=r"trial\.report needs the study's storage while the objective runs"):
        study.optimize(objectives.reports, 4, executor=client, catch=(), progress=False)
    failed = study.trials  # the others running with it are failed by the error too
    assert failed and all(t.state is TrialState.FAILED for t in failed)
    assert "trial.report needs the study's storage" in str(failed[0].system_attrs["fail_reason"])


def test_learning_curves_on_dask_workers_report_to_a_sqlite_study(client: Any, tmp_path: Path) -> None:
    """A study in a SQLite file the workers see: each worker opens it, reports its curve, spends
    its steps and asks the pruner there; the study records pruned trials with their last report,
    and the cost budget stops the run within a step per running trial."""
    study = tf.Study.create(space=objectives.SPACE, storage=tmp_path / "curves.db", algo="random", seed=0,
                            pruner=tf.HyperbandPruner(min_resource=1, max_resource=9, reduction_factor=3))
    study.optimize(objectives.curve, max_cost=90, executor=client, catch=(), progress=False)
    trials = study.trials
    assert all(t.state in (TrialState.COMPLETE, TrialState.PRUNED) for t in trials)
    pruned = [t for t in trials if t.state is TrialState.PRUNED]
    assert pruned and all(t.value == t.intermediate[t.system_attrs["pruned_step"]] for t in pruned)
    assert all(t.cost == max(t.intermediate) for t in trials)
    assert 90 <= study.storage.spent_cost(study.study_id) < 90 + 4  # 2 workers, each trial one step over at most
    assert study.best_trial.value == min(t.value for t in trials if t.state is TrialState.COMPLETE)


def test_a_dask_worker_killed_during_a_learning_curve_keeps_its_reports_and_loses_nothing_else(
    client: Any, tmp_path: Path
) -> None:
    """The trial whose worker died fails as lost with the reports and the steps it had
    written from the worker; its configuration is run again once; every other trial ends."""
    study = tf.Study.create(space=objectives.SPACE, storage=tmp_path / "killed_curve.db", algo="random", seed=1,
                            pruner=tf.HyperbandPruner(min_resource=1, max_resource=9, reduction_factor=3))
    marker = tmp_path / "killed"
    objective = functools.partial(objectives.curve_or_die, marker=str(marker))
    study.optimize(objective, max_cost=90, executor=client, progress=False)
    trials = study.trials
    killed = int(marker.read_text())
    lost = next(t for t in trials if t.number == killed)
    assert lost.state is TrialState.FAILED and lost.system_attrs["worker_lost"] is True
    assert sorted(lost.intermediate) == [1, 2, 3, 4] and lost.cost == 4  # what it reported before it died
    assert [t.number for t in trials if t.state not in (TrialState.COMPLETE, TrialState.PRUNED)] == [killed]
    again = [t for t in trials if t.number > killed and dict(t.params) == dict(lost.params)]
    assert len(again) == 1 and again[0].state in (TrialState.COMPLETE, TrialState.PRUNED)  # run again, once
    assert 90 <= study.storage.spent_cost(study.study_id) < 90 + 4
