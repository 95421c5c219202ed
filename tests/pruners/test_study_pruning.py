"""Pruning inside a study: PRUNED with the last value, what optimizers see, and the
same decisions from four processes sharing one SQLite study as from one process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import treefarm as tf
from treefarm.exceptions import StudyError
from treefarm.storage import TrialState

from . import curves
from .curves import SPACE, STEPS, curve, trained

WORKER = Path(curves.__file__)
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(WORKER.parents[2] / "src"), *sys.path])}


def configs(n: int) -> list[dict]:
    rng = np.random.default_rng(3)
    return [{"x": float(x), "y": float(y)} for x, y in rng.uniform(0.0, 1.0, size=(n, 2))]


def decisions(study: tf.Study) -> dict[int, tuple]:
    return {
        t.number: (t.state, t.value, t.system_attrs.get("pruned_step"), dict(t.params)) for t in study.trials
    }


def test_a_pruned_trial_ends_pruned_with_its_last_value_and_step() -> None:
    study = tf.Study.create(space=SPACE, seed=0, pruner=curves.pruner(), algo="random")
    study.optimize(trained, 20)
    pruned = [t for t in study.trials if t.state is TrialState.PRUNED]
    assert pruned and any(t.state is TrialState.COMPLETE for t in study.trials)
    for t in pruned:
        step = t.system_attrs["pruned_step"]
        assert step == max(t.intermediate) and step in (1, 3)  # the rungs below max_resource=9
        assert t.value == t.intermediate[step] == pytest.approx(curve(dict(t.params), step))
    assert study.best_trial.state is TrialState.COMPLETE


def test_every_decision_is_the_pruners_on_the_stored_curves() -> None:
    """Replaying each stored trial's curve, step by step, against the earlier stored curves
    gives back exactly the stored outcome (nothing but stored values decides)."""
    pruner = curves.pruner()
    study = tf.Study.create(space=SPACE, seed=1, pruner=pruner, algo="random")
    study.optimize(trained, 15)
    records = study.trials
    for t in records:
        earlier = {r.number: dict(r.intermediate) for r in records if r.number < t.number}
        stops = [
            s
            for s in range(1, max(t.intermediate) + 1)
            if pruner.prune(
                tf.pruners.Curves(t.number, {k: t.intermediate[k] for k in range(1, s + 1)}, earlier)
            )
        ]
        assert stops == ([max(t.intermediate)] if t.state is TrialState.PRUNED else [])


def test_pruned_trials_reach_the_optimizer_at_their_last_value() -> None:
    study = tf.Study.create(space=SPACE, seed=0, pruner=curves.pruner(), algo="random")
    study.optimize(trained, 12)
    history = study.history()
    finished = [t for t in study.trials if t.value is not None]
    assert history.n_complete == len(finished) > sum(t.state is TrialState.COMPLETE for t in study.trials)
    assert sorted(history.losses()) == sorted(t.value for t in finished)


def test_pruned_without_a_report_counts_as_failed_and_catch_does_not_matter() -> None:
    def quits(p: dict, trial: tf.Trial) -> float:
        raise tf.TrialPruned()

    study = tf.Study.create(space=SPACE, seed=0, pruner=curves.pruner())
    study.optimize(quits, 3, catch=())
    assert [t.state for t in study.trials] == [TrialState.PRUNED] * 3
    assert all(t.value is None for t in study.trials)
    assert len(study.history().failed) == 3


def test_tell_pruned_records_the_last_report_and_budget_comes_from_the_pruner() -> None:
    study = tf.Study.create(space=SPACE, seed=0, pruner=curves.pruner())
    trial = study.ask()
    assert trial.budget == STEPS and not trial.should_prune()
    trial.report(1, 0.7)
    trial.report(2, 0.4)
    record = study.tell(trial, state="pruned")
    assert (record.state, record.value, record.system_attrs["pruned_step"]) == (TrialState.PRUNED, 0.4, 2)
    plain = tf.Study.create(space=SPACE, seed=0)
    assert plain.ask().budget is None


def test_a_pruner_of_the_wrong_type_is_refused_naming_it() -> None:
    with pytest.raises(StudyError, match="pruner='asha'"):
        tf.Study.create(space=SPACE, pruner="asha")  # type: ignore[arg-type]


def test_maximize_prunes_the_low_scores() -> None:
    def score(p: dict, trial: tf.Trial) -> float:
        for step in range(1, STEPS + 1):
            trial.report(step, -curve(p, step))
            if trial.should_prune():
                raise tf.TrialPruned()
        return -curve(p, STEPS)

    study = tf.Study.create(space=SPACE, seed=0, pruner=curves.pruner(), direction="maximize", algo="random")
    study.optimize(score, 12)
    lows = tf.Study.create(space=SPACE, seed=0, pruner=curves.pruner(), algo="random")
    lows.optimize(trained, 12)
    assert [t.state for t in study.trials] == [t.state for t in lows.trials]


def test_four_processes_on_one_sqlite_study_decide_as_one_process(tmp_path: Path) -> None:
    todo = configs(16)
    single = tf.Study.create("one", space=SPACE, storage=tmp_path / "one.db", seed=0, pruner=curves.pruner())
    for c in todo:
        single.enqueue(c)
    single.optimize(trained, len(todo))

    db = tmp_path / "four.db"
    shared = tf.Study.create("four", space=SPACE, storage=db, seed=0)
    for c in todo:
        shared.enqueue(c)
    procs = [
        subprocess.Popen([sys.executable, str(WORKER), str(db), "four", "4"], env=ENV, stderr=subprocess.PIPE)
        for _ in range(4)
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    four = tf.Study.load("four", space=SPACE, storage=db)
    assert len({t.system_attrs["worker"]["token"] for t in four.trials}) > 1  # the work was shared
    assert decisions(four) == decisions(single)
    assert {TrialState.PRUNED, TrialState.COMPLETE} <= {t.state for t in four.trials}


def test_minimize_takes_a_pruner() -> None:
    result = tf.minimize(
        trained, SPACE, algo="random", max_evals=10, seed=0, storage=None, pruner=curves.pruner()
    )
    states = {t.state for t in result.trials}
    assert states == {TrialState.COMPLETE, TrialState.PRUNED}
    assert result.best_value == min(t.value for t in result.trials if t.state is TrialState.COMPLETE)
