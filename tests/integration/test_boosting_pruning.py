"""The LightGBM and XGBoost pruning callbacks stop real training runs under successive halving."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

import treefarm as tf

SPACE = {"learning_rate": tf.Real(0.01, 0.5, log=True), "depth": tf.Int(2, 6)}
ROUNDS = 27


def _data() -> tuple[np.ndarray, ...]:
    X, y = load_breast_cancer(return_X_y=True)
    return tuple(train_test_split(X, y, test_size=0.3, random_state=0))


def _pruned_study(objective: Any) -> list[tf.TrialRecord]:
    study = tf.Study.create(
        space=SPACE,
        algo="random",
        seed=0,
        pruner=tf.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3),
    )
    study.optimize(objective, 12, progress=False)
    return study.trials


def test_lightgbm_training_is_reported_and_pruned() -> None:
    lgb = pytest.importorskip("lightgbm")
    from treefarm.integration.lightgbm import LightGBMPruningCallback

    X_train, X_valid, y_train, y_valid = _data()

    def objective(params: dict[str, Any], trial: tf.Trial) -> float:
        booster = lgb.train(
            {
                "objective": "binary",
                "metric": "binary_logloss",
                "verbose": -1,
                "num_threads": 1,
                "learning_rate": params["learning_rate"],
                "max_depth": params["depth"],
            },
            lgb.Dataset(X_train, y_train),
            num_boost_round=ROUNDS,
            valid_sets=[lgb.Dataset(X_valid, y_valid)],
            callbacks=[LightGBMPruningCallback(trial, "binary_logloss")],
        )
        return float(booster.best_score["valid_0"]["binary_logloss"])

    trials = _pruned_study(objective)
    states = [t.state for t in trials]
    assert tf.TrialState.PRUNED in states and tf.TrialState.COMPLETE in states, states
    complete = next(t for t in trials if t.state is tf.TrialState.COMPLETE)
    assert sorted(complete.intermediate) == list(range(ROUNDS))
    pruned = next(t for t in trials if t.state is tf.TrialState.PRUNED)
    assert max(pruned.intermediate) < ROUNDS - 1 and pruned.system_attrs["pruned_step"] == max(
        pruned.intermediate
    )


def test_lightgbm_metric_mistakes_are_named() -> None:
    lgb = pytest.importorskip("lightgbm")
    from treefarm.integration.lightgbm import LightGBMPruningCallback

    X_train, X_valid, y_train, y_valid = _data()
    study = tf.Study.create(space=SPACE, seed=0)
    trial = study.ask()
    train = lgb.Dataset(X_train, y_train)
    for metric, message in (
        ("auc", "the metric's direction must be the study's"),
        ("logloss", "evaluated: "),
    ):
        with pytest.raises(tf.StudyError, match=message):
            lgb.train(
                {"objective": "binary", "metric": ["binary_logloss", "auc"], "verbose": -1, "num_threads": 1},
                train,
                num_boost_round=2,
                valid_sets=[lgb.Dataset(X_valid, y_valid)],
                callbacks=[LightGBMPruningCallback(trial, metric)],
            )


def test_xgboost_training_is_reported_and_pruned() -> None:
    xgb = pytest.importorskip("xgboost")
    from treefarm.integration.xgboost import XGBoostPruningCallback

    X_train, X_valid, y_train, y_valid = _data()
    dtrain, dvalid = xgb.DMatrix(X_train, label=y_train), xgb.DMatrix(X_valid, label=y_valid)

    def objective(params: dict[str, Any], trial: tf.Trial) -> float:
        log: dict[str, Any] = {}
        xgb.train(
            {
                "objective": "binary:logistic",
                "eval_metric": "logloss",
                "nthread": 1,
                "eta": params["learning_rate"],
                "max_depth": params["depth"],
            },
            dtrain,
            num_boost_round=ROUNDS,
            evals=[(dvalid, "valid")],
            evals_result=log,
            verbose_eval=False,
            callbacks=[XGBoostPruningCallback(trial, "valid-logloss")],
        )
        return float(log["valid"]["logloss"][-1])

    trials = _pruned_study(objective)
    states = [t.state for t in trials]
    assert tf.TrialState.PRUNED in states and tf.TrialState.COMPLETE in states, states
    pruned = next(t for t in trials if t.state is tf.TrialState.PRUNED)
    assert max(pruned.intermediate) < ROUNDS - 1
