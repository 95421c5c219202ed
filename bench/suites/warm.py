"""Warm starts measured: a study started from a related study, from an unrelated
one, and cold.

``Study.create(..., warm_start=[source])`` enqueues the source's best
configuration as the new study's first trial (the default; region hints
only with ``warm_start_credibility`` > 0: :mod:`treefarm.study.state.warm`). Per problem, the source is a finished
study of 100 trials (seed ``1000 + seed``; ``auto``, the default, or the
optimizer ``--source`` names) on

* ``related``: the same problem shifted (every number's optimum moved by
  ``SHIFT`` of its range: the source minimizes f(x - SHIFT * width)), or for
  the SVC the neighbouring dataset (the other half of digits: the target
  uses the even rows, the source the odd ones), or for Nguyen-9 (a grammar)
  another sample of its 20 points (drawn with seed 1, the target's with 0);
* ``unrelated``: the problem mirrored in its box (f(low + high - x)), whose
  optimum lies elsewhere, or for Nguyen-9 another formula on the same
  grammar (Nguyen-12, x^4 - x^3 + y^2/2 - y).

The target study runs ``auto`` for 100 evaluations. Reported per
problem and variant: the median regret at 100 and the first evaluation at
which the median regret reaches the cold median at 100 (a warm start that
halves the evaluations gets there in half the cold runs' count).

    python -m bench.suites.warm run --seeds 10       # appends to bench/results/warm.jsonl (resumable)
    python -m bench.suites.warm report
    python -m bench.suites.warm run --seeds 2 --source tpe && python -m bench.suites.warm report --source tpe
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

import treefarm as tf

from ..harness.paths import RESULTS
from ..harness.problems import SYMBOLIC, SYNTHETIC, TUNING, Problem

OUT = RESULTS / "warm.jsonl"
BUDGET = 100
SOURCE_TRIALS = 100
SHIFT = 0.05
PROBLEMS: dict[str, Problem] = {
    "hartmann6": SYNTHETIC["hartmann6"],
    "branin": SYNTHETIC["branin"],
    "svc_digits": TUNING["svc_digits"],
    "styblinski8": SYNTHETIC["styblinski8"],
    "nguyen9": SYMBOLIC["nguyen9"],
}
#: The variants each problem is run with.
VARIANTS: dict[str, tuple[str, ...]] = {
    "hartmann6": ("cold", "related", "unrelated"),
    "branin": ("cold", "related", "unrelated"),
    "svc_digits": ("cold", "related"),
    "styblinski8": ("cold", "related", "unrelated"),
    "nguyen9": ("cold", "related", "unrelated"),
}

#: How far above the cold median a regret still counts as reaching it: the SVC's CV
#: errors with one count of misclassified digits differ by a few 1e-6 with how the
#: errors fall on the folds, and one digit more is 1 / 899 = 0.0011.
TOLERANCE: dict[str, float] = {"svc_digits": 1e-4}

Objective = Callable[[Mapping[str, Any]], float]


def _moved(problem: Problem, move: Callable[[float, float, float], float]) -> Objective:
    """The problem's objective at every number moved by ``move(x, low, high)``."""
    bounds = {p.name: (p.low, p.high) for p in problem.params}

    def objective(v: Mapping[str, Any]) -> float:
        return problem.objective({k: move(x, *bounds[k]) for k, x in v.items()})

    return objective


