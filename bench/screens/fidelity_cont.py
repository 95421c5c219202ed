"""The screen of model-based promotion (``tf-auto-fidelity-model``) against ASHA's (``tf-auto-fidelity``).

``python -m bench.screens.fidelity_cont [--held-out]`` prints, per problem, the median regret
[95 % bootstrap interval] at 10 and 30 full-evaluation equivalents of the variant (:data:`SCREEN`),
of ``tf-auto-fidelity`` with ASHA's rule as the suite read it before (:data:`bench.suites.fidelity.FILES`
without the screen's files), of ASHA's rule rerun at the variant's commit (:data:`CONTROL_FILE`)
and of ``auto`` at full fidelity; the variant's verdict against each (the suite's:
the bootstrap interval of the difference of medians excludes 0); and the cost at which each
median anytime curve first reaches ``tf-auto-fidelity``'s median at 30 (a target reached at
half the cost or less is the adoption bar's other half).
"""

from __future__ import annotations

import argparse

import numpy as np

from ..harness.fidelity_problems import HELD_OUT, PROBLEMS
from ..harness.summary import fmt, verdict
from ..suites.fidelity import FILES, finals_at, median_cell, regret_at, rows

VARIANT = "model's promotions"
BASE = "tf-auto-fidelity"
CONTROL = "ASHA's (rerun)"
FULL = "tf-auto-full"
#: The screen's files: the variant's rows (written as ``tf-auto-fidelity-model``; relabelled
#: ``tf-auto-fidelity`` once it became the default, as the suite reads them) and the control,
#: ``tf-auto-fidelity`` with ASHA's rule rerun at the variant's commit.
SCREEN = ("fidelity_cont_design.jsonl", "fidelity_cont_heldout.jsonl")
CONTROL_FILE = "fidelity_cont_control.jsonl"
GRID = np.arange(0.5, 30.01, 0.5)


def _sources() -> dict[str, tuple[list[str], tuple[str, ...]]]:
    """Each column: the files it reads and the methods its rows carry there."""
    before = [f for f in FILES if f not in SCREEN]
    return {VARIANT: (list(SCREEN), ("tf-auto-fidelity-model", BASE)), BASE: (before, (BASE,)),
            CONTROL: ([CONTROL_FILE], (BASE,)), FULL: (before, (FULL,))}


def _finals(cost: float, held_out: bool) -> dict[tuple[str, str], dict[int, float]]:
    out: dict[tuple[str, str], dict[int, float]] = {}
    for label, (files, methods) in _sources().items():
        for (p, m), seeds in finals_at(cost, files, held_out=held_out).items():
            if m in methods:
                out[(p, label)] = seeds
    return out


def _anytime(problem: str, label: str) -> np.ndarray:
    """Median regret over the seeds at each cost of :data:`GRID` (runs to 30)."""
    files, methods = _sources()[label]
    runs = [r for r in rows(files) if r["status"] == "ok" and r["problem"] == problem and r["method"] in methods
            and r["max_cost"] == 30]
    if not runs:
        return np.full(len(GRID), np.nan)
    return np.median([[regret_at(r, c) for c in GRID] for r in runs], axis=0)


def _cost_to(curve: np.ndarray, target: float) -> float:
    reached = np.nonzero(curve <= target + 1e-12)[0]
    return float(GRID[reached[0]]) if len(reached) else float("inf")


def report(held_out: bool = False) -> str:
    methods = (VARIANT, BASE, CONTROL, FULL)
    marks = {1: "better", -1: "worse", 0: "within noise"}
    out: list[str] = []
    by_cost = {c: _finals(c, held_out) for c in (10, 30)}
    problems = [p for p in PROBLEMS if (p in HELD_OUT) == held_out and (p, VARIANT) in by_cost[30]]
    for cost, finals in by_cost.items():
        out += [f"Regret at {cost} (median [95 % interval], seeds); the variant against each:", "",
                "| problem | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
        for p in problems:
            cells = []
            for m in methods:
                seeds = finals.get((p, m))
                mark = "" if m == VARIANT or not seeds else f", variant {marks[verdict(finals, p, m, VARIANT)]}"
                cells.append(median_cell(seeds) + mark)
            out.append(f"| {p} | " + " | ".join(cells) + " |")
        out.append("")
    out += [f"Cost at which the median anytime regret first reaches {BASE}'s median at 30 (–: not within 30):", "",
            "| problem | target | " + " | ".join(methods) + " |", "|---" * (len(methods) + 2) + "|"]
    for p in problems:
        target = float(np.median(list(by_cost[30][(p, BASE)].values())))
        cells = [fmt(_cost_to(_anytime(p, m), target)) for m in methods]
        out.append(f"| {p} | {fmt(target)} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def suggestion_ms() -> str:
    """Median ms of the method's own work around the n-th suggestion (the suite's clock), the
    variant's runs and the control's (ASHA's rule at the variant's commit)."""
    marks = (10, 30, 100, 300)
    out = ["| rule | evaluations (median) | " + " | ".join(f"ms at #{m}" for m in marks) + " |",
           "|---" * (len(marks) + 2) + "|"]
    for label in (VARIANT, CONTROL):
        files, methods = _sources()[label]
        laps = [r["suggest_ms"] for r in rows(files) if r["status"] == "ok" and r["method"] in methods
                and r["max_cost"] == 30]
        cells = []
        for k in marks:
            around = [float(np.median(lap[max(0, k - 5):k + 5])) for lap in laps if len(lap) >= k]
            cells.append(f"{np.median(around):.0f} ({len(around)})" if around else "·")
        out.append(f"| {label} | {np.median([len(lap) + 1 for lap in laps]):.0f} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.screens.fidelity_cont")
    parser.add_argument("--held-out", action="store_true")
    args = parser.parse_args(argv)
    print(report(args.held_out))
    print(suggestion_ms())


if __name__ == "__main__":
    main()
