"""Tune an SVM on a fraction of the training data first: a fidelity parameter.

Each trial trains on ``trial.fidelity`` of the training rows (from 1/9 to all of
them) and is scored on the full validation set. Successive halving starts new
configurations on a ninth of the data and promotes the best third of each rung
to three times the data; the study stops when the cost budget is spent. An SVM's
training time grows about as the square of its rows, so that is the declared cost:
``max_cost=10`` buys about ten trainings on all the data.

    python examples/data_subset.py
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

import treefarm as tf

X_train, X_valid, y_train, y_valid = train_test_split(*load_digits(return_X_y=True), test_size=0.3, random_state=0)

space = {"C": tf.Real(1e-2, 1e3, log=True), "gamma": tf.Real(1e-5, 1e-1, log=True)}
fidelity = tf.Fidelity(1 / 9, 1.0, cost=lambda fraction: fraction**2)


def objective(params: dict[str, Any], trial: tf.Trial) -> float:
    """The validation error of an SVM trained on the trial's fraction of the rows."""
    fraction = trial.fidelity or 1.0
    rows = np.random.default_rng(0).permutation(len(X_train))[: max(20, int(fraction * len(X_train)))]
    model = SVC(C=params["C"], gamma=params["gamma"]).fit(X_train[rows], y_train[rows])
    return 1.0 - float(model.score(X_valid, y_valid))


def main(max_cost: float = 10.0) -> tf.Study:
    study = tf.Study.create(space=space, fidelity=fidelity, seed=0)
    study.optimize(objective, max_cost=max_cost)
    return study


if __name__ == "__main__":
    found = main()
    print(f"best validation error on all the data: {found.best_value:.4f} with {found.best_params}")
