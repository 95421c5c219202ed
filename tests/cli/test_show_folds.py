"""``treefarm show`` on a pruned fold x replica study: the step a trial stopped at and its spread."""

from __future__ import annotations

from pathlib import Path

import pytest

import treefarm as tf
from treefarm.cli.main import main


def test_show_lists_last_step_and_bias_variance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "folds.db")
    study = tf.Study.create(
        "folds",
        space={"level": tf.Real(0.0, 10.0)},
        storage=db,
        seed=0,
        pruner=tf.MedianPruner(n_startup_trials=1),
    )
    for level in (1.0, 9.0):
        study.enqueue({"level": level})

    def objective(p: dict, trial: tf.Trial) -> dict:
        return tf.evaluate_folds(
            lambda r, f: p["level"] + r, n_folds=3, n_replicas=2, how="bias", trial=trial
        )

    study.optimize(objective, 2)
    capsys.readouterr()
    assert main(["show", db, "--study", "folds"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split()
    assert header[4:7] == ["last_step", "user_attrs.bias", "user_attrs.variance"]
    done, pruned = (dict(zip(header, line.split())) for line in lines[1:3])
    # (level + r) over r = 0, 1: bias level + 0.5, variance per fold var(level, level + 1) = 0.5
    assert (done["state"], done["last_step"], done["user_attrs.bias"]) == ("complete", "3", "1.5")
    assert done["user_attrs.variance"] == "0.5"
    assert (pruned["state"], pruned["last_step"], pruned["value"]) == ("pruned", "1", "9.5")
