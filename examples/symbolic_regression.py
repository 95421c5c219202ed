"""Symbolic regression over a recursive grammar: recover a formula from noisy data.

The thesis's grammar spaces (seeds/001): an expression is ``E = E + E | E * E
| sin(E) | exp(E) | x0 | x1 | c`` with real constants ``c``, depth-limited.
The data are 200 noisy samples of ``x0 * sin(x1) + x0`` on [-3, 3]^2 (noise
standard deviation 0.05); the loss is the mean squared error. ``+`` and ``*``
are declared commutative and associative, so ``x0 + x1`` and ``x1 + x0`` are
one point of the search and are never evaluated twice.

    treefarm run examples/symbolic_regression.py --algo tpe --n-trials 200
    python examples/symbolic_regression.py
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import treefarm as tf

rng = np.random.default_rng(0)
X = rng.uniform(-3.0, 3.0, size=(200, 2))
y = X[:, 0] * np.sin(X[:, 1]) + X[:, 0] + 0.05 * rng.standard_normal(200)
NOISE_MSE = 0.05**2


@dataclass(frozen=True)
class Expr:
    """An expression tree: ``kind`` is add, mul, sin, exp, x0, x1 or const."""

    kind: str
    args: tuple[Expr, ...] = ()
    value: float = 0.0

    def __call__(self, data: np.ndarray) -> np.ndarray:
        if self.kind in ("x0", "x1"):
            return data[:, int(self.kind[1])]
        if self.kind == "const":
            return np.full(len(data), self.value)
        a = [arg(data) for arg in self.args]
        if self.kind == "add":
            return a[0] + a[1]
        if self.kind == "mul":
            return a[0] * a[1]
        if self.kind == "sin":
            return np.sin(a[0])
        return np.exp(np.clip(a[0], -50.0, 50.0))

    def __str__(self) -> str:
        if self.kind in ("x0", "x1"):
            return self.kind
        if self.kind == "const":
            return f"{self.value:.3g}"
        if self.kind in ("sin", "exp"):
            return f"{self.kind}({self.args[0]})"
        return f"({self.args[0]} {'+' if self.kind == 'add' else '*'} {self.args[1]})"


add = tf.op(lambda a, b: Expr("add", (a, b)), name="add", commutative=True, associative=True)
mul = tf.op(lambda a, b: Expr("mul", (a, b)), name="mul", commutative=True, associative=True)
sin = tf.op(lambda a: Expr("sin", (a,)), name="sin")
exp = tf.op(lambda a: Expr("exp", (a,)), name="exp")
const = tf.op(lambda v: Expr("const", value=v), name="const")

E = tf.Var("E", max_depth=4)
E.define(
    add(E, E)
    | mul(E, E)
    | sin(E)
    | exp(E)
    | tf.Join(x0=tf.Const(Expr("x0")), x1=tf.Const(Expr("x1")), c=const(tf.Real(-2.0, 2.0)))
)
space = E


def objective(expr: Expr) -> float:
    """Mean squared error of the expression on the data (1e6 where it overflows)."""
    with np.errstate(all="ignore"):
        err = float(np.mean((expr(X) - y) ** 2))
    return err if math.isfinite(err) and err < 1e6 else 1e6


if __name__ == "__main__":
    result = tf.minimize(objective, space, algo="tpe", max_evals=200, seed=0, storage=None)
    print(f"best MSE {result.best_value:.4g} (noise level {NOISE_MSE:.4g}): {result.best_params}")
