"""A worker process of the grid test: runs one SQLite study's grid to its budget."""

from __future__ import annotations

import sys

import treefarm as tf
from treefarm import Grid

#: 2 x 3 x 4 = 24 points.
SPACE = {"a": tf.Int(0, 1), "b": tf.Choice("p", "q", "r"), "c": tf.Real(0.0, 1.0)}


def objective(p: dict) -> float:
    return p["a"] + (p["b"] == "q") + p["c"]


if __name__ == "__main__":
    db, name = sys.argv[1], sys.argv[2]
    study = tf.Study.create(
        name, space=SPACE, storage=db, algo=Grid(resolution=4), seed=5, load_if_exists=True
    )
    study.optimize(objective, n_trials=24)
