"""CPU milliseconds per suggestion of ``TPE()`` as a study of a recursive space grows.

One study per (problem, seed), ask and tell in memory, ``TPE()``'s defaults; for each window of
100 trials the mean and largest CPU time of ``study.ask()`` (the study's redraws of a refused
suggestion included) and how many trials repeated an earlier configuration. The rows of the code
before a change are made by running this module with ``PYTHONPATH`` at that commit's ``src``
and ``--label before``.

Usage (resumable: a (label, problem, seed) already in the file is skipped)::

    python -m bench.screens.tpe_grammar_cost --problems nguyen7,small6 --seeds 1 --trials 1000 --label now
    python -m bench.screens.tpe_grammar_cost --report
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from ..harness import paths
from ..harness.runner import head_commit

RESULTS = paths.RESULTS / "tpe_grammar_cost.jsonl"
WINDOW = 100


def measure(problem: str, seed: int, trials: int) -> list[dict[str, object]]:
    """Per window of trials: mean and largest ms per ask, and repeated configurations."""
    import treefarm as tf

    from ..harness.problems import all_problems

    p = all_problems()[problem]
    study = tf.Study.create(space=p.treefarm_space(), algo=tf.TPE(), seed=seed)
    seen: set[object] = set()
    rows, times, repeats = [], [], 0
    for i in range(trials):
        start = time.process_time()
        trial = study.ask()
        times.append(1000 * (time.process_time() - start))
        repeats += trial.config in seen
        seen.add(trial.config)
        study.tell(trial, p.objective(p.flat_value(trial.value)))
        if (i + 1) % WINDOW == 0:
            rows.append({"from": i + 1 - WINDOW, "to": i + 1, "mean_ms": float(np.mean(times)),
                         "max_ms": float(np.max(times)), "repeats": repeats})
            times, repeats = [], 0
    return rows


def report(path: Path) -> str:
    """Mean (largest) ms per ask per window, and the repeated configurations, one line per run."""
    rows = [json.loads(line) for line in path.open()]
    longest = max((r["windows"] for r in rows), key=len)
    out = ["| label | problem | seed | " + " | ".join(f"{w['to']}" for w in longest) + " | repeats |",
           "|---" * (len(longest) + 4) + "|"]
    for r in rows:
        cells = [f"{w['mean_ms']:.0f} ({w['max_ms']:.0f})" for w in r["windows"]]
        cells += [""] * (len(longest) - len(cells))
        out.append(f"| {r['label']} | {r['problem']} | {r['seed']} | " + " | ".join(cells)
                   + f" | {sum(w['repeats'] for w in r['windows'])} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problems", default="nguyen7")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--label", default="now")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--commit", default=None, help="the commit of the code measured (default: HEAD)")
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args(argv)
    if args.report:
        if not args.out.exists():
            raise SystemExit(f"no rows to report: {args.out} does not exist (run the screen first)")
        print(report(args.out))
        return 0
    from ..harness.problems import all_problems

    unknown = sorted(set(args.problems.split(",")) - set(all_problems()))
    if unknown:
        raise SystemExit(f"unknown problems {unknown}: give names of bench.harness.problems, e.g. nguyen7,small6")
    done = set()
    if args.out.exists():
        done = {(r["label"], r["problem"], r["seed"]) for r in map(json.loads, args.out.open())}
    for problem in args.problems.split(","):
        for seed in range(args.seeds):
            if (args.label, problem, seed) in done:
                continue
            row = {"label": args.label, "problem": problem, "seed": seed, "trials": args.trials,
                   "commit": args.commit or head_commit(), "windows": measure(problem, seed, args.trials)}
            with args.out.open("a") as f:
                f.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
