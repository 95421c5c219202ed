"""CMA-ES against Optuna's ``CmaEsSampler`` on BBOB, and its cost per suggestion as a study grows.

Two parts, each resumable, each writing JSON lines:

- ``run``/``report``: treefarm's ``algo="cmaes"`` (``tf-cmaes``, IPOP restarts) and Optuna's
  ``CmaEsSampler(seed=seed)`` (``optuna-cmaes``, its defaults: one run from the centre, no
  restarts) on BBOB functions (:mod:`bench.bbob`), each run in its own process through
  :func:`bench.runner.run_all`; the report is :func:`bench.bbob.report` (medians with 95 %
  bootstrap intervals, wins and losses beyond noise).
- ``overhead``: the mean seconds per suggestion (``study.ask()`` on in-memory storage, the
  objective excluded) over windows of a study of ``--trials`` trials on a sphere, one row per
  (method, dimension, window); a method and dimension already in the file is skipped.

Usage::

    python -m bench.cmaes run --functions 1,2,8,10,12,15,17,21 --dims 10,20 --seeds 10 --budget 1000
    python -m bench.cmaes report bench/results/cmaes_bbob.jsonl
    python -m bench.cmaes overhead --methods cmaes --dims 6,20 --trials 10000
    python -m bench.cmaes overhead --methods auto --dims 6 --trials 1000
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from . import bbob

METHODS = ["tf-cmaes", "optuna-cmaes"]
RESULTS = Path("bench/results/cmaes_bbob.jsonl")
OVERHEAD = Path("bench/results/cmaes_overhead.jsonl")


def overhead(algo: str, dim: int, trials: int, window: int, seed: int = 0) -> list[dict[str, Any]]:
    """Rows of mean and max seconds per ``study.ask()`` over consecutive windows of ``window`` trials:
    wall-clock and CPU time of this process (the steadier figure on a shared machine)."""
    import treefarm as tf

    space = {f"x{i}": tf.Real(-5.0, 5.0) for i in range(dim)}
    study = tf.Study.create(space=space, algo=algo, seed=seed)
    times, cpus = [], []
    for _ in range(trials):
        start, cpu = time.perf_counter(), time.process_time()
        trial = study.ask()
        times.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
        x = np.array([trial.value[f"x{i}"] for i in range(dim)])
        study.tell(trial, float(np.sum((x - 1.0) ** 2)))
    return [
        {
            "method": algo,
            "dim": dim,
            "from": lo,
            "to": min(lo + window, trials),
            "mean_s": float(np.mean(times[lo : lo + window])),
            "max_s": float(np.max(times[lo : lo + window])),
            "mean_cpu_s": float(np.mean(cpus[lo : lo + window])),
            "max_cpu_s": float(np.max(cpus[lo : lo + window])),
            "version": tf.__version__,
        }
        for lo in range(0, trials, window)
    ]


def _ints(text: str) -> list[int]:
    return [int(t) for t in text.split(",") if t]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cmaes")
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
    over.add_argument("--methods", default="cmaes")
    over.add_argument("--dims", default="6,20")
    over.add_argument("--trials", type=int, default=10_000)
    over.add_argument("--window", type=int, default=250)
    over.add_argument("--out", type=Path, default=OVERHEAD)
    args = parser.parse_args(argv)
    from .runner import read_rows, run_all

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
        done = {(r["method"], r["dim"], r["to"]) for r in map(json.loads, args.out.read_text().splitlines())}
    for algo in args.methods.split(","):
        for dim in _ints(args.dims):
            if (algo, dim, args.trials) in done:
                continue
            rows = overhead(algo, dim, args.trials, args.window)
            with args.out.open("a") as fh:
                fh.writelines(json.dumps(r) + "\n" for r in rows)
            last = rows[-1]
            print(
                f"{algo} d={dim}: mean {last['mean_s']:.4f} s per suggestion ({last['mean_cpu_s']:.4f} s of CPU) "
                f"over trials {last['from']}-{last['to']}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
