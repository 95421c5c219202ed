"""Elastic-net linear regression on scikit-learn's diabetes data (a thesis experiment).

The thesis (seeds/001, Experiments: "Elastic Net Linear Regression") names
this experiment without a setup or results; this is ours, the flat baseline
of the three. Two parameters: the regularization strength ``alpha`` on a log scale and the
L1/L2 mix ``l1_ratio``; the loss is the 5-fold cross-validated mean squared
error (fixed folds, so the objective is deterministic). The diabetes data
(442 patients, 10 standardized features) ship with scikit-learn; for scale,
predicting the mean scores an MSE near 5,900 and ordinary least squares
about 2,980. An evaluation takes about 20 ms.

Measured: ``python examples/elastic_net.py`` (the GP, 30 evaluations, seed 0)
prints a best CV MSE of 2973.7 at alpha 0.0001, l1_ratio 0.868: the flat
low-regularization end, where every model is within a few units of least
squares (a run with another seed found 2971.9 at alpha 0.034, l1_ratio 1.0,
the lasso end).

    pip install -e ".[examples]"
    treefarm run examples/elastic_net.py --algo gp --n-trials 30 --seed 0
    python examples/elastic_net.py
"""

from __future__ import annotations

import functools
from typing import Any

import treefarm as tf

space = {"alpha": tf.Real(1e-4, 10.0, log=True), "l1_ratio": tf.Real(0.0, 1.0)}


@functools.cache
def _data() -> Any:
    from sklearn.datasets import load_diabetes

    return load_diabetes(return_X_y=True)


def objective(params: dict[str, Any]) -> float:
    """Mean squared error of the 5-fold cross-validation (folds shuffled with seed 0)."""
    from sklearn.linear_model import ElasticNet
    from sklearn.model_selection import KFold, cross_val_score
    from threadpoolctl import threadpool_limits

    X, y = _data()
    model = ElasticNet(alpha=params["alpha"], l1_ratio=params["l1_ratio"], max_iter=5000)
    with threadpool_limits(1):
        scores = cross_val_score(
            model, X, y, cv=KFold(5, shuffle=True, random_state=0), scoring="neg_mean_squared_error"
        )
    return float(-scores.mean())


if __name__ == "__main__":
    result = tf.minimize(objective, space, algo="gp", max_evals=30, seed=0, storage=None)
    best = result.best_params
    print(f"best CV MSE {result.best_value:.1f}")
    print(f"best model: ElasticNet(alpha={best['alpha']:.4g}, l1_ratio={best['l1_ratio']:.3f})")
