"""
Searching a grammar of expressions
==================================

A recursive space — expressions built from ``+``, ``*`` and ``sin`` over two inputs — searched
by ``algo="grammar"`` for the formula behind a few data points, ``x0 * sin(x1)``. The figure
lists the best distinct expressions found, with their depth: within 100 evaluations the
formula is found exactly (a mean squared error of 0).
"""

import numpy as np

import treefarm as tf
from treefarm import viz

rng = np.random.default_rng(0)
X = rng.uniform(-2, 2, size=(30, 2))
y = X[:, 0] * np.sin(X[:, 1])

add = tf.op(np.add, name="add", commutative=True, associative=True)
mul = tf.op(np.multiply, name="mul", commutative=True, associative=True)
sin = tf.op(np.sin, name="sin")
column = tf.op(lambda name: X[:, int(name[1])], name="col")

E = tf.Var("E", max_depth=4)
E.define(add(E, E) | mul(E, E) | sin(E) | column(tf.Choice("x0", "x1")))


def mse(values):
    """Mean squared error of the expression's values on the data."""
    return float(np.mean((values - y) ** 2))


study = tf.Study.create("symbolic", space=E, algo="grammar", seed=0)  # no storage: kept in memory
study.optimize(mse, n_trials=100)
print(f"best mean squared error {study.best_value:.3g}: {study.best_params}")
print(f"the data's variance, for scale: {y.var():.3g}")

# %%
# The best distinct structures:
structures = viz.plot_structures(study)
