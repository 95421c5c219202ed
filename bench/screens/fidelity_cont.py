"""The screen of model-based promotion (``tf-auto-fidelity-model``) against ASHA's (``tf-auto-fidelity``).

``python -m bench.screens.fidelity_cont [--held-out] [FILE...]`` prints, per problem, the median
regret [95 % bootstrap interval] at 10 and 30 full-evaluation equivalents of the variant, of
``tf-auto-fidelity`` as the suite reads it (:data:`bench.suites.fidelity.FILES`), of
``tf-auto-fidelity`` rerun at the variant's commit (``fidelity_cont_control.jsonl``, when
given) and of ``auto`` at full fidelity; the variant's verdict against each (the suite's:
the bootstrap interval of the difference of medians excludes 0); and the cost at which each
median anytime curve first reaches ``tf-auto-fidelity``'s median at 30 (a target reached at
half the cost or less is the adoption bar's other half).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..harness.fidelity_problems import HELD_OUT, PROBLEMS
from ..harness.summary import fmt, median_interval, verdict
from ..suites.fidelity import FILES, finals_at, regret_at, rows

VARIANT = "tf-auto-fidelity-model"
BASE = "tf-auto-fidelity"
CONTROL = "tf-auto-fidelity (rerun)"
GRID = np.arange(0.5, 30.01, 0.5)


def _labelled(files: Sequence[str]) -> list[str]:
    """The suite's files, then the screen's; the control rows are relabelled so that they sit
    beside the suite's own ``tf-auto-fidelity`` rows rather than replace them."""
    return [*FILES, *files]


def _finals(cost: float, files: Sequence[str], held_out: bool) -> dict[tuple[str, str], dict[int, float]]:
    out = finals_at(cost, [f for f in _labelled(files) if "control" not in f], held_out=held_out)
    control = [f for f in files if "control" in f]
    if control:
        for (p, m), seeds in finals_at(cost, control, held_out=held_out).items():
            out[(p, CONTROL if m == BASE else m)] = seeds
    return out


def _anytime(files: Sequence[str], problem: str, method: str) -> np.ndarray:
    """Median regret over the seeds at each cost of :data:`GRID` (runs to 30)."""
    if method == CONTROL:
        chosen, method = [f for f in files if "control" in f], BASE
    else:
        chosen = [f for f in _labelled(files) if "control" not in f]
    runs = [r for r in rows(chosen) if r["status"] == "ok" and r["problem"] == problem and r["method"] == method
            and r["max_cost"] == 30]
    if not runs:
        return np.full(len(GRID), np.nan)
    return np.median([[regret_at(r, c) for c in GRID] for r in runs], axis=0)


def _cost_to(curve: np.ndarray, target: float) -> float:
    reached = np.nonzero(curve <= target + 1e-12)[0]
    return float(GRID[reached[0]]) if len(reached) else float("inf")


def report(files: Sequence[str], held_out: bool = False) -> str:
    methods = (VARIANT, BASE, CONTROL, "tf-auto-full")
    marks = {1: "better", -1: "worse", 0: "within noise"}
    out: list[str] = []
    by_cost = {c: _finals(c, files, held_out) for c in (10, 30)}
    problems = [p for p in PROBLEMS if (p in HELD_OUT) == held_out and (p, VARIANT) in by_cost[30]]
    for cost, finals in by_cost.items():
        out += [f"Regret at {cost} (median [95 % interval], seeds); the variant against each:", "",
                "| problem | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
        for p in problems:
            cells = []
            for m in methods:
                seeds = finals.get((p, m))
                if not seeds:
                    cells.append("·")
                    continue
                v = np.array(list(seeds.values()))
                lo, hi = median_interval(v)
                mark = "" if m == VARIANT else f", variant {marks[verdict(finals, p, m, VARIANT)]}"
                cells.append(f"{fmt(float(np.median(v)))} [{fmt(lo)}, {fmt(hi)}] ({len(v)}){mark}")
            out.append(f"| {p} | " + " | ".join(cells) + " |")
        out.append("")
    out += [f"Cost at which the median anytime regret first reaches {BASE}'s median at 30 (–: not within 30):", "",
            "| problem | target | " + " | ".join(methods) + " |", "|---" * (len(methods) + 2) + "|"]
    for p in problems:
        target = float(np.median(list(by_cost[30][(p, BASE)].values())))
        cells = [fmt(_cost_to(_anytime(files, p, m), target)) for m in methods]
        out.append(f"| {p} | {fmt(target)} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def suggestion_ms(files: Sequence[str]) -> str:
    """Median ms of the method's own work around the n-th suggestion (the suite's clock)."""
    marks = (10, 30, 100, 300)
    by: dict[str, list[Any]] = {}
    for r in rows(list(files)):
        if r["status"] == "ok" and r["max_cost"] == 30:
            label = CONTROL if r["method"] == BASE else r["method"]
            by.setdefault(label, []).append(r["suggest_ms"])
    out = ["| method | evaluations (median) | " + " | ".join(f"ms at #{m}" for m in marks) + " |",
           "|---" * (len(marks) + 2) + "|"]
    for m, laps in sorted(by.items()):
        cells = []
        for k in marks:
            around = [float(np.median(lap[max(0, k - 5):k + 5])) for lap in laps if len(lap) >= k]
            cells.append(f"{np.median(around):.0f} ({len(around)})" if around else "·")
        out.append(f"| {m} | {np.median([len(lap) + 1 for lap in laps]):.0f} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.screens.fidelity_cont")
    parser.add_argument("files", nargs="*", default=["fidelity_cont_design.jsonl", "fidelity_cont_control.jsonl"])
    parser.add_argument("--held-out", action="store_true")
    args = parser.parse_args(argv)
    print(report(args.files, args.held_out))
    print(suggestion_ms(args.files))


if __name__ == "__main__":
    main()
