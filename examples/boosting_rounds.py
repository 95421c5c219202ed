"""Tune gradient boosting by its learning curve: boosting rounds as the fidelity.

The objective adds boosting rounds ten at a time (``warm_start``) and reports the
validation log-loss after each; Hyperband stops the runs that rank in the worse
two thirds at a rung, and every reported value informs the next suggestions. The
study's cost is the rounds trained, so ``max_cost=1500`` buys what 15 full runs
of 100 rounds would.

    python examples/boosting_rounds.py
"""

from __future__ import annotations

from typing import Any

from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split

import treefarm as tf

X_train, X_valid, y_train, y_valid = train_test_split(*load_breast_cancer(return_X_y=True), random_state=0)

space = {
    "learning_rate": tf.Real(0.01, 0.5, log=True),
    "max_leaf_nodes": tf.Int(4, 64, log=True),
    "l2_regularization": tf.Real(1e-6, 10.0, log=True),
}
ROUNDS = 100


def objective(params: dict[str, Any], trial: tf.Trial) -> float:
    """The validation log-loss after up to ``trial.budget`` boosting rounds."""
    model = HistGradientBoostingClassifier(warm_start=True, early_stopping=False, random_state=0, **params)
    loss = float("inf")
    for rounds in range(10, (trial.budget or ROUNDS) + 1, 10):
        model.set_params(max_iter=rounds).fit(X_train, y_train)
        loss = log_loss(y_valid, model.predict_proba(X_valid))
        trial.report(rounds, loss)
        if trial.should_prune():
            raise tf.TrialPruned()
    return loss


def main(max_cost: float = 1500) -> tf.Study:
    pruner = tf.HyperbandPruner(min_resource=10, max_resource=ROUNDS, reduction_factor=3)
    study = tf.Study.create(space=space, pruner=pruner, seed=0)
    study.optimize(objective, max_cost=max_cost)
    return study


if __name__ == "__main__":
    found = main()
    print(f"best validation log-loss: {found.best_value:.4f} with {found.best_params}")
