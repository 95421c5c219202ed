"""Tables of the early-stopping benchmark from its JSON-lines rows (``bench/suites/pruning.py``).

For each problem and method, over seeds: the best validation error among
completed trials (the whole run, and within 40 % of the steps a no-pruning
run uses), the steps used, and how many runs reach the no-pruning runs'
median best error within 40 % of their steps (and the median share of steps
it took). ``python -m bench.suites.pruning_report bench/results/pruning.jsonl ...``
"""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

SHARE = 0.4


def best_within(trials: list[dict[str, Any]], budget: float) -> float:
    """The best completed value among the trials finished within ``budget`` steps (in run order)."""
    used, best = 0, math.inf
    for t in trials:
        used += t["steps"]
        if used > budget:
            break
        if t["state"] == "complete":
            best = min(best, t["value"])
    return best


def steps_to_reach(trials: list[dict[str, Any]], target: float) -> float:
    """The steps used when a completed trial first reaches ``target`` (inf if never)."""
    used = 0
    for t in trials:
        used += t["steps"]
        if t["state"] == "complete" and t["value"] <= target:
            return used
    return math.inf


def table(rows: list[dict[str, Any]], problem: str) -> str:
    runs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if r["problem"] == problem:
            runs[r["method"]].append(r)
    full = {m: rs for m, rs in runs.items() if m.endswith("-none")}
    if not full:
        return f"(no no-pruning rows for {problem})\n"
    full_steps = np.median([sum(t["steps"] for t in r["trials"]) for rs in full.values() for r in rs])
    target = float(np.median([best_within(r["trials"], math.inf) for r in runs["tf-none"]]))
    budget = SHARE * full_steps
    lines = [
        f"{problem}: no-pruning runs use {full_steps:.0f} steps; target = tf-none median best "
        f"error {target:.4f}; budget = {SHARE:.0%} of the steps = {budget:.0f}",
        "",
        "| method | seeds | median best error | median steps used | median best error "
        f"within {budget:.0f} steps | runs reaching the target within {budget:.0f} steps "
        "| median steps to reach it (share) |",
        "|---|---|---|---|---|---|---|",
    ]
    for method in sorted(runs):
        rs = runs[method]
        best = np.median([best_within(r["trials"], math.inf) for r in rs])
        used = np.median([sum(t["steps"] for t in r["trials"]) for r in rs])
        within = np.median([best_within(r["trials"], budget) for r in rs])
        reach = [steps_to_reach(r["trials"], target) for r in rs]
        hit = sum(x <= budget for x in reach)
        med = float(np.median(reach))
        share = "never" if math.isinf(med) else f"{med:.0f} ({med / full_steps:.0%})"
        lines.append(
            f"| {method} | {len(rs)} | {best:.4f} | {used:.0f} | {within:.4f} | {hit}/{len(rs)} | {share} |"
        )
    shares = (0.1, 0.2, 0.3, 0.4, 0.5, 1.0)
    lines += [
        "",
        "Mean over seeds of the best error within a share of the no-pruning steps "
        "(the median moves in steps of one validation sample):",
        "",
        "| method | " + " | ".join(f"{s:.0%}" for s in shares) + " |",
        "|---|" + "---|" * len(shares),
    ]
    for method in sorted(runs):
        means = [np.mean([best_within(r["trials"], s * full_steps) for r in runs[method]]) for s in shares]
        lines.append(f"| {method} | " + " | ".join(f"{m:.4f}" for m in means) + " |")
    return "\n".join(lines) + "\n"


def main(paths: list[str]) -> None:
    rows = list(
        {
            (r["problem"], r["method"], r["seed"]): r  # a key run by two runners counts once
            for r in (json.loads(line) for p in paths for line in Path(p).read_text().splitlines() if line)
        }.values()
    )
    for problem in sorted({r["problem"] for r in rows}):
        print(table(rows, problem))


if __name__ == "__main__":
    main(sys.argv[1:])
