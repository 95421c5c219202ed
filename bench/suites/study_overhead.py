"""Study overhead per trial (``ask`` + ``tell`` with an empty objective) as the history grows.

What a user pays per trial on top of the objective: reserving the trial,
the optimizer's suggestion (random search here, which needs no history),
recording the configuration, building the value and recording the result.
For each level (trials already in the study), 200 ask/tell pairs are timed one
by one; the median and 90th percentile are printed in milliseconds.

    python bench/suites/study_overhead.py                    # SQLite file in a temp folder (the default storage)
    python bench/suites/study_overhead.py --storage :memory:
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import treefarm as tf

SPACE = {"lr": tf.Real(1e-5, 1e-1, log=True), "layers": tf.Int(1, 6), "act": tf.Choice("relu", "tanh")}


def measure(storage: str, levels: list[int], batch: int) -> list[tuple[int, float, float]]:
    study = tf.Study.create("overhead", space=SPACE, storage=storage, seed=0)
    rows, done = [], 0
    for level in levels:
        while done < level:
            study.tell(study.ask(), 1.0)
            done += 1
        times = []
        for _ in range(batch):
            start = time.perf_counter()
            study.tell(study.ask(), 1.0)
            times.append((time.perf_counter() - start) * 1e3)
            done += 1
        times.sort()
        rows.append((level, statistics.median(times), times[int(0.9 * len(times))]))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--storage", default=None, help="path or URL (default: a SQLite file in a temp folder)"
    )
    parser.add_argument("--levels", default="100,1000,10000")
    parser.add_argument("--batch", type=int, default=200)
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        storage = args.storage or str(Path(tmp) / "overhead.db")
        rows = measure(storage, levels, args.batch)
    print("| trials in study | ask+tell median (ms) | p90 (ms) |\n|---:|---:|---:|")
    for level, median, p90 in rows:
        print(f"| {level:,} | {median:.2f} | {p90:.2f} |")


if __name__ == "__main__":
    main()
