"""CMA-ES against Optuna's ``CmaEsSampler`` on BBOB, and its cost per suggestion as a study grows.

Two parts, each resumable, each writing JSON lines:

- ``run``/``report``: treefarm's ``algo="cmaes"`` (``tf-cmaes``, IPOP restarts) and Optuna's
  ``CmaEsSampler(seed=seed)`` (``optuna-cmaes``, its defaults: one run from the centre, no
  restarts) on BBOB functions (:mod:`bench.harness.bbob`), each run in its own process through
  :func:`bench.harness.runner.run_all`; the report is :func:`bench.harness.bbob.report` (medians with 95 %
  bootstrap intervals, wins and losses beyond noise).
- ``overhead``: CPU seconds per CMA-ES suggestion as an in-memory history of a sphere grows
  to ``--trials``, and at checkpoints a fresh CMA-ES's (cold replay) and ``auto``'s cost on the
  same history (:func:`overhead`); a dimension already in the file is skipped.

Usage::

    python -m bench.suites.cmaes run --functions 1,2,8,10,12,15,17,21 --dims 10,20 --seeds 10 --budget 1000
    python -m bench.suites.cmaes report bench/results/cmaes_bbob.jsonl
    python -m bench.suites.cmaes overhead --dims 6,20 --trials 10000 --checkpoints 1000,9999
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..harness import bbob, paths

METHODS = ["tf-cmaes", "optuna-cmaes"]
RESULTS = paths.RESULTS / "cmaes_bbob.jsonl"
OVERHEAD = paths.RESULTS / "cmaes_overhead.jsonl"


def _sphere_history(dim: int) -> tuple[dict[str, Any], Any]:
    import treefarm as tf

    space = {f"x{i}": tf.Real(-5.0, 5.0) for i in range(dim)}

    def loss(config: Any) -> float:
        return float(sum((config[f"x{i}"] - 1.0) ** 2 for i in range(dim)))

    return space, loss


def _cpu(call: Any) -> float:
    start = time.process_time()
    call()
    return time.process_time() - start


def overhead(
    dim: int, trials: int, window: int, checkpoints: list[int], seed: int = 0
) -> list[dict[str, Any]]:
    """CPU seconds per ``CMAES.suggest`` on an in-memory history of a sphere grown to ``trials``
    (one optimizer object, as one process asks and tells), in windows of ``window`` trials; and
    at each checkpoint the cold cost (a fresh object replaying the whole history, as a new
    worker or a resumed study does) and ``Auto``'s cost on the same history (a fresh object
    each, 3 repeats; the study's own bookkeeping is not counted in either)."""
    import treefarm as tf

    space, loss = _sphere_history(dim)
    optimizer, complete, cpus = tf.CMAES(), [], []
    rows: list[dict[str, Any]] = []
    for t in range(trials):
        if t in checkpoints:
            rows.append(_checkpoint(space, tf.History(complete=tuple(complete)), dim, t, seed))
            print(json.dumps(rows[-1]), flush=True)
        history = tf.History(complete=tuple(complete))
        rng = np.random.default_rng([seed, t])
        start = time.process_time()
        (config,) = optimizer.suggest(space, history, 1, rng)
        cpus.append(time.process_time() - start)
        complete.append(tf.Observation(config, loss(config)))
    rows += [
        {
            "kind": "warm",
            "method": "cmaes",
            "dim": dim,
            "from": lo,
            "to": min(lo + window, trials),
            "mean_cpu_s": float(np.mean(cpus[lo : lo + window])),
            "max_cpu_s": float(np.max(cpus[lo : lo + window])),
        }
        for lo in range(0, trials, window)
    ]
    return rows


def _checkpoint(space: dict[str, Any], history: Any, dim: int, t: int, seed: int) -> dict[str, Any]:
    import treefarm as tf

    rng = np.random.default_rng([seed, t])
    cold = [_cpu(lambda: tf.CMAES().suggest(space, history, 1, rng)) for _ in range(3)]
    auto = [_cpu(lambda: tf.Auto().suggest(space, history, 1, rng)) for _ in range(3)] if t <= 2000 else []
    return {
        "kind": "checkpoint",
        "dim": dim,
        "trials": t,
        "cmaes_cold_cpu_s": float(np.mean(cold)),
        "auto_cpu_s": float(np.mean(auto)) if auto else None,
        "auto_max_cpu_s": float(np.max(auto)) if auto else None,
    }


def _ints(text: str) -> list[int]:
    return [int(t) for t in text.split(",") if t]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.suites.cmaes")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("--functions", default="1,2,8,10,12,15,17,21")
    run.add_argument("--dims", default="10,20")
    run.add_argument("--seeds", type=int, default=10)
    run.add_argument("--budget", type=int, default=1000)
    run.add_argument("--jobs", type=int, default=1)
    run.add_argument("--out", type=Path, default=RESULTS)
    rep = sub.add_parser("report")
    rep.add_argument("results", type=Path, nargs="?", default=RESULTS)
    over = sub.add_parser("overhead")
    over.add_argument("--dims", default="6,20")
    over.add_argument("--checkpoints", default="1000,10000")
    over.add_argument("--trials", type=int, default=10_000)
    over.add_argument("--window", type=int, default=250)
    over.add_argument("--out", type=Path, default=OVERHEAD)
    args = parser.parse_args(argv)
    from ..harness.runner import read_rows, run_all

    if args.command == "run":
        todo = bbob.keys(_ints(args.functions), _ints(args.dims), METHODS, args.seeds, args.budget)
        ran = run_all(todo, args.out, jobs=args.jobs, timeout=3600.0)
        print(f"{ran} runs done; results in {args.out}", file=sys.stderr)
        return 0
    if args.command == "report":
        print(bbob.report(read_rows(args.results), "tf-cmaes", METHODS))
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if args.out.exists():
        done = {r["dim"] for r in map(json.loads, args.out.read_text().splitlines()) if r["kind"] == "warm"}
    for dim in _ints(args.dims):
        if dim in done:
            continue
        rows = overhead(
            dim, args.trials, args.window, [t for t in _ints(args.checkpoints) if t <= args.trials]
        )
        with args.out.open("a") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
