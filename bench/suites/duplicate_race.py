"""Two processes on one GP study at once: is a configuration ever recorded twice?

``python -m bench.suites.duplicate_race --runs 16`` runs, ``--runs`` times, two worker
processes that start together on a fresh SQLite study (the GP, 12 trials in
all, an instant objective, so both suggest from the same history at the same
moments) and prints, per run, the pairs of trial numbers that hold the same
configuration. The GP is deterministic given the history: without the
storage's atomic check (``set_trial_params(..., unique_from=...)``) the two
workers' identical suggestions were both written in 6 of 12 runs.
"""

from __future__ import annotations

import argparse
import tempfile
from multiprocessing import Barrier, Process
from pathlib import Path

import treefarm as tf

SPACE = {"x": tf.Real(0.0, 1.0), "y": tf.Real(0.0, 1.0)}
TRIALS = 12


def _worker(db: Path, start: Barrier) -> None:
    start.wait()
    study = tf.Study.create("race", space=SPACE, storage=db, load_if_exists=True)
    study.optimize(lambda p: (p["x"] - 0.3) ** 2 + p["y"], TRIALS)


def one_run(db: Path) -> list[tuple[int, int]]:
    """The pairs (earlier, later) of trial numbers with equal configurations."""
    tf.Study.create("race", space=SPACE, storage=db, seed=1, algo="gp")
    start = Barrier(2)
    workers = [Process(target=_worker, args=(db, start)) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    params = [tuple(sorted(t.params.items())) for t in tf.Study.load("race", space=SPACE, storage=db).trials]
    return [(j, i) for i in range(len(params)) for j in range(i) if params[i] == params[j]]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.suites.duplicate_race")
    parser.add_argument("--runs", type=int, default=16)
    args = parser.parse_args()
    repeated = 0
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            pairs = one_run(Path(tmp) / "race.db")
        repeated += bool(pairs)
        print(f"run {run}: {len(pairs)} repeated configuration(s) {pairs}")
    print(f"{repeated} of {args.runs} runs recorded a configuration twice")


if __name__ == "__main__":
    main()
