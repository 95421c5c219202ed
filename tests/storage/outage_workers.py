"""Workers run in separate OS processes (spawned) by the outage tests."""

from __future__ import annotations

import time

import treefarm as tf
from treefarm.storage import SQLStorage

SPACE = {"x": tf.Real(-5.0, 5.0)}


def sleepy_square(p: dict) -> float:
    time.sleep(0.1)
    return float(p["x"] ** 2)


def optimize(url: str, name: str, n_trials: int, journal: str) -> None:
    """Run the study ``name`` to ``n_trials`` trials in total, riding out outages up to 60 s."""
    storage = SQLStorage(url, retry_deadline=60.0, journal=journal)
    study = tf.Study.create(name, space=SPACE, storage=storage, algo="random", seed=3, load_if_exists=True)
    study.optimize(sleepy_square, n_trials)
    storage.close()
