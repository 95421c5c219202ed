"""Quickstart: tune a (simulated) neural network's training settings.

The space is the flat network space of seeds/002 plus a conditional
optimizer choice: momentum exists only for SGD. The value a join builds knows
which option was chosen (``params["optimizer"].option``), so no marker key is needed. The objective is a cheap
analytic stand-in for a validation loss, so the example runs in seconds; swap
in your own training code.

    treefarm run examples/quickstart.py --n-trials 60

or from Python: ``python examples/quickstart.py``.
"""

from __future__ import annotations

import math

import treefarm as tf

space = {
    "learning_rate": tf.Real(1e-5, 1e-1, log=True),
    "batch_size": tf.Choice(16, 32, 64, 128, 256),
    "layers": tf.Int(1, 6),
    "dropout": tf.Real(0.0, 0.5),
    "weight_decay": tf.Real(1e-6, 1e-2, log=True),
    "optimizer": tf.Join(
        adam={},
        sgd={"momentum": tf.Real(0.0, 0.99)},
    ),
}


def objective(params: dict) -> float:
    """A smooth validation-loss surface with its optimum near lr=3e-3, 3 layers,
    dropout 0.2, weight decay 1e-4, batch 64, and SGD needing high momentum."""
    lr = math.log10(params["learning_rate"]) - math.log10(3e-3)
    wd = math.log10(params["weight_decay"]) - math.log10(1e-4)
    batch = math.log2(params["batch_size"]) - 6
    loss = 0.08 + 0.05 * lr**2 + 0.01 * wd**2 + 0.004 * batch**2
    loss += 0.01 * (params["layers"] - 3) ** 2 + 0.3 * (params["dropout"] - 0.2) ** 2
    opt = params["optimizer"]
    if opt.option == "sgd":
        loss += 0.02 + 0.1 * (0.9 - opt["momentum"]) ** 2
    return loss


if __name__ == "__main__":
    result = tf.minimize(objective, space, algo="random", max_evals=60, seed=0, storage=None)
    print(result)
    print("best params:", result.best_params)
