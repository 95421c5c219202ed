"""Module-level objectives (picklable) and worker scripts for the process tests."""

from __future__ import annotations

import os
import sys
import time

import treefarm as tf

SPACE = {"x": tf.Real(-5.0, 5.0), "k": tf.Choice("a", "b")}


def quadratic(p: dict) -> float:
    return (p["x"] - 1.0) ** 2 + (0.5 if p["k"] == "b" else 0.0)


def slow_quadratic(p: dict) -> float:
    time.sleep(0.05)
    return quadratic(p)


def suicidal(p: dict) -> float:
    if p["x"] > 3.0:
        os._exit(1)
    return quadratic(p)


def worker(db: str, study: str, n_trials: int, sleep: float) -> None:
    """Run as a separate process: optimize `study` in `db` for n_trials."""
    s = tf.Study.create(study, space=SPACE, storage=db, seed=1, load_if_exists=True, heartbeat_interval=0.2)

    def objective(p: dict) -> float:
        time.sleep(sleep)
        return quadratic(p)

    s.optimize(objective, n_trials)


if __name__ == "__main__":
    worker(sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))


class TwoArgumentError(Exception):
    """An exception whose class cannot be rebuilt from its pickle (``__init__`` takes two arguments)."""

    def __init__(self, code: int, text: str) -> None:
        super().__init__(f"code {code}: {text}")


def raises_below_half(p: dict) -> float:
    """An objective that raises an exception that cannot travel back for x < 0.5."""
    if p["x"] < 0.5:
        raise TwoArgumentError(7, "x below half")
    return p["x"]


def killer_and_bystander(p: dict) -> float:
    """For x > 3: mark the file named by ``TREEFARM_TEST_MARKER`` and die at once
    (killing its pool process). Otherwise wait until that file exists (at most 20 s),
    then 0.5 s more: a bystander still running in the pool when the killer dies."""
    marker = os.environ["TREEFARM_TEST_MARKER"]
    if p["x"] > 3.0:
        open(marker, "w").close()
        os._exit(1)
    deadline = time.monotonic() + 20.0
    while not os.path.exists(marker) and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.5)
    return quadratic(p)
