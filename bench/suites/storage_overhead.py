"""Storage overhead per trial as the history grows.

For each history level (trials already in the study), times a batch of
``create_trial`` + ``finish_trial`` pairs, one pair at a time, and reports the
median and 90th percentile per pair in milliseconds; also the time of one
full ``get_trials`` read at that level (what an optimizer that needs the whole
history pays per suggestion, before any caching in the study layer).
The history is filled through the same public API.

    python bench/suites/storage_overhead.py                       # SQLite file in a temp folder
    python bench/suites/storage_overhead.py --url postgresql://user@host/db
    python bench/suites/storage_overhead.py --url :memory:        # the in-memory storage

Prints a markdown table.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from treefarm.storage import Storage, TrialState, open_storage

PARAMS = {"lr": 0.001, "layers": 3, "model": "svm", "model.svm.C": 12.5, "kernel": "rbf"}


def _pair(storage: Storage, study_id: int, value: float) -> float:
    """Seconds for one create_trial + finish_trial."""
    start = time.perf_counter()
    number = storage.create_trial(study_id, params=PARAMS, system_attrs={"worker": "bench:1"}).number
    storage.finish_trial(study_id, number, state=TrialState.COMPLETE, value=value)
    return time.perf_counter() - start


def _fill(storage: Storage, study_id: int, up_to: int) -> None:
    for i in range(storage.count_trials(study_id), up_to):
        _pair(storage, study_id, float(i))


def measure(storage: Storage, levels: list[int], batch: int) -> list[tuple[int, float, float, float]]:
    """Rows (level, median ms, p90 ms, full read ms) for each history level."""
    study_id = storage.create_study("bench", direction="minimize", seed=0, attrs={}).study_id
    rows = []
    for level in levels:
        _fill(storage, study_id, level)
        times = sorted(_pair(storage, study_id, float(i)) for i in range(batch))
        start = time.perf_counter()
        storage.get_trials(study_id)
        read = time.perf_counter() - start
        rows.append((level, 1e3 * statistics.median(times), 1e3 * times[int(0.9 * batch)], 1e3 * read))
    return rows


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--url", default=None, help="storage path or URL (default: a new SQLite file)")
    parser.add_argument("--levels", default="100,1000,10000", help="comma-separated history sizes")
    parser.add_argument("--batch", type=int, default=200, help="pairs timed at each level")
    args = parser.parse_args()
    levels = [int(level) for level in args.levels.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        spec = args.url or str(Path(folder) / "bench.db")
        storage = open_storage(spec)
        rows = measure(storage, levels, args.batch)
        storage.close()
    print(f"storage: {args.url or 'SQLite file (temporary)'}, batch of {args.batch} pairs per level\n")
    print("| trials in study | create+finish median (ms) | p90 (ms) | get_trials, all (ms) |")
    print("|---:|---:|---:|---:|")
    for level, median, p90, read in rows:
        print(f"| {level:,} | {median:.2f} | {p90:.2f} | {read:.1f} |")


if __name__ == "__main__":
    main()
