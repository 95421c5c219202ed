"""Feed-forward networks with a variable number of layers (a thesis experiment).

The number of hidden layers (1 to 3) decides how many layer sizes exist;
each layer has its own size on a log scale. The learning rate and the L2
penalty are shared. The loss is the held-out error of scikit-learn's
``MLPClassifier`` on the digits data (60 epochs, fixed split and seed).

    pip install -e ".[examples]"
    treefarm run examples/mlp_layers.py --algo tpe --n-trials 40
"""

from __future__ import annotations

import functools
import warnings

import treefarm as tf

size = tf.Int(4, 128, log=True)
space = {
    "learning_rate": tf.Real(1e-4, 1e-1, log=True),
    "alpha": tf.Real(1e-6, 1e-1, log=True),
    "layers": tf.Join(one=(size,), two=(size, size), three=(size, size, size)),
}


@functools.cache
def _data():  # type: ignore[no-untyped-def]
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    return train_test_split(X / 16.0, y, test_size=0.3, random_state=0)


def objective(params: dict, *, max_iter: int = 60) -> float:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    Xtr, Xte, ytr, yte = _data()
    model = MLPClassifier(
        tuple(params["layers"]),
        learning_rate_init=params["learning_rate"],
        alpha=params["alpha"],
        max_iter=max_iter,
        random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(Xtr, ytr)
    return 1.0 - float(model.score(Xte, yte))


if __name__ == "__main__":
    result = tf.minimize(objective, space, algo="tpe", max_evals=40, seed=0, storage=None)
    print(f"best held-out error {result.best_value:.4f} with {result.best_params}")
