"""Symbolic regression over a recursive grammar: recover a formula from noisy data.

Reproduces the thesis's grammar spaces (seeds/001, "recursive search
spaces" and "Expression Equality"): an expression is

    E = E + E | E * E | sin(E) | exp(E) | x0 | x1 | c,    c ~ Uniform(-2, 2)

expanded at most 4 times along any path. The data are 200 samples of the
known formula ``y = x0 * sin(x1) + x0`` at points drawn uniformly from
[-3, 3]^2, plus Gaussian noise of standard deviation 0.05 (seed 0), so the
true formula scores a mean squared error near the noise level 0.0025.
``+`` and ``*`` are declared commutative and associative, so ``x0 + x1`` and
``x1 + x0`` are one point of the search (one canonical form) and a study
never evaluates an expression twice. Evaluation is vectorized numpy: tens of
microseconds per expression.

Recovering the formula is rare for blind search: 2 of 20,000 random
expressions reach the noise level, and most runs stall at ``x0`` (MSE 1.65).
Measured with the grammar optimizer (``algo="grammar"``, 1,000 evaluations,
5-6 s of CPU each): seed 0, what ``python examples/symbolic_regression.py``
runs, finds ``x0 * (sin(x1) + sin(1.5713))``, printed as
``mul(add(sin(x1), sin(const(1.5712...))), x0)`` (sin(1.5713) = 1.0000: the
true formula, MSE 0.00246, at the noise level); over seeds 0-4 it reaches the
noise level in 1 of 5 runs, the others stop at MSE 0.089-0.93 (seed 3:
``sin(0.94) * x0 * exp(sin(x1))``, 0.089). Annealing with seed 0 stops at
MSE 0.53.

    treefarm run examples/symbolic_regression.py --algo grammar --n-trials 1000
    python examples/symbolic_regression.py
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

import treefarm as tf

rng = np.random.default_rng(0)
X = rng.uniform(-3.0, 3.0, size=(200, 2))
y = X[:, 0] * np.sin(X[:, 1]) + X[:, 0] + 0.05 * rng.standard_normal(200)
NOISE_MSE = 0.05**2
#: The largest loss: an expression that overflows or misses by more scores this.
WORST = 1e6


@dataclass(frozen=True, repr=False)
class Expr:
    """An expression tree: ``kind`` is add, mul, sin, exp, x0, x1 or const.

    ``expr(X)`` evaluates it on the rows of ``X`` (n, 2); ``str(expr)`` reads
    like the formula, e.g. ``(x0 * sin(x1)) + x0``, with constants to 3
    significant digits; ``repr(expr)`` keeps them exact (canonical forms and
    the CLI's report use it, and two constants must never print alike).
    """

    kind: str
    args: tuple[Expr, ...] = ()
    value: float = 0.0

    def __call__(self, data: NDArray[np.float64]) -> NDArray[np.float64]:
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

    def text(self, *, exact: bool = False, nested: bool = False) -> str:
        """The formula; a binary operation is parenthesized when ``nested`` in another."""
        if self.kind in ("x0", "x1"):
            return self.kind
        if self.kind == "const":
            return repr(self.value) if exact else f"{self.value:.3g}"
        if self.kind in ("sin", "exp"):
            return f"{self.kind}({self.args[0].text(exact=exact)})"
        sign = "+" if self.kind == "add" else "*"
        a, b = (arg.text(exact=exact, nested=True) for arg in self.args)
        return f"({a} {sign} {b})" if nested else f"{a} {sign} {b}"

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return self.text(exact=True)


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

#: The formula that generated the data, ``(x0 * sin(x1)) + x0``, as a configuration of ``space``.
TRUTH = tf.Config(
    {
        "E": "add",
        "E.add.0": "mul",
        "E.add.0.mul.0": "x0",
        "E.add.0.mul.1": "sin",
        "E.add.0.mul.1.sin.0": "x1",
        "E.add.1": "x0",
    }
)


def objective(expr: Expr) -> float:
    """Mean squared error of the expression on the data (``WORST`` where it overflows)."""
    with np.errstate(all="ignore"):
        err = float(np.mean((expr(X) - y) ** 2))
    return err if math.isfinite(err) and err < WORST else WORST


if __name__ == "__main__":
    result = tf.minimize(objective, space, algo="grammar", max_evals=1000, seed=0, storage=None)
    print(f"best MSE {result.best_value:.4g} (noise level {NOISE_MSE:.4g})")
    print(f"best expression: {result.best_params}")
    print(f"true formula:    {tf.build(space, TRUTH)}  (MSE {objective(tf.build(space, TRUTH)):.4g})")
