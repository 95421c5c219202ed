"""A hint at credibility 1 is tried as given: its point is the next trial (once), then its window."""

from __future__ import annotations

import numpy as np
import pytest

import treefarm as tf

SPACE = {
    "x": tf.Real(-5.0, 5.0),
    "lr": tf.Real(1e-5, 1e-1, log=True),
    "model": tf.Join(svm={"C": tf.Real(1e-3, 1e3, log=True)}, tree={"depth": tf.Int(1, 10)}),
}
GP = tf.GP(n_startup=5, n_candidates=64, n_local=32, n_starts=2)
ALGOS = ["random", "tpe", "auto", GP]
IDS = ["random", "tpe", "auto", "gp"]


def loss(p: dict) -> float:
    return (p["x"] - 3.0) ** 2 + abs(np.log10(p["lr"]) + 3)


@pytest.mark.parametrize("algo", ALGOS, ids=IDS)
def test_the_hints_point_is_the_next_trial_and_is_tried_once(algo: object) -> None:
    study = tf.Study.create(space=SPACE, algo=algo, seed=3)  # type: ignore[arg-type]
    study.optimize(loss, 4)
    study.hint({"x": 2.5, "lr": 1e-3, "model": "tree", "model.tree.depth": 7}, credibility=1.0)
    study.optimize(loss, 8)
    hinted = [dict(t.params) for t in study.trials[4:]]
    assert hinted[0] == {"x": 2.5, "lr": 1e-3, "model": "tree", "model.tree.depth": 7}
    assert all(p != hinted[0] for p in hinted[1:])


def test_a_partial_hint_keeps_the_rest_of_the_suggestion_and_a_hint_below_one_is_not_forced() -> None:
    study = tf.Study.create(space=SPACE, algo="random", seed=5)
    study.hint({"x": -1.25}, credibility=1.0)
    study.optimize(loss, 1)
    first = dict(study.trials[0].params)
    assert first["x"] == -1.25 and set(first) >= {"lr", "model"}
    unsure = tf.Study.create(space=SPACE, algo="random", seed=5)
    unsure.hint({"x": -1.25}, credibility=0.99)
    unsure.optimize(loss, 1)
    assert unsure.trials[0].params["x"] != -1.25


def test_a_failed_or_pending_trial_at_the_point_counts_as_tried() -> None:
    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, algo="random", seed=0)
    study.hint({"x": 0.5}, credibility=1.0)
    first = study.ask()
    second = study.ask()
    assert dict(first.config) == {"x": 0.5} and dict(second.config) != {"x": 0.5}
    study.tell(first.number, state=tf.TrialState.FAILED)
    study.tell(second.number, 1.0)
    assert dict(study.ask().config) != {"x": 0.5}


def test_an_int_point_stays_whole() -> None:
    study = tf.Study.create(space={"n": tf.Int(1, 10), "x": tf.Real(0.0, 1.0)}, algo="tpe", seed=0)
    study.hint({"n": 4, "x": 0.25}, credibility=1.0)
    first = study.ask()
    assert dict(first.config) == {"n": 4, "x": 0.25} and isinstance(first.config["n"], int)


@pytest.mark.parametrize("seed", range(3))
def test_a_sure_hint_near_the_optimum_is_reached_by_fifty_evaluations(seed: int) -> None:
    optimum = np.array([0.3, -1.2, 2.0, 0.7, -0.4])
    space = {f"x{i}": tf.Real(-5.0, 5.0) for i in range(5)}

    def f(p: dict) -> float:
        x = np.array([p[f"x{i}"] for i in range(5)])
        return float(np.sum(10 * np.abs(x - optimum) ** 1.5) + np.sum(np.cos(3 * (x - optimum)) * -1) + 5)

    hint = {f"x{i}": float(v + 0.05 * 10) for i, v in enumerate(optimum)}
    study = tf.Study.create(space=space, algo="tpe", seed=seed)
    study.hint(hint, credibility=1.0)
    study.optimize(f, 50)
    assert study.best_value <= f(hint)
