"""Would ASHA have stopped the best trial? Replaying the no-pruning runs of ``bench/suites/pruning.py``.

For each no-pruning treefarm run (``tf-none``) whose rows carry the trials'
params, every trial's learning curve is recomputed (the trainers are
deterministic) and treefarm's :class:`~treefarm.SuccessiveHalvingPruner`
judges the trials in their run order, each against the full curves of the
trials before it (as it would if they had not been stopped). The report
says, per pruner setting, in how many runs the run's best trial would have
been stopped, and at which rung: a setting that stops the eventual winner
early cannot reach the no-pruning best on the same trials.

    python -m bench.screens.pruning_rungs bench/results/pruning_hgb_more.jsonl --problem hgb_synth

One JSON line per (problem, seed) in ``--out``; a rerun replays only new runs.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from bench.suites.pruning import MAX_STEPS, hgb_synth, mlp_digits

SETTINGS = {"min_resource=1": 1, "min_resource=3": 3}
"""ASHA's first rung (eta = 3, max_resource = 27): rungs at 1, 3, 9 steps, or at 3 and 9."""


def curves_of(problem: str, params: list[dict[str, Any]]) -> list[dict[int, float]]:
    """Each configuration's validation error after every step."""
    factory = {"mlp_digits": mlp_digits, "hgb_synth": hgb_synth, "hgb_synth_val3000": lambda: hgb_synth(3000)}
    _, trainer = factory[problem]()
    out = []
    for p in params:
        step = trainer(p)
        out.append({s: step() for s in range(1, MAX_STEPS + 1)})
    return out


def stopped_at(curves: list[dict[int, float]], number: int, min_resource: int) -> int | None:
    """The step at which ASHA would stop trial ``number`` (None: it runs to the end)."""
    import treefarm as tf
    from treefarm.pruners import Curves

    pruner = tf.SuccessiveHalvingPruner(min_resource=min_resource, reduction_factor=3, max_resource=MAX_STEPS)
    earlier = dict(enumerate(curves[:number]))
    for step in range(1, MAX_STEPS + 1):
        own = {s: v for s, v in curves[number].items() if s <= step}
        if pruner.prune(Curves(number, own, earlier)):
            return step
    return None


def verdict(problem: str, run: dict[str, Any]) -> dict[str, Any]:
    """The replay of one no-pruning run: its best trial, its ranks at the rungs and
    the step each ASHA setting would have stopped it at (None: never)."""
    trials = run["trials"]
    curves = curves_of(problem, [t["params"] for t in trials])
    best = min(range(len(trials)), key=lambda i: (trials[i]["value"], i))
    replayed = curves[best][MAX_STEPS]
    if abs(replayed - trials[best]["value"]) > 1e-12:
        raise SystemExit(f"the replay must reproduce the run, but got {replayed} != {trials[best]['value']}")
    return {
        "problem": problem,
        "seed": run["seed"],
        "best": best,
        "value": trials[best]["value"],
        "params": trials[best]["params"],
        "ranks": {s: 1 + sum(c[s] < curves[best][s] for c in curves[:best]) for s in (1, 3, 9)},
        "stopped_at": {name: stopped_at(curves, best, r) for name, r in SETTINGS.items()},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.screens.pruning_rungs")
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--problem", default="hgb_synth")
    parser.add_argument("--out", type=Path, default=Path("bench/results/pruning_rungs.jsonl"))
    args = parser.parse_args(argv)
    rows = [json.loads(line) for p in args.paths for line in p.read_text().splitlines() if line]
    runs = {
        r["seed"]: r
        for r in rows
        if r["problem"] == args.problem and r["method"] == "tf-none" and "params" in r["trials"][0]
    }
    done = [json.loads(line) for line in args.out.read_text().splitlines()] if args.out.exists() else []
    seen = {(v["problem"], v["seed"]) for v in done}
    for seed in sorted(runs):
        if (args.problem, seed) not in seen:
            done.append(verdict(args.problem, runs[seed]))
            with args.out.open("a") as fh:
                fh.write(json.dumps(done[-1]) + "\n")
    mine = [v for v in done if v["problem"] == args.problem and v["seed"] in runs]
    for v in mine:
        print(
            f"seed {v['seed']}: best trial {v['best']} (error {v['value']:.4f}, params {v['params']}); "
            f"its rank among the trials before it at steps 1, 3, 9: {list(v['ranks'].values())}; "
            f"stopped at: {v['stopped_at']}"
        )
    for name in SETTINGS:
        counts = Counter(
            "runs to the end" if v["stopped_at"][name] is None else f"stopped at step {v['stopped_at'][name]}"
            for v in mine
        )
        print(f"{name}: the best trial of {len(mine)} runs: {dict(sorted(counts.items()))}")


if __name__ == "__main__":
    main()