def _svc_odd_rows(v: Mapping[str, Any]) -> float:
    """The SVC's 3-fold CV error on the odd rows of digits (the problem uses the even ones)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import cross_val_score
    from sklearn.svm import SVC

    X, y = load_digits(return_X_y=True)
    kwargs = {"C": v["C"], "kernel": v["kernel"]}
    if v["kernel"] != "linear":
        kwargs["gamma"] = v["gamma"]
    if v["kernel"] == "poly":
        kwargs["degree"] = v["degree"]
    return 1.0 - float(cross_val_score(SVC(**kwargs), X[1::2] / 16.0, y[1::2], cv=3).mean())


def _symbolic_source(variant: str) -> Objective:
    """Nguyen-9 on another sample of its points (related), or Nguyen-12 (unrelated)."""
    from dataclasses import replace

    from ..harness.symbolic import TARGETS, objective_for

    targets = {t.name: t for t in TARGETS}
    if variant == "related":
        return objective_for(replace(targets["nguyen9"], sample_seed=1))
    return objective_for(targets["nguyen12"])


def source_objective(problem: Problem, variant: str) -> Objective:
    """What the source study minimized, on the flat values the problem takes."""
    if problem.name == "svc_digits":
        return _svc_odd_rows
    if problem.name == "nguyen9":
        return _symbolic_source(variant)
    if variant == "related":
        return _moved(problem, lambda x, lo, hi: min(max(x - SHIFT * (hi - lo), lo), hi))
    return _moved(problem, lambda x, lo, hi: lo + hi - x)


def run_one(
    problem: Problem, variant: str, seed: int, source_algo: str = "auto", credibility: float | None = None
) -> dict[str, Any]:
    """One target study of :data:`BUDGET` evaluations, warm started unless ``variant``
    is "cold" (``credibility`` is the warm start's, for its region hints; None keeps
    ``Study.create``'s default)."""
    sources = []
    if variant != "cold":
        objective = source_objective(problem, variant)
        source = tf.Study.create(space=problem.treefarm_space(), algo=source_algo, seed=1000 + seed)
        source.optimize(lambda v: objective(problem.flat_value(v)), SOURCE_TRIALS)
        sources.append(source)
    given = {} if credibility is None else {"warm_start_credibility": credibility}
    study = tf.Study.create(space=problem.treefarm_space(), seed=seed, warm_start=sources, **given)
    study.optimize(lambda v: problem.objective(problem.flat_value(v)), BUDGET)
    best = np.minimum.accumulate([t.value if t.value is not None else math.inf for t in study.trials])
    regret = (best - (problem.optimum or 0.0)).tolist()
    return {
        "problem": problem.name,
        "variant": variant,
        "seed": seed,
        "source": source_algo,
        "credibility": credibility,
        "regret": regret,
    }


def _rows(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _cold_or(row: dict[str, Any], source_algo: str) -> bool:
    """Whether ``row`` belongs to the runs with sources of ``source_algo`` (cold runs belong to all)."""
    return row["variant"] == "cold" or row["source"] == source_algo


def run(
    seeds: int, problems: list[str], source_algo: str = "auto", out: Path = OUT, credibility: float | None = None
) -> None:
    """The missing runs, seed by seed, one JSON line each in ``out``."""
    done = {(r["problem"], r["variant"], r["seed"]) for r in _rows(out) if _cold_or(r, source_algo)}
    out.parent.mkdir(parents=True, exist_ok=True)
    for seed in range(seeds):
        for name in problems:
            for variant in VARIANTS[name]:
                if (name, variant, seed) not in done:
                    row = run_one(PROBLEMS[name], variant, seed, source_algo, credibility)
                    with out.open("a") as f:
                        f.write(json.dumps(row) + "\n")


def report(path: Path = OUT, source_algo: str = "auto") -> str:
    """Per problem and variant (sources made by ``source_algo``): seeds, median regret
    at 100, the first evaluation at which the median regret reaches the cold median at
    100 (within :data:`TOLERANCE`), and the two-sided Mann-Whitney p-value of the regrets at 100 against the cold
    runs' (is a difference beyond the seeds' noise?)."""
    from scipy.stats import mannwhitneyu

    rows = [r for r in _rows(path) if _cold_or(r, source_algo)]
    lines = [
        "| problem | variant | seeds | median regret at 100 | evaluations to the cold median at 100 | p against cold |",
        "|---|---|---|---|---|---|",
    ]
    for name in sorted({r["problem"] for r in rows}):
        curves = {
            v: np.array([r["regret"] for r in rows if (r["problem"], r["variant"]) == (name, v)])
            for v in VARIANTS[name]
        }
        if len(curves["cold"]) == 0:
            continue
        target = float(np.median(curves["cold"][:, -1]))
        for variant, curve in curves.items():
            if len(curve) == 0:
                continue
            median = np.median(curve, axis=0)
            bound = target * (1 + 1e-9) + TOLERANCE.get(name, 0.0)
            reached = next((i + 1 for i, m in enumerate(median) if m <= bound), None)
            p = "-" if variant == "cold" else f"{mannwhitneyu(curve[:, -1], curves['cold'][:, -1]).pvalue:.2f}"
            lines.append(f"| {name} | {variant} | {len(curve)} | {median[-1]:.4g} | {reached or '> 100'} | {p} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.suites.warm")
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--seeds", type=int, default=10)
    r.add_argument("--problems", nargs="+", default=list(PROBLEMS), choices=list(PROBLEMS))
    r.add_argument("--source", default="auto", help="the optimizer of the source studies")
    r.add_argument("--out", type=Path, default=OUT, help="the JSON lines file the rows are appended to")
    r.add_argument("--credibility", type=float, help="warm_start_credibility (region hints above 0; default: the study's)")
    p = sub.add_parser("report")
    p.add_argument("--source", default="auto", help="the optimizer of the source studies")
    p.add_argument("--out", type=Path, default=OUT, help="the JSON lines file to read")
    args = parser.parse_args()
    if args.command == "run":
        run(args.seeds, args.problems, args.source, args.out, args.credibility)
    else:
        print(report(args.out, source_algo=args.source))


if __name__ == "__main__":
    main()
