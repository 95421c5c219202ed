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


def test_minimize_takes_a_fidelity_and_spends_its_cost_budget(tmp_path: Path) -> None:
    space = {"x": tf.Real(-5, 5), "y": tf.Real(-5, 5)}

    def objective(params: dict, trial: tf.Trial) -> float:
        assert trial.fidelity is not None
        return branin_like(**params) + (1.0 - trial.fidelity)

    res = tf.minimize(objective, space, fidelity=tf.Fidelity(1 / 9, 1.0), max_cost=8, seed=0, storage=tmp_path / "f.db")
    spent = sum(t.cost for t in res.trials)
    assert 8 <= spent < 9  # no trial budget: the cost budget ends the run, overrun by one evaluation at most
    best = min((t for t in res.trials if t.system_attrs["fidelity"] == 1.0), key=lambda t: t.value or 0.0)
    assert res.best_value == best.value < 1.0 and res.best_params == best.params
    assert len(res.trials) > 8  # the cheap rungs bought more evaluations than eight full ones
