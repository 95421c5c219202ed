"""The grammar benchmark's tables: final best loss per method with bootstrap intervals, exact recoveries, wins.

``python -m bench.suites.grammar_report FILE... [--budget 100] [--methods a,b,...] [--relabel FILE:METHOD=LABEL]``

For each problem and method, over seeds: the median of the best loss after
``budget`` evaluations, with a 95 % percentile-bootstrap interval of that
median (Efron & Tibshirani 1993, ch. 13; 2,000 resamples of the seeds,
seeded); the number of seeds that recovered the target exactly (loss below
:data:`bench.harness.symbolic.EXACT`, symbolic regression only); and per problem the
method with the lowest median. Rows that are not ``ok`` are left out; a
method with fewer than 10 seeds on a problem is shown with its seed count.
``--relabel`` shows one file's rows of a method under another name (two
versions of one method, say, recorded in different files).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from ..harness.runner import key_of, read_rows
from ..harness.symbolic import EXACT

BOOTSTRAP = 2000


def final_losses(rows: list[dict[str, Any]], budget: int) -> dict[tuple[str, str], np.ndarray]:
    """(problem, method) -> the best loss of each seed's run within ``budget`` evaluations."""
    out: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in rows:
        if r["status"] == "ok" and r.get("losses") and len(r["losses"]) >= budget:
            out[(r["problem"], r["method"])].append(float(np.min(r["losses"][:budget])))
    return {k: np.array(v) for k, v in out.items()}


def median_interval(x: np.ndarray, seed: int = 0) -> tuple[float, float, float]:
    """The median of ``x`` and its 95 % percentile-bootstrap interval."""
    rng = np.random.default_rng(seed)
    medians = np.median(x[rng.integers(0, len(x), size=(BOOTSTRAP, len(x)))], axis=1)
    lo, hi = np.percentile(medians, [2.5, 97.5])
    return float(np.median(x)), float(lo), float(hi)


def tables(rows: list[dict[str, Any]], methods: list[str], budget: int, ours: str) -> str:
    finals = final_losses(rows, budget)
    problems = sorted({p for p, _ in finals}, key=lambda p: (not p.startswith("nguyen"), len(p), p))
    head = "| problem | " + " | ".join(methods) + " | best median |"
    lines = [head, "|" + "---|" * (len(methods) + 2)]
    exact_lines = ["| problem | " + " | ".join(methods) + " |", "|" + "---|" * (len(methods) + 1)]
    wins, contested = 0, 0
    for p in problems:
        cells, medians = [], {}
        for m in methods:
            x = finals.get((p, m))
            if x is None:
                cells.append("–")
                continue
            med, lo, hi = median_interval(x)
            medians[m] = med
            seeds = "" if len(x) >= 10 else f" ({len(x)} seeds)"
            cells.append(f"{med:.3g} [{lo:.3g}, {hi:.3g}]{seeds}")
        best = min(medians.values())
        leaders = [m for m, v in medians.items() if v <= best + 1e-12]
        cells = [f"**{c}**" if m in leaders else c for m, c in zip(methods, cells)]
        lines.append(f"| {p} | " + " | ".join(cells) + f" | {', '.join(leaders)} |")
        if ours in medians and len(medians) > 1:
            contested += 1
            wins += ours in leaders
        if p not in ("kernel_search", "symbolic_regression") and any((p, m) in finals for m in methods):
            counts = [
                f"{int((finals[(p, m)] < EXACT).sum())}/{len(finals[(p, m)])}" if (p, m) in finals else "–"
                for m in methods
            ]
            exact_lines.append(f"| {p} | " + " | ".join(counts) + " |")
    summary = f"{ours} has the best (or tied best) median on {wins} of {contested} problems."
    return "\n".join(
        [
            f"### Median best loss after {budget} evaluations [95 % bootstrap interval]\n",
            *lines,
            "",
            summary,
            "\n### Exact recoveries (loss < 1e-10), seeds\n",
            *exact_lines,
            "",
            suggestion_times(rows, methods),
        ]
    )


def suggestion_times(rows: list[dict[str, Any]], methods: list[str]) -> str:
    """Mean CPU seconds per suggestion, over every ok run of each method."""
    parts = []
    for m in methods:
        cpu = [t for r in rows if r["method"] == m and r["status"] == "ok" for t in r.get("suggest_cpu", [])]
        if cpu:
            parts.append(f"{m} {1000 * float(np.mean(cpu)):.1f} ms")
    return "Mean CPU per suggestion (all problems): " + ", ".join(parts) + "."


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.suites.grammar_report")
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--budget", type=int, default=100)
    parser.add_argument("--methods", default="tf-grammar,tf-random,tf-tpe,tf-anneal,tf-gp,optuna-tpe,gplearn")
    parser.add_argument("--problems", default="", help="only these problems (comma-separated)")
    parser.add_argument(
        "--relabel", action="append", default=[], metavar="FILE:METHOD=LABEL", help="rename a file's method"
    )
    args = parser.parse_args(argv)
    labels = {}
    for spec in args.relabel:
        where, label = spec.split("=", 1)
        path, method = where.rsplit(":", 1)
        labels[(Path(path), method)] = label
    by_key = {
        key_of(r): r
        for path in args.results
        for r in (
            {**row, "method": labels.get((path, row["method"]), row["method"])} for row in read_rows(path)
        )
    }  # a rerun key: last file wins
    rows = list(by_key.values())
    if args.problems:
        keep = set(args.problems.split(","))
        rows = [r for r in rows if r["problem"] in keep]
    methods = args.methods.split(",")
    print(tables([r for r in rows if r["method"] in methods], methods, args.budget, methods[0]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
