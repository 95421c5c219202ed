"""Deterministic learning curves, and a worker script for the cross-process pruning test."""

from __future__ import annotations

import sys
import time

import treefarm as tf
from treefarm.storage import open_storage

SPACE = {"x": tf.Real(0.0, 1.0), "y": tf.Real(0.0, 1.0)}
STEPS = 9


def curve(p: dict, step: int) -> float:
    """A curve whose ranking changes with the step: ``x + y / step``."""
    return p["x"] + p["y"] / step


def pruner() -> tf.Pruner:
    return tf.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3, max_resource=STEPS)


def trained(p: dict, trial: tf.Trial) -> float:
    for step in range(1, STEPS + 1):
        trial.report(step, curve(p, step))
        if trial.should_prune():
            raise tf.TrialPruned()
    return curve(p, STEPS)


def worker(db: str, name: str, n_trials: int) -> None:
    """Run as a process: take ``n_trials`` enqueued trials of ``name``; before reporting a step,
    wait until every earlier trial has reported it or finished, as a one-process run guarantees."""
    storage = open_storage(db)
    study = tf.Study.load(name, space=SPACE, storage=storage, pruner=pruner(), algo="random")
    sid = storage.get_study(name).study_id

    def objective(p: dict, trial: tf.Trial) -> float:
        for step in range(1, STEPS + 1):
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and any(
                not t.state.is_finished and max(t.intermediate, default=0) < step
                for t in storage.get_trials(sid)
                if t.number < trial.number
            ):
                time.sleep(0.01)
            trial.report(step, curve(p, step))
            if trial.should_prune():
                raise tf.TrialPruned()
        return curve(p, STEPS)

    study.optimize(objective, n_new_trials=n_trials)


if __name__ == "__main__":
    worker(sys.argv[1], sys.argv[2], int(sys.argv[3]))
