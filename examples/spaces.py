"""Four search spaces, each a few lines: flat, conditional, a grammar, kernel compositions.

Run it to sample a few configurations of each and build their values:
``python examples/spaces.py``.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

import treefarm as tf

# 1. The flat neural-network space of seeds/002.
network = {
    "learning_rate": tf.Real(1e-5, 1e-1, log=True),
    "batch_size": tf.Choice(16, 32, 64, 128, 256),
    "layers": tf.Int(1, 5),
    "dropout": tf.Real(0.0, 0.5),
    "weight_decay": tf.Real(1e-6, 1e-2, log=True),
}

# 2. A conditional SVM space: `degree` exists only for the polynomial kernel.
svm = {
    "C": tf.Real(1e-3, 1e3, log=True),
    "kernel": tf.Join(
        rbf={"kernel": "rbf", "gamma": tf.Real(1e-4, 1.0, log=True)},
        poly={"kernel": "poly", "degree": tf.Int(2, 5), "gamma": tf.Real(1e-4, 1.0, log=True)},
        linear={"kernel": "linear"},
    ),
}

# 3. The thesis's grammar G = f(G, G) | A.
f = tf.op(operator.add, name="f")
G = tf.Var("G", max_depth=5)
G.define(f(G, G) | tf.Int(1, 9))


# 4. GP kernel compositions: sums and products of base kernels, each with its own hyperparameters.
@dataclass(frozen=True)
class Kernel:
    name: str
    params: tuple[tuple[str, float], ...] = ()
    parts: tuple[Kernel, ...] = ()

    def __str__(self) -> str:
        if self.parts:
            return "(" + f" {'+' if self.name == 'sum' else '*'} ".join(map(str, self.parts)) + ")"
        return f"{self.name}({', '.join(f'{k}={v:.3g}' for k, v in self.params)})"


def rbf(lengthscale: float) -> Kernel:
    return Kernel("RBF", (("lengthscale", lengthscale),))


def periodic(lengthscale: float, period: float) -> Kernel:
    return Kernel("Periodic", (("lengthscale", lengthscale), ("period", period)))


def linear(variance: float) -> Kernel:
    return Kernel("Linear", (("variance", variance),))


def add(a: Kernel, b: Kernel) -> Kernel:
    return Kernel("sum", parts=(a, b))


def mul(a: Kernel, b: Kernel) -> Kernel:
    return Kernel("product", parts=(a, b))


K = tf.Var("K", max_depth=4)
K.define(
    tf.op(add)(K, K)
    | tf.op(mul)(K, K)
    | tf.op(rbf)(tf.Real(0.1, 10.0, log=True))
    | tf.op(periodic)(tf.Real(0.1, 10.0, log=True), tf.Real(0.5, 2.0))
    | tf.op(linear)(tf.Real(0.01, 1.0, log=True))
)

SPACES = {"network": network, "svm": svm, "grammar": G, "kernels": K}


def main() -> None:
    rng = np.random.default_rng(0)
    for name, space in SPACES.items():
        print(f"== {name}: {tf.convert(space)!r}")
        for config in tf.sample(space, rng, n=3):
            print(f"   {dict(config)}\n   -> {tf.build(space, config)}")


if __name__ == "__main__":
    main()
