"""Tune LightGBM on a small data set, stopping unpromising boosting runs early.

The pruning callback reports the validation log-loss after every boosting
iteration; successive halving (ASHA) stops a run whose loss ranks in the worse
two thirds of the runs that reached the same iteration. Pruned trials keep the
loss they were stopped at. Needs ``pip install 'treefarm[lightgbm]' scikit-learn``.

    python examples/lightgbm_pruning.py
"""

from __future__ import annotations

from typing import Any

import lightgbm
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

import treefarm as tf
from treefarm.integration.lightgbm import LightGBMPruningCallback

X_train, X_valid, y_train, y_valid = train_test_split(*load_breast_cancer(return_X_y=True), random_state=0)

space = {
    "learning_rate": tf.Real(0.01, 0.3, log=True),
    "num_leaves": tf.Int(4, 64, log=True),
    "min_child_samples": tf.Int(5, 50),
    "feature_fraction": tf.Real(0.4, 1.0),
}


def objective(params: dict[str, Any], trial: tf.Trial) -> float:
    """The validation log-loss after up to 100 boosting iterations."""
    booster = lightgbm.train(
        {"objective": "binary", "metric": "binary_logloss", "verbose": -1, "num_threads": 1, **params},
        lightgbm.Dataset(X_train, y_train),
        num_boost_round=100,
        valid_sets=[lightgbm.Dataset(X_valid, y_valid)],
        callbacks=[LightGBMPruningCallback(trial, "binary_logloss")],
    )
    return float(booster.best_score["valid_0"]["binary_logloss"])


def main(n_trials: int = 30) -> tf.Study:
    study = tf.Study.create(space=space, seed=0, pruner=tf.SuccessiveHalvingPruner(min_resource=5))
    study.optimize(objective, n_trials)
    return study


if __name__ == "__main__":
    study = main()
    pruned = sum(t.state is tf.TrialState.PRUNED for t in study.trials)
    print(f"best log-loss {study.best_value:.4f} with {study.best_params}; {pruned} of {len(study.trials)} trials pruned")
