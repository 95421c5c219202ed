"""Seconds per suggestion over whole runs, refits included: ``python -m bench.suites.overhead FILE...``.

Every suggestion of every run of a method on a problem is pooled (the
runner records each one's CPU and wall seconds), and the table gives their
mean, median and maximum, and the maximum over the suggestions made with at
least ``--at`` observations (the slowest suggestion at that history size).
CPU seconds are this process's (all threads), the figure to compare on a
shared machine; wall seconds include waiting for a core.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from ..harness.paths import RESULTS
from ..harness.runner import read_rows
from ..harness.suite import Finals, Suite, lines


def table(rows: list[dict[str, Any]], *, at: int = 100) -> str:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        if r.get("status") == "ok" and r.get("suggest_cpu"):
            groups.setdefault((r["problem"], r["method"]), []).append(r)
    lines = [
        f"| problem | method | runs | CPU s mean | median | max | max at >= {at - 1} obs. | wall s mean |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (problem, method), runs in sorted(groups.items()):
        cpu = np.concatenate([np.asarray(r["suggest_cpu"], dtype=float) for r in runs])
        late = [np.asarray(r["suggest_cpu"], dtype=float)[at - 1 :] for r in runs]
        late_max = max((float(x.max()) for x in late if len(x)), default=float("nan"))
        wall = np.concatenate([np.asarray(r["suggest_times"], dtype=float) for r in runs])
        lines.append(
            f"| {problem} | {method} | {len(runs)} | {cpu.mean():.3f} | {np.median(cpu):.3f} | {cpu.max():.2f} "
            f"| {late_max:.2f} | {wall.mean():.3f} |"
        )
    return "\n".join(lines)


def finals() -> Finals:
    """Per problem and method, each seed's mean CPU seconds per suggestion over the whole run."""
    out: Finals = {}
    for r in lines(RESULTS / "overhead_lbfgsb.jsonl"):
        if r.get("status") == "ok" and r.get("suggest_cpu"):
            out.setdefault((r["problem"], r["method"]), {})[int(r["seed"])] = float(np.mean(r["suggest_cpu"]))
    return out


SUITES = (
    Suite(
        "overhead", "Overhead: seconds per suggestion",
        "The optimizer's own CPU time per suggestion over whole 100-trial runs, refits included: `auto` "
        "(the GP on these spaces) against Optuna's GPSampler, on the synthetic functions.",
        "mean CPU seconds per suggestion over a 100-trial run", "tf-auto", ("tf-auto", "optuna-gp"),
        ("overhead_lbfgsb.jsonl",),
        ("python -m bench run --problems synthetic --methods tf-auto,optuna-gp --seeds 5 --jobs 1 "
         "--out bench/results/overhead_lbfgsb.jsonl",),
        finals),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--at", type=int, default=100, help="history size for the last column")
    args = parser.parse_args()
    print(table([r for path in args.results for r in read_rows(path)], at=args.at))


if __name__ == "__main__":
    main()
