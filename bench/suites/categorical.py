"""Spaces of choices only: ordinal grids given as choices, and a combinatorial problem.

Problems (losses to minimize, 100 evaluations):

- ``pest25``: pest control (Oh, Tomczak, Gavves & Welling 2019, "Combinatorial Bayesian
  optimization using the graph Cartesian product"): 25 stages, at each one of four pesticides
  or none (five-way choices); the cost paid plus the fraction of 100 simulated fields above
  the pest threshold summed over stages, the simulation's draws fixed (seed 0), so the
  objective is deterministic.
- ``hartmann6_grid``: Hartmann-6 with every coordinate a choice among nine levels
  ``0, 1/8, ..., 1`` (an ordinal grid as a user would write it).
- ``styblinski5_grid``: Styblinski-Tang in 5-d with every coordinate a choice among
  ``-5, -3.75, ..., 5`` (nine levels; the optimum -2.9035 lies between two).
- ``pest15``: pest control with 15 stages.

Held out (:data:`HELD_OUT`, marked before any run, never used to choose; run once after a
choice and reported apart, :mod:`.choice_problems`):

- ``contamination25``: contamination control, 25 binary choices (Baptista & Poloczek 2018);
- ``bbob_f15_d5_grid``: BBOB's rotated Rastrigin in 5-d, instance 1, every coordinate a choice
  among ``-5, -3.75, ..., 5``.
- ``labs40`` (added with the Hamming neighbours' screen, before any method ran on it): low
  autocorrelation binary sequences of length 40, minus the merit factor;
- ``maxcut30`` (the same): the maximum cut of a fixed random weighted graph on 30 nodes, minus
  the fraction of the weight cut.
- ``ising24`` (added with the screen of longer scales for two-option choices, before any method
  ran on it): Ising sparsification on a 4 x 4 grid, 24 binary choices (Baptista & Poloczek 2018);
- ``featsel30`` (the same): feature selection for a logistic regression on scikit-learn's
  breast-cancer data, 30 binary choices, the cross-validated log loss plus a cost per feature.
- ``maxsat32``, ``knapsack30``, ``ising22`` (added with the rule for spaces of two-option
  choices, before any method ran on them): weighted MAX-SAT on 32 variables, a 0-1 knapsack of
  30 items with an overweight penalty, Ising sparsification of another model on a 3 x 5 grid.

Methods: ``treefarm-auto``, ``treefarm-gp``, ``treefarm-tpe``, ``treefarm-random``,
``optuna-tpe``, ``optuna-gp``, and the harness's ``nevergrad-ngopt`` and ``ax``
(:mod:`bench.harness.nevergrad_ax`; every coordinate an unordered choice for each of them).
The ``treefarm-gp`` and ``treefarm-tpe`` rows are a screen of a few seeds: whether ``auto``
should leave spaces of choices to the GP alone rather than give TPE its turns; it should not
(``docs/design/auto.md``). The suite of the report (:data:`SUITES`, ``choices``) sets ``auto``
against the peers at 10 seeds; its measure is the regret against the grid's optimum
(:func:`grid_optimum`), pest control's best loss as it is.

    python -m bench.suites.categorical run --seeds 10
    python -m bench.suites.categorical report

Rows: ``bench/results/categorical.jsonl`` (the best loss after 25, 50 and 100 evaluations).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..harness.paths import RESULTS
from ..harness.problems import Param, Problem
from ..harness.runner import head_commit
from ..harness.spread import spread_notes
from ..harness.suite import Finals, Suite
from .choice_problems import (
    bbob_grid,
    contamination,
    feature_selection,
    grid_minimum,
    ising,
    ising_small,
    knapsack,
    labs,
    maxcut,
    maxsat,
)

ROWS = RESULTS / "categorical.jsonl"
CHECKPOINTS = (25, 50, 100)
LEVELS = np.linspace(0.0, 1.0, 9)


def pest_control(x: np.ndarray) -> float:
    """The pest control cost of a plan ``x`` (one of 0-4 per stage; 0 is no control)."""
    n_stages, n_fields, threshold = len(x), 100, 0.1
    discount = {1: 0.2, 2: 0.3, 3: 0.3, 4: 0.0}
    tolerance = {1: 1.0 / 7.0, 2: 2.5 / 7.0, 3: 2.0 / 7.0, 4: 0.5 / 7.0}
    price = {1: 1.0, 2: 0.8, 3: 0.7, 4: 0.5}
    control_beta = {1: 2.0 / 7.0, 2: 3.0 / 7.0, 3: 3.0 / 7.0, 4: 5.0 / 7.0}
    paid, above = 0.0, 0.0
    fraction = np.random.RandomState(0).beta(1.0, 30.0, size=n_fields)
    for stage in range(n_stages):
        spread = np.random.RandomState(0).beta(1.0, 17.0 / 3.0, size=n_fields)
        kind = int(x[stage])
        if kind > 0:
            rate = np.random.RandomState(0).beta(1.0, control_beta[kind], size=n_fields)
            following = (1.0 - rate) * fraction
            control_beta[kind] += tolerance[kind] / n_stages
            paid += price[kind] * (1.0 - discount[kind] / n_stages * float(np.sum(x == kind)))
        else:
            following = spread * (1.0 - fraction) + fraction
        above += float(np.mean(fraction > threshold))
        fraction = following
    return paid + above


HARTMANN_ALPHA = np.array([1.0, 1.2, 3.0, 3.2])
HARTMANN_A = np.array(
    [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]]
)
HARTMANN_P = 1e-4 * np.array(
    [
        [1312, 1696, 5569, 124, 8283, 5886],
        [2329, 4135, 8307, 3736, 1004, 9991],
        [2348, 1451, 3522, 2883, 3047, 6650],
        [4047, 8828, 8732, 5743, 1091, 381],
    ]
)


def hartmann6(x: np.ndarray) -> float:
    return float(hartmann6_rows(x[None, :])[0])


def hartmann6_rows(x: np.ndarray) -> np.ndarray:
    """Hartmann-6 of each row of ``x`` (n, 6)."""
    inner = (HARTMANN_A[None] * (x[:, None, :] - HARTMANN_P[None]) ** 2).sum(axis=2)
    return np.asarray(-(HARTMANN_ALPHA[None] * np.exp(-inner)).sum(axis=1))


def styblinski(x: np.ndarray) -> float:
    return float(0.5 * np.sum(x**4 - 16 * x**2 + 5 * x))


PROBLEMS: dict[str, tuple[int, list[float], Callable[[np.ndarray], float]]] = {
    "pest25": (25, [0, 1, 2, 3, 4], pest_control),
    "hartmann6_grid": (6, [float(v) for v in LEVELS], hartmann6),
    "styblinski5_grid": (5, [float(v) for v in -5.0 + 10.0 * LEVELS], styblinski),
    "pest15": (15, [0, 1, 2, 3, 4], pest_control),
    "contamination25": (25, [0, 1], contamination),
    "bbob_f15_d5_grid": (5, [float(v) for v in -5.0 + 10.0 * LEVELS], bbob_grid(15, 5)),
    "labs40": (40, [0, 1], labs),
    "maxcut30": (30, [0, 1], maxcut),
    "ising24": (24, [0, 1], ising),
    "featsel30": (30, [0, 1], feature_selection),
    "maxsat32": (32, [0, 1], maxsat),
    "knapsack30": (30, [0, 1], knapsack),
    "ising22": (22, [0, 1], ising_small),
}
#: The held-out part: never used to choose a model or a setting; run once, after the choice,
#: and reported apart (a third of the problems, marked before any of them was run).
HELD_OUT = (
    "contamination25", "bbob_f15_d5_grid", "labs40", "maxcut30", "ising24", "featsel30", "maxsat32", "knapsack30",
    "ising22",
)
#: The design part: where models and settings are screened and chosen.
DESIGN = tuple(p for p in PROBLEMS if p not in HELD_OUT)


@functools.cache
def grid_optimum(problem: str) -> float:
    """The least loss on a grid problem's grid (Styblinski-Tang is a sum over coordinates; Hartmann-6
    and the BBOB grid are evaluated on all their points); 0 for pest and contamination control,
    whose optima are not known."""
    d, options, _ = PROBLEMS[problem]
    levels = np.array(options, dtype=float)
    if problem == "styblinski5_grid":
        return float(d * np.min(0.5 * (levels**4 - 16 * levels**2 + 5 * levels)))
    if problem == "hartmann6_grid":
        grid = np.stack(np.meshgrid(*[levels] * d, indexing="ij"), axis=-1).reshape(-1, d)
        return float(min(hartmann6_rows(chunk).min() for chunk in np.array_split(grid, 64)))
    if problem.startswith("bbob_"):
        return grid_minimum(PROBLEMS[problem][2], levels, d)
    return 0.0


def _treefarm(algo: str | Callable[[], Any]) -> Callable[[str, int, int], list[float]]:
    """A treefarm run by ``algo``'s name, or by a fresh optimizer from ``algo()`` (a screen's variant)."""
    def run(problem: str, seed: int, budget: int) -> list[float]:
        import treefarm as tf

        d, options, f = PROBLEMS[problem]
        space = {f"x{i:02d}": tf.Choice(*options) for i in range(d)}
        study = tf.Study.create(space=space, algo=algo if isinstance(algo, str) else algo(), seed=seed)
        study.optimize(lambda c: f(np.array([c[f"x{i:02d}"] for i in range(d)])), budget, progress=False)
        return [float(t.value) for t in study.trials if t.value is not None]

    return run


def _optuna(sampler: str) -> Callable[[str, int, int], list[float]]:
    def run(problem: str, seed: int, budget: int) -> list[float]:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        d, options, f = PROBLEMS[problem]
        make = {"tpe": optuna.samplers.TPESampler, "gp": optuna.samplers.GPSampler}[sampler]
        study = optuna.create_study(sampler=make(seed=seed))
        study.optimize(
            lambda t: f(np.array([t.suggest_categorical(f"x{i:02d}", options) for i in range(d)])), n_trials=budget
        )
        return [float(t.value) for t in study.trials if t.value is not None]

    return run


def problem_of(name: str) -> Problem:
    """The problem as the harness states it: every coordinate a choice among its options."""
    d, options, f = PROBLEMS[name]
    params = tuple(Param(f"x{i:02d}", "cat", choices=tuple(options)) for i in range(d))
    return Problem(name, lambda c: f(np.array([c[f"x{i:02d}"] for i in range(d)], dtype=float)), params)


def _harness(method: str) -> Callable[[str, int, int], list[float]]:
    """A method of :mod:`bench.harness.methods` (the peers in their own interpreters)."""
    def run(problem: str, seed: int, budget: int) -> list[float]:
        from ..harness.methods import run as run_method

        return [float(v) for v in run_method(method, problem_of(problem), seed, budget)["losses"]]

    return run


METHODS: dict[str, Callable[[str, int, int], list[float]]] = {
    "nevergrad-ngopt": _harness("nevergrad-ngopt"),
    "ax": _harness("ax"),
    "treefarm-auto": _treefarm("auto"),
    "treefarm-gp": _treefarm("gp"),
    "treefarm-tpe": _treefarm("tpe"),
    "treefarm-random": _treefarm("random"),
    "optuna-tpe": _optuna("tpe"),
    "optuna-gp": _optuna("gp"),
}


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def run_all(problems: list[str], methods: list[str], seeds: range, budget: int, path: Path, label: str | None) -> None:
    """The missing (problem, method, seed) rows; ``label`` renames the method in the rows
    (a build of treefarm other than this one, run with its own ``PYTHONPATH``)."""
    done = {(r["problem"], r["method"], r["seed"]) for r in _rows(path)}
    for seed in seeds:
        for problem in problems:
            for method in methods:
                name = label or method
                if (problem, name, seed) in done:
                    continue
                losses = METHODS[method](problem, seed, budget)
                best = np.minimum.accumulate(losses)
                row = {"problem": problem, "method": name, "seed": seed,
                       "best": {str(k): float(best[k - 1]) for k in CHECKPOINTS if k <= len(best)}, "commit": head_commit()}
                with path.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                print(json.dumps(row), file=sys.stderr, flush=True)


def report(paths: list[Path], at: int = 100, ours: str = "treefarm-auto", methods: list[str] | None = None) -> str:
    """Median best loss at ``at`` evaluations per problem and method (seeds in brackets) over the
    rows of ``paths``, the design part first, then the held-out part; ``ours`` against each other
    method: a 95 % bootstrap interval of the difference of medians; and each method's spread
    (interquartile range / worst decile, the 90th percentile: :mod:`bench.harness.spread`)."""
    from ..harness.spread import quantiles

    unique = {(r["problem"], r["method"], r["seed"]): r for path in paths for r in _rows(path)}
    rows = list(unique.values())
    methods = methods or sorted({r["method"] for r in rows})
    lines = [f"| problem | {' | '.join(methods)} |", "|---|" + "---|" * len(methods)]
    spread = list(lines)
    verdicts: list[str] = []
    rng = np.random.default_rng(0)
    for problem in (p for p in (*DESIGN, *HELD_OUT) if any(r["problem"] == p for r in rows)):
        values = {m: np.array([r["best"][str(at)] for r in rows if r["problem"] == problem and r["method"] == m]) for m in methods}
        part = " (held out)" if problem in HELD_OUT else ""
        cells = [f"{np.median(values[m]):.4g} ({len(values[m])})" if len(values[m]) else "" for m in methods]
        lines.append(f"| {problem}{part} | {' | '.join(cells)} |")
        cells = ["{:.3g} / {:.4g}".format(*quantiles(values[m])) if len(values[m]) else "" for m in methods]
        spread.append(f"| {problem}{part} | {' | '.join(cells)} |")
        a = values.get(ours, np.array([]))
        for m in methods:
            b = values[m]
            if m == ours or not len(a) or not len(b):
                continue
            boot = np.median(rng.choice(a, (2000, len(a))), axis=1) - np.median(rng.choice(b, (2000, len(b))), axis=1)
            lo, hi = np.percentile(boot, [2.5, 97.5])
            verdict = "lower" if hi < 0 else "higher" if lo > 0 else "not resolved"
            verdicts.append(f"{problem}: {ours} against {m}: {verdict} (difference of medians in [{lo:.4g}, {hi:.4g}])")
    return "\n".join([*lines, "", "Interquartile range / worst decile:", "", *spread, "", *verdicts])


#: Row methods -> the report's columns.
COLUMNS = {"treefarm-auto": "auto", "optuna-gp": "optuna-gp", "optuna-tpe": "optuna-tpe",
           "nevergrad-ngopt": "ngopt", "ax": "ax", "treefarm-random": "random"}


def finals(path: Path = ROWS, at: int = 100) -> Finals:
    """Each (problem, column)'s regret after ``at`` evaluations per seed."""
    out: Finals = {}
    for r in _rows(path):
        if r["method"] in COLUMNS and str(at) in r["best"]:
            regret = r["best"][str(at)] - grid_optimum(r["problem"])
            out.setdefault((r["problem"], COLUMNS[r["method"]]), {})[int(r["seed"])] = regret
    return out


