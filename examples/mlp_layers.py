"""Feed-forward networks with a variable number of layers (a thesis experiment).

The thesis (seeds/001, Experiments: "Feed-Forward Networks"; the number of
layers is its example of a discrete parameter) names this experiment without
a setup or results; this is ours. The number of hidden layers (1 to 3) is a
choice, and each chosen layer has its own size, an integer on a log scale in
[4, 128] — a Join over depths of tuples of sizes, so a 2-layer network has
exactly two size parameters. The learning rate and the L2 penalty (alpha)
are shared, both on log scales. The loss is the held-out classification
error of scikit-learn's ``MLPClassifier`` on the bundled digits data (8x8
images, 10 classes; 70/30 split, fixed seeds, ``max_iter`` epochs of Adam
without early stopping): about 0.6 s of CPU per evaluation.

Measured: ``python examples/mlp_layers.py`` (TPE, 40 evaluations, seed 0)
prints a held-out error of 0.0204 with one layer of 39 units, learning rate
0.00503, alpha 0.0842 (about 25 s of CPU; 0.0185 with TPE's earlier defaults,
20 start-up trials and the bounds as neighbours).

BLAS runs on one thread inside the objective: these matrices are small, and
on a shared machine OpenBLAS's spinning threads made a fit 10-15x slower
(measured 21 s against 1.4 s wall for a (48, 25) network under load).

    pip install -e ".[examples]"
    treefarm run examples/mlp_layers.py --algo tpe --n-trials 40 --seed 0
    python examples/mlp_layers.py
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import treefarm as tf

size = tf.Int(4, 128, log=True)
space = {
    "learning_rate": tf.Real(1e-4, 1e-1, log=True),
    "alpha": tf.Real(1e-6, 1e-1, log=True),
    "layers": tf.Join(one=(size,), two=(size, size), three=(size, size, size)),
}


@functools.cache
def _data() -> Any:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    return train_test_split(X / 16.0, y, test_size=0.3, random_state=0)


def objective(params: dict[str, Any], *, max_iter: int = 60) -> float:
    """Held-out error (1 - accuracy) of the network ``params`` describes, after ``max_iter`` epochs."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier
    from threadpoolctl import threadpool_limits

    Xtr, Xte, ytr, yte = _data()
    model = MLPClassifier(
        tuple(params["layers"]),
        learning_rate_init=params["learning_rate"],
        alpha=params["alpha"],
        max_iter=max_iter,
        early_stopping=False,
        random_state=0,
    )
    with warnings.catch_warnings(), threadpool_limits(1):
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(Xtr, ytr)
        return 1.0 - float(model.score(Xte, yte))


if __name__ == "__main__":
    result = tf.minimize(objective, space, algo="tpe", max_evals=40, seed=0, storage=None)
    best = result.best_params
    print(f"best held-out error {result.best_value:.4f}")
    print(
        f"best network: hidden layers {tuple(best['layers'])}, "
        f"learning rate {best['learning_rate']:.3g}, alpha {best['alpha']:.3g}"
    )
