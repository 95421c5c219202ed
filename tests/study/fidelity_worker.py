"""A worker process of a study at several fidelities (tests/study/test_fidelity_processes.py):
``python fidelity_worker.py DB STUDY MAX_COST SHAPE [PROMOTIONS]``, shape ``fidelity`` or ``curve``;
``PROMOTIONS``, ``auto``'s tuned setting of that name (``asha`` by default, or ``model``)."""

from __future__ import annotations

import math
import sys
import time

import treefarm as tf
from treefarm.optimizers.base import variant

SPACE = {"x": tf.Real(-5.0, 10.0), "y": tf.Real(0.0, 15.0)}
FIDELITY = tf.Fidelity(1 / 9, 1.0, cost=lambda f: f**2)


def branin(config: dict, fidelity: float) -> float:
    x, y = config["x"], config["y"]
    b = 5.1 / (4 * math.pi**2) - 0.01 * (1 - fidelity)
    return (y - b * x**2 + 5 / math.pi * x - 6) ** 2 + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x) + 10


def at_fidelity(config: dict, trial: tf.Trial) -> float:
    time.sleep(0.01)
    return branin(config, trial.fidelity or 1.0)


def curve(config: dict, trial: tf.Trial) -> float:
    value = math.inf
    for step in range(1, 10):
        time.sleep(0.002)
        value = branin(config, 1.0) + 5.0 / step
        trial.report(step, value)
        if trial.should_prune():
            raise tf.TrialPruned()
    return value


def main() -> None:
    db, name, max_cost, shape = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    if shape == "fidelity":
        promotions = sys.argv[5] if len(sys.argv) > 5 else "asha"
        algo = variant(tf.Auto, {"promotions": promotions})
        study = tf.Study.create(
            name, space=SPACE, storage=db, fidelity=FIDELITY, seed=4, algo=algo, load_if_exists=True
        )
        study.optimize(at_fidelity, max_cost=max_cost, progress=False)
    else:
        pruner = tf.HyperbandPruner(min_resource=1, max_resource=9, reduction_factor=3)
        study = tf.Study.create(name, space=SPACE, storage=db, pruner=pruner, seed=4, load_if_exists=True)
        study.optimize(curve, max_cost=max_cost, progress=False)


if __name__ == "__main__":
    main()
