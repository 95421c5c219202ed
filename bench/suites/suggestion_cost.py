"""Seconds per suggestion of ``GP()`` and ``auto`` on histories of 100 to 10,000 trials.

The history: the first ``N`` trials of treefarm's CMA-ES (``algo="cmaes"``, IPOP restarts, seed 0)
on a shifted Rosenbrock function (BBOB f8's shape, Hansen et al. 2009: ``x`` in ``[-5, 5]^d``,
optimum at ``1 + z`` with ``z`` drawn once from seed 0 in ``[-1, 1]^d``). CMA-ES makes 10,000 trials
in about a minute, and its trials crowd around its runs' optima as a long GP study's do, which is
the hard case for a GP's Cholesky factorization. Each history is built once per dimension and its
prefixes serve every ``N``.

At each ``N`` two measures, CPU seconds of this process (one BLAS thread), the study's own
bookkeeping not counted:

- ``cold``: ``K`` suggestions, each by a fresh optimizer on the same history, as a new worker or a
  resumed study makes its first (nothing cached: every fit from scratch);
- ``running``: one optimizer makes one suggestion (not timed: its caches fill as a running study's
  have), then ``K`` in a row, each evaluated and added to the history before the next, as one
  process asking and telling does. Up to ``GP(full_until=...)`` a scratch fit at a refit point
  (every 64 trials at 1,000) costs what a ``cold`` suggestion does, and adds ``cold / 64`` to the
  mean; past it the GP keeps the last refit's hyperparameters and fits no more.

Usage (resumable: a (method, dim, N, kind) already in the file is skipped; rows as JSON lines)::

    python -m bench.suites.suggestion_cost run --methods gp,auto --dims 6,20 --trials 100,300,1000,3000,10000
    python -m bench.suites.suggestion_cost report
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ..harness import paths

RESULTS = paths.RESULTS / "suggestion_cost.jsonl"


def _methods() -> dict[str, Callable[[], Any]]:
    """The optimizers measured, each as a factory of a fresh object (``*-unbounded``: the GP on
    every trial throughout, suggestion for suggestion the GP and ``auto`` before the bound)."""
    import treefarm as tf

    return {
        "gp": lambda: tf.GP(),
        "auto": lambda: tf.Auto(),
        "gp-unbounded": lambda: tf.GP(full_until=None),
        "auto-unbounded": lambda: tf.Auto(gp=tf.GP(full_until=None), handover_after=None),
        "cmaes": lambda: tf.CMAES(),
    }


def problem(dim: int) -> tuple[dict[str, Any], Callable[[Any], float]]:
    """The space and the shifted Rosenbrock loss (minimum 0 at ``1 + z``)."""
    import treefarm as tf

    z = np.random.default_rng(0).uniform(-1.0, 1.0, dim)
    space = {f"x{i}": tf.Real(-5.0, 5.0) for i in range(dim)}

    def loss(config: Any) -> float:
        x = np.array([config[f"x{i}"] for i in range(dim)]) - z
        return float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (x[:-1] - 1.0) ** 2))

    return space, loss


@cache
def history_trials(dim: int, trials: int) -> tuple[Any, ...]:
    """The CMA-ES trials (observations, in order) of the history of ``dim`` (see the module docstring)."""
    import treefarm as tf

    space, loss = problem(dim)
    optimizer, complete = tf.CMAES(), []
    for t in range(trials):
        (config,) = optimizer.suggest(space, tf.History(complete=tuple(complete)), 1, np.random.default_rng([0, t]))
        complete.append(tf.Observation(config, loss(config)))
    return tuple(complete)


def measure(method: str, dim: int, trials: int, kind: str, k: int) -> dict[str, Any]:
    """One row: ``k`` suggestions' CPU seconds at ``trials`` (module docstring)."""
    import treefarm as tf

    space, loss = problem(dim)
    complete = list(history_trials(dim, max(trials, 10_000))[:trials])
    factory = _methods()[method]
    shared = factory()
    if kind == "running":
        shared.suggest(space, tf.History(complete=tuple(complete)), 1, np.random.default_rng([1, trials, k]))
    cpus: list[float] = []
    for i in range(k):
        optimizer = factory() if kind == "cold" else shared
        rng = np.random.default_rng([1, trials, i])
        start = time.process_time()
        (config,) = optimizer.suggest(space, tf.History(complete=tuple(complete)), 1, rng)
        cpus.append(time.process_time() - start)
        if kind == "running":
            complete.append(tf.Observation(config, loss(config)))
    return {
        "method": method,
        "dim": dim,
        "trials": trials,
        "kind": kind,
        "k": k,
        "cpu_s": cpus,
        "mean_cpu_s": float(np.mean(cpus)),
        "max_cpu_s": float(np.max(cpus)),
        "threads": os.environ.get("OMP_NUM_THREADS"),
    }


def report(rows: list[dict[str, Any]]) -> str:
    """Mean and largest CPU seconds per suggestion, by method, dimension, history size and kind."""
    out = ["| method | d | trials | kind | K | mean s | max s |", "|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (r["method"], r["dim"], r["kind"], r["trials"])):
        out.append(
            f"| {r['method']} | {r['dim']} | {r['trials']} | {r['kind']} | {r['k']} "
            f"| {r['mean_cpu_s']:.3f} | {r['max_cpu_s']:.3f} |"
        )
    return "\n".join(out)


def _read(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:  # a torn last line from a killed run
            continue
    return rows


def _csv(text: str) -> list[str]:
    return [t for t in text.split(",") if t]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.suites.suggestion_cost")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("--methods", default="gp,auto")
    run.add_argument("--dims", default="6,20")
    run.add_argument("--trials", default="100,300,1000,3000,10000")
    run.add_argument("--kinds", default="cold,running")
    run.add_argument("--k", type=int, default=5, help="suggestions per row")
    run.add_argument("--out", type=Path, default=RESULTS)
    rep = sub.add_parser("report")
    rep.add_argument("results", type=Path, nargs="?", default=RESULTS)
    args = parser.parse_args(argv)
    if args.command == "report":
        print(report(_read(args.results)))
        return 0
    if os.environ.get("OMP_NUM_THREADS") != "1":
        print("note: OMP_NUM_THREADS is not 1; the targets are for one core", file=sys.stderr)
    done = {(r["method"], r["dim"], r["trials"], r["kind"]) for r in _read(args.out)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for method in _csv(args.methods):
        for dim in map(int, _csv(args.dims)):
            for trials in map(int, _csv(args.trials)):
                for kind in _csv(args.kinds):
                    if (method, dim, trials, kind) in done:
                        continue
                    row = measure(method, dim, trials, kind, args.k)
                    print(json.dumps({k: v for k, v in row.items() if k != "cpu_s"}), flush=True)
                    with args.out.open("a") as fh:
                        fh.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
