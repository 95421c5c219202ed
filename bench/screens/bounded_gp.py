"""Past the GP's threshold: a bounded subset of observations, or a hand-over to CMA-ES?

A scaled-down screen of the two ways to bound the GP's cost (issue 44), on BBOB functions: the
threshold and the subset are shrunk by the same ratio as the defaults (``full_until=1000`` with a
subset of 400 becomes ``--until 150`` with ``--subset 60``), so a run to ``--budget`` trials costs
seconds, not hours. Each method starts from nothing and runs ``--budget`` trials in memory
(``suggest``, evaluate, add), seed ``s`` on instance ``1 + s % 3``:

- ``gp-full``: ``GP(full_until=None)``, the GP on every observation throughout (today's);
- ``gp-subset``: ``GP(full_until=until)`` with the subset of ``--subset`` rows
  (:func:`treefarm.bo.subset.bounded_rows`);
- ``handover``: ``Auto(handover_after=until)``: the GP to ``until`` trials, then CMA-ES started at
  the incumbent with a step size from the spread of the best 10 trials
  (:mod:`treefarm.optimizers.handover`), replaying only the trials after the hand-over;
- ``cmaes``: ``CMAES()`` alone from the first trial.

Rows (JSON lines, resumable by (function, dim, method, seed)) hold the regret of the best so far at
every trial; ``report`` gives the median regret and its spread at the checkpoints.

Usage::

    python -m bench.screens.bounded_gp run --functions 1,8,10,15,21 --dims 5 --seeds 5
    python -m bench.screens.bounded_gp report
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from ..harness import paths
from ..harness.bbob import bbob_problems, instance_of_seed, name

RESULTS = paths.RESULTS / "bounded_gp_screen.jsonl"
METHODS = ("gp-full", "gp-subset", "handover", "cmaes")


def make(method: str, until: int, subset: int) -> Any:
    import treefarm as tf

    if method == "gp-full":
        return tf.GP(full_until=None)
    if method == "gp-subset":
        return tf.GP(full_until=until, subset_size=subset)
    if method == "handover":
        return tf.Auto(gp=tf.GP(full_until=None), handover_after=until)
    return tf.CMAES()


def run(function: int, dim: int, method: str, seed: int, budget: int, until: int, subset: int) -> list[float]:
    """The regret of the best so far after each trial of one run."""
    import treefarm as tf

    problem = bbob_problems()[name(function, instance_of_seed(seed), dim)]
    space = problem.treefarm_space()
    optimizer = make(method, until, subset)
    complete: list[Any] = []
    best, out = np.inf, []
    for t in range(budget):
        rng = np.random.default_rng([seed, t])
        (config,) = optimizer.suggest(space, tf.History(complete=tuple(complete)), 1, rng)
        loss = problem.objective(problem.flat_value(config))
        complete.append(tf.Observation(config, loss))
        best = min(best, loss - (problem.optimum or 0.0))
        out.append(float(best))
    return out


def report(rows: list[dict[str, Any]], checkpoints: list[int]) -> str:
    groups: dict[tuple[int, int, str], list[list[float]]] = {}
    for r in rows:
        groups.setdefault((r["function"], r["dim"], r["method"]), []).append(r["regret"])
    head = " | ".join(f"median at {c} [min, max]" for c in checkpoints)
    out = [f"| f | d | method | seeds | {head} |", "|---|---|---|---|" + "---|" * len(checkpoints)]
    for (f, d, m), runs in sorted(groups.items()):
        cells = []
        for c in checkpoints:
            v = np.array([r[min(c, len(r)) - 1] for r in runs])
            cells.append(f"{np.median(v):.3g} [{v.min():.3g}, {v.max():.3g}]")
        out.append(f"| {f} | {d} | {m} | {len(runs)} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def _ints(text: str) -> list[int]:
    return [int(t) for t in text.split(",") if t]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.screens.bounded_gp")
    sub = parser.add_subparsers(dest="command", required=True)
    go = sub.add_parser("run")
    go.add_argument("--functions", default="1,8,10,15,21")
    go.add_argument("--dims", default="5")
    go.add_argument("--methods", default=",".join(METHODS))
    go.add_argument("--seeds", type=int, default=5)
    go.add_argument("--budget", type=int, default=400)
    go.add_argument("--until", type=int, default=150)
    go.add_argument("--subset", type=int, default=60)
    go.add_argument("--out", type=Path, default=RESULTS)
    rep = sub.add_parser("report")
    rep.add_argument("results", type=Path, nargs="?", default=RESULTS)
    rep.add_argument("--checkpoints", default="150,250,400")
    args = parser.parse_args(argv)
    if args.command == "report":
        rows = [json.loads(x) for x in args.results.read_text().splitlines() if x.strip()]
        print(report(rows, _ints(args.checkpoints)))
        return 0
    done = set()
    if args.out.exists():
        done = {(r["function"], r["dim"], r["method"], r["seed"]) for r in map(json.loads, args.out.read_text().splitlines())}
    for seed in range(args.seeds):
        for dim in _ints(args.dims):
            for function in _ints(args.functions):
                for method in args.methods.split(","):
                    if (function, dim, method, seed) in done:
                        continue
                    regret = run(function, dim, method, seed, args.budget, args.until, args.subset)
                    row = {"function": function, "dim": dim, "method": method, "seed": seed, "budget": args.budget,
                           "until": args.until, "subset": args.subset, "regret": regret}
                    print(json.dumps({k: v for k, v in row.items() if k != "regret"} | {"final": regret[-1]}), flush=True)
                    with args.out.open("a") as fh:
                        fh.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
