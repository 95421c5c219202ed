"""``treefarm show``: the step a pruned fold x replica trial stopped at and its spread, and which warm-start hints count."""

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


def test_show_says_which_warm_start_hints_do_not_count_now(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "warm.db")
    space = {"x": tf.Real(-5.0, 5.0)}
    source = tf.Study.create("source", space=space, storage=db, algo="random", seed=0)
    source.optimize(lambda p: abs(p["x"] - 1.0), 30)
    target = tf.Study.create(
        "target", space=space, storage=db, algo="random", seed=0, warm_start=[source], warm_start_credibility=0.5
    )
    target.hint({"x": 0.0}, credibility=0.3)
    target.optimize(lambda p: abs(p["x"] - 1.0), 2)  # fewer than 5 complete: the gate is shut
    assert main(["show", db, "--study", "target"]) == 0
    hints = [line for line in capsys.readouterr().out.splitlines() if line.startswith("hint ")]
    assert len(hints) == 4  # the source's best 3 of 30 as region hints, and the user's
    assert all("not counted now" in line for line in hints[:3]) and "not counted" not in hints[3]
    for x in (-4.0, -3.0, 4.0, 5.0):
        target.enqueue({"x": x})
    target.optimize(lambda p: abs(p["x"] - 1.0), 6)  # 6 complete, the source's best (trial 0) in the better half
    assert main(["show", db, "--study", "target"]) == 0
    assert "not counted" not in capsys.readouterr().out
