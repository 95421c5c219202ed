"""The one-call API: minimize(objective, space) and the minimize(f, op(f)(params)) style."""

from __future__ import annotations

from pathlib import Path

import treefarm as tf


def branin_like(x: float, y: float) -> float:
    return (x - 1.0) ** 2 + (y + 2.0) ** 2


def test_minimize_returns_best_value_config_and_built_value(tmp_path: Path) -> None:
    space = {"x": tf.Real(-5, 5), "y": tf.Real(-5, 5)}
    res = tf.minimize(lambda p: branin_like(**p), space, max_evals=40, seed=1, storage=tmp_path / "m.db")
    assert res.best_value == min(t.value for t in res.trials)
    assert res.best_params == {"x": res.best_config["x"], "y": res.best_config["y"]}
    assert len(res.trials) == 40


def test_thesis_style_built_value_is_the_loss() -> None:
    f = tf.op(branin_like)
    param = [tf.R[-10:10], tf.R[-10:10]]
    res = tf.minimize(branin_like, f(*param), max_evals=30, seed=0, storage=None)
    assert res.best_value == branin_like(res.best_config["0"], res.best_config["1"])
    res2 = tf.minimize(None, f(*param), max_evals=30, seed=0, storage=None)
    assert res2.best_value == res.best_value


def test_minimize_resumes_a_named_study(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    space = {"x": tf.Real(-5, 5)}
    tf.minimize(lambda p: p["x"] ** 2, space, max_evals=10, storage=db, study_name="s", seed=3)
    res = tf.minimize(lambda p: p["x"] ** 2, space, max_evals=25, storage=db, study_name="s", seed=3)
    assert len(res.trials) == 25