SUITES = (
    Suite(
        "choices", "Spaces of choices only",
        "Pest control (25 five-way choices; Oh et al. 2019), Hartmann-6 and Styblinski-Tang-5 with every "
        "coordinate a choice among nine levels, as a user writes an ordinal grid; every method reads a "
        "choice as unordered. Ax (its `Client`'s default: Sobol, then BoTorch's GP with qLogNEI) has no "
        "rows yet: its first pest-control run had not finished after 90 minutes (5.5 CPU minutes) on the "
        "shared machine.",
        "best loss after 100 evaluations minus the grid's optimum (pest control: the best loss)", "auto",
        tuple(COLUMNS.values()), ("categorical.jsonl",),
        (f"python -m bench.suites.categorical run --methods {','.join(COLUMNS)} --seeds 10",),
        finals, notes=spread_notes("auto", tuple(COLUMNS.values()))),
)


def main_with(variants: dict[str, Callable[[], Any]], argv: list[str] | None = None) -> None:
    """:func:`main` with a screen's ``variants`` (a method's name -> a fresh optimizer) among the methods."""
    for name, make in variants.items():
        METHODS[name] = _treefarm(make)
    main(argv)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.suites.categorical")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("--problems", default=",".join(PROBLEMS))
    run.add_argument("--methods", default="treefarm-auto,treefarm-tpe,treefarm-random,optuna-tpe")
    run.add_argument("--seeds", type=int, default=10)
    run.add_argument("--first-seed", type=int, default=0, help="seeds first-seed .. first-seed + seeds - 1")
    run.add_argument("--budget", type=int, default=100)
    run.add_argument("--label", default=None, help="the name the rows give the (single) method")
    run.add_argument("--rows", type=Path, default=ROWS)
    rep = sub.add_parser("report")
    rep.add_argument("--rows", default=str(ROWS), help="comma-separated JSON-lines files")
    rep.add_argument("--at", type=int, default=100)
    rep.add_argument("--ours", default="treefarm-auto")
    rep.add_argument("--methods", default=None, help="comma-separated columns (default: every method in the rows)")
    args = parser.parse_args(argv)
    if args.command == "run":
        seeds = range(args.first_seed, args.first_seed + args.seeds)
        run_all(args.problems.split(","), args.methods.split(","), seeds, args.budget, args.rows, args.label)
    else:
        methods = args.methods.split(",") if args.methods else None
        print(report([Path(p) for p in args.rows.split(",")], args.at, args.ours, methods))


if __name__ == "__main__":
    main()
