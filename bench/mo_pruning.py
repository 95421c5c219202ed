"""MO-ASHA: the steps a study with two objectives saves under successive halving,
and the hypervolume it keeps.

Objective: a training run whose error curve falls with the epochs towards a floor
set by the model's width (a wider model reaches a lower floor: error
``0.3 / sqrt(width) + 0.5 exp(-lr * epoch) + noise``), reported as
``[error, log10(width)]`` at each of 27 epochs: accuracy against size, a front.
The same seeds run with ``SuccessiveHalvingPruner(min_resource=1,
reduction_factor=3, max_resource=27)`` and without a pruner; each row holds the
epochs trained and the final front's hypervolume (reference ``[1.0, 3.0]``).

    python -m bench.mo_pruning run --seeds 10 --trials 60
    python -m bench.mo_pruning report

Rows: ``bench/results/mo_pruning.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROWS = Path(__file__).parent / "results" / "mo_pruning.jsonl"
REFERENCE = [1.0, 3.0]
EPOCHS = 27


def _objective(params: dict[str, Any], trial: Any) -> list[float]:
    rng = np.random.default_rng(trial.number)
    floor = 0.3 / math.sqrt(params["width"])
    values = [1.0, 0.0]
    for epoch in range(1, (trial.budget or EPOCHS) + 1):
        error = floor + 0.5 * math.exp(-params["lr"] * epoch) + 0.01 * float(rng.standard_normal())
        values = [error, math.log10(params["width"])]
        trial.report(epoch, values)
        if trial.should_prune():
            import treefarm as tf

            raise tf.TrialPruned()
    return values


def run_one(seed: int, trials: int, pruned: bool, algo: str) -> dict[str, Any]:
    import treefarm as tf

    pruner = tf.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3, max_resource=EPOCHS) if pruned else None
    space = {"width": tf.Int(1, 1024, log=True), "lr": tf.Real(0.01, 1.0, log=True)}
    study = tf.Study.create(space=space, directions=["minimize", "minimize"], pruner=pruner, algo=algo, seed=seed)
    study.optimize(_objective, n_trials=trials, progress=False)
    epochs = sum(max(t.intermediate) for t in study.trials if t.intermediate)
    return {
        "seed": seed,
        "algo": algo,
        "pruned": pruned,
        "trials": trials,
        "epochs": int(epochs),
        "hypervolume": study.hypervolume(REFERENCE),
    }


def report() -> str:
    rows = [json.loads(line) for line in ROWS.read_text().splitlines() if line.strip()]
    out = []
    for algo in sorted({r["algo"] for r in rows}):
        on = [r for r in rows if r["algo"] == algo and r["pruned"]]
        off = [r for r in rows if r["algo"] == algo and not r["pruned"]]
        if not on or not off:
            continue
        steps = np.median([r["epochs"] for r in on]) / np.median([r["epochs"] for r in off])
        a = np.array([r["hypervolume"] for r in on])
        b = np.array([r["hypervolume"] for r in off])
        rng = np.random.default_rng(0)
        boot = np.median(rng.choice(a, (2000, len(a))), axis=1) - np.median(rng.choice(b, (2000, len(b))), axis=1)
        lo, hi = np.percentile(boot, [2.5, 97.5])
        verdict = "lower beyond noise" if hi < 0 else "higher beyond noise" if lo > 0 else "no difference beyond noise"
        out.append(
            f"{algo}: MO-ASHA trains {steps:.0%} of the epochs of no pruning (medians over {len(on)} and {len(off)} seeds); "
            f"median hypervolume {np.median(a):.4f} against {np.median(b):.4f}, difference [{lo:.4f}, {hi:.4f}]: {verdict}"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.mo_pruning")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("--seeds", type=int, default=10)
    run.add_argument("--trials", type=int, default=60)
    run.add_argument("--algos", default="tpe,random")
    sub.add_parser("report")
    args = parser.parse_args(argv)
    if args.command == "report":
        print(report())
        return
    done = set()
    if ROWS.exists():
        done = {(r["seed"], r["algo"], r["pruned"], r["trials"]) for r in map(json.loads, ROWS.read_text().splitlines())}
    ROWS.parent.mkdir(parents=True, exist_ok=True)
    for seed in range(args.seeds):
        for algo in args.algos.split(","):
            for pruned in (True, False):
                if (seed, algo, pruned, args.trials) in done:
                    continue
                row = run_one(seed, args.trials, pruned, algo)
                with ROWS.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                print(json.dumps(row), file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
