"""Several objectives and constraints: treefarm's optimizers beside Optuna's
multi-objective samplers, hypervolume against a fixed reference point.

Problems: ZDT1-3 (Zitzler, Deb & Thiele 2000; 10 variables), DTLZ2 (Deb,
Thiele, Laumanns & Zitzler 2002; 3 objectives, 6 variables), the constrained
BNH (Binh & Korn 1997) and TNK (Tanaka 1995), and one real tuning problem: a
decision tree on scikit-learn's breast-cancer data, 5-fold error against
log10 of its node count (accuracy against model size). Each run records the hypervolume of its
feasible front after 50, 100 and 200 evaluations, and whether its best
trials are feasible.

    python -m bench.suites.multi_objective run --seeds 10 --budget 200     # resumable, appends rows
    python -m bench.suites.multi_objective report                          # the tables, from the rows

Rows: ``bench/results/multi_objective.jsonl`` (one per problem, method, seed),
or the file given by ``--rows``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..harness.paths import RESULTS

ROWS = RESULTS / "multi_objective.jsonl"
CHECKPOINTS = (50, 100, 200)
#: A peer is the comparison's "best Optuna sampler" only with at least this many seeds.
MIN_SEEDS = 5


# ------------------------------------------------------------------ problems
def _zdt(kind: int) -> Callable[[np.ndarray], tuple[list[float], list[float]]]:
    def f(x: np.ndarray) -> tuple[list[float], list[float]]:
        g = 1 + 9 * x[1:].mean()
        f1 = x[0]
        if kind == 1:
            h = 1 - math.sqrt(f1 / g)
        elif kind == 2:
            h = 1 - (f1 / g) ** 2
        else:
            h = 1 - math.sqrt(f1 / g) - (f1 / g) * math.sin(10 * math.pi * f1)
        return [float(f1), float(g * h)], []

    return f


def _dtlz2(x: np.ndarray) -> tuple[list[float], list[float]]:
    g = float(((x[2:] - 0.5) ** 2).sum())
    a, b = x[0] * math.pi / 2, x[1] * math.pi / 2
    return [(1 + g) * math.cos(a) * math.cos(b), (1 + g) * math.cos(a) * math.sin(b), (1 + g) * math.sin(a)], []


def _bnh(x: np.ndarray) -> tuple[list[float], list[float]]:
    x1, x2 = 5 * x[0], 3 * x[1]
    f = [4 * x1**2 + 4 * x2**2, (x1 - 5) ** 2 + (x2 - 5) ** 2]
    c = [(x1 - 5) ** 2 + x2**2 - 25, 7.7 - (x1 - 8) ** 2 - (x2 + 3) ** 2]
    return f, c


def _tnk(x: np.ndarray) -> tuple[list[float], list[float]]:
    x1, x2 = 1e-9 + math.pi * x[0], 1e-9 + math.pi * x[1]
    c1 = -(x1**2) - x2**2 + 1 + 0.1 * math.cos(16 * math.atan(x1 / x2))
    c2 = (x1 - 0.5) ** 2 + (x2 - 0.5) ** 2 - 0.5
    return [x1, x2], [c1, c2]


def _zdt6(x: np.ndarray) -> tuple[list[float], list[float]]:
    f1 = 1 - math.exp(-4 * x[0]) * math.sin(6 * math.pi * x[0]) ** 6
    g = 1 + 9 * float(x[1:].mean()) ** 0.25
    return [float(f1), float(g * (1 - (f1 / g) ** 2))], []


def _srn(x: np.ndarray) -> tuple[list[float], list[float]]:
    x1, x2 = 40 * x[0] - 20, 40 * x[1] - 20
    f = [2 + (x1 - 2) ** 2 + (x2 - 1) ** 2, 9 * x1 - (x2 - 1) ** 2]
    return f, [x1**2 + x2**2 - 225, x1 - 3 * x2 + 10]


def _osy(x: np.ndarray) -> tuple[list[float], list[float]]:
    x1, x2, x3, x4, x5, x6 = 10 * x[0], 10 * x[1], 1 + 4 * x[2], 6 * x[3], 1 + 4 * x[4], 10 * x[5]
    f1 = -(25 * (x1 - 2) ** 2 + (x2 - 2) ** 2 + (x3 - 1) ** 2 + (x4 - 4) ** 2 + (x5 - 1) ** 2)
    f2 = x1**2 + x2**2 + x3**2 + x4**2 + x5**2 + x6**2
    c = [
        2 - x1 - x2,
        x1 + x2 - 6,
        x2 - x1 - 2,
        x1 - 3 * x2 - 2,
        (x3 - 3) ** 2 + x4 - 4,
        4 - (x5 - 3) ** 2 - x6,
    ]
    return [float(f1), float(f2)], [float(v) for v in c]


def _tree(params: dict[str, Any]) -> tuple[list[float], list[float]]:
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import cross_val_score
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_breast_cancer(return_X_y=True)
    model = DecisionTreeClassifier(
        max_depth=params["max_depth"],
        min_samples_leaf=params["min_samples_leaf"],
        max_features=params["max_features"],
        ccp_alpha=params["ccp_alpha"],
        criterion=params["criterion"],
        random_state=0,
    )
    error = 1 - float(cross_val_score(model, X, y, cv=5).mean())
    model.fit(X, y)
    return [error, math.log10(model.tree_.node_count)], []


CONSTRAINED = ("bnh", "tnk", "srn", "osy")

PROBLEMS: dict[str, dict[str, Any]] = {
    "zdt1": {"d": 10, "f": _zdt(1), "ref": [1.1, 7.0], "directions": 2},
    "zdt2": {"d": 10, "f": _zdt(2), "ref": [1.1, 7.0], "directions": 2},
    "zdt3": {"d": 10, "f": _zdt(3), "ref": [1.1, 7.0], "directions": 2},
    "dtlz2": {"d": 6, "f": _dtlz2, "ref": [2.2, 2.2, 2.2], "directions": 3},
    "bnh": {"d": 2, "f": _bnh, "ref": [140.0, 55.0], "directions": 2},
    "tnk": {"d": 2, "f": _tnk, "ref": [1.2, 1.2], "directions": 2},
    "tree": {"d": None, "f": _tree, "ref": [0.2, 3.0], "directions": 2},
    "zdt6": {"d": 10, "f": _zdt6, "ref": [1.1, 10.0], "directions": 2},
    "srn": {"d": 2, "f": _srn, "ref": [250.0, 50.0], "directions": 2},
    "osy": {"d": 6, "f": _osy, "ref": [0.0, 80.0], "directions": 2},
}

#: Problems no design choice was made on: the default for several objectives (``auto``
#: on the Pareto order) was chosen by a 3-seed screen on ZDT1 and BNH alone.
HELD_OUT = ("zdt2", "zdt3", "dtlz2", "tnk", "tree")

#: Added after ``auto`` was set to switch to expected hypervolume improvement on
#: two-objective numeric studies (a choice made on all the problems above): the
#: only problems that choice was judged on without having seen them.
HELD_OUT_LATER = ("zdt6", "srn", "osy")


def _space(problem: str) -> dict[str, Any]:
    import treefarm as tf

    if problem == "tree":
        return {
            "max_depth": tf.Int(1, 20),
            "min_samples_leaf": tf.Int(1, 50, log=True),
            "max_features": tf.Real(0.05, 1.0),
            "ccp_alpha": tf.Real(1e-5, 0.1, log=True),
            "criterion": tf.Choice("gini", "entropy"),
        }
    return {f"x{i}": tf.Real(0.0, 1.0) for i in range(PROBLEMS[problem]["d"])}


def _evaluate(problem: str, params: dict[str, Any]) -> tuple[list[float], list[float]]:
    spec = PROBLEMS[problem]
    if problem == "tree":
        return spec["f"](params)
    return spec["f"](np.array([params[f"x{i}"] for i in range(spec["d"])]))


# ------------------------------------------------------------------ methods
def _gp_ehvi(objectives: str = "ehvi") -> Any:
    """The GP with one model per objective and constraint (expected hypervolume improvement;
    ``"ehvi3"``: in closed form for three objectives too)."""
    from treefarm.optimizers.base import variant
    from treefarm.optimizers.gp import GP

    return variant(GP, {"ehvi_exact": 3 if objectives == "ehvi3" else 2}, objectives="ehvi")


def _tpe_rank() -> Any:
    """TPE with constraints only in the feasible-first order (no c-TPE ratios)."""
    from treefarm.optimizers.base import variant
    from treefarm.optimizers.tpe import TPE

    return variant(TPE, {"constraints": "rank"})


Run = Callable[[str, int, int], list[tuple[list[float], list[float]]]]


def _treefarm(algo: str | Callable[[], Any]) -> Run:
    def run(problem: str, seed: int, budget: int) -> list[tuple[list[float], list[float]]]:
        import treefarm as tf

        spec = PROBLEMS[problem]
        study = tf.Study.create(
            space=_space(problem), algo=algo if isinstance(algo, str) else algo(), seed=seed, directions=["minimize"] * spec["directions"]
        )
        out: list[tuple[list[float], list[float]]] = []

        def objective(params: dict[str, Any]) -> dict[str, Any]:
            f, c = _evaluate(problem, dict(params))
            out.append((f, c))
            return {"loss": f, "constraints": c} if c else {"loss": f}

        study.optimize(objective, budget)
        return out

    return run


def _optuna(sampler: str) -> Callable[[str, int, int], list[tuple[list[float], list[float]]]]:
    def run(problem: str, seed: int, budget: int) -> list[tuple[list[float], list[float]]]:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        spec = PROBLEMS[problem]
        constrained = problem in CONSTRAINED

        def constraints(trial: optuna.trial.FrozenTrial) -> list[float]:
            return list(trial.user_attrs["constraints"])

        kwargs: dict[str, Any] = {"seed": seed}
        if constrained and sampler != "random":
            kwargs["constraints_func"] = constraints
        make = {
            "nsga2": optuna.samplers.NSGAIISampler,
            "tpe": optuna.samplers.TPESampler,
            "gp": optuna.samplers.GPSampler,
            "random": optuna.samplers.RandomSampler,
        }[sampler]
        study = optuna.create_study(directions=["minimize"] * spec["directions"], sampler=make(**kwargs))
        out: list[tuple[list[float], list[float]]] = []

        def objective(trial: optuna.Trial) -> list[float]:
            if problem == "tree":
                params = {
                    "max_depth": trial.suggest_int("max_depth", 1, 20),
                    "min_samples_leaf": trial.suggest_int("min_samples_leaf", 1, 50, log=True),
                    "max_features": trial.suggest_float("max_features", 0.05, 1.0),
                    "ccp_alpha": trial.suggest_float("ccp_alpha", 1e-5, 0.1, log=True),
                    "criterion": trial.suggest_categorical("criterion", ["gini", "entropy"]),
                }
            else:
                params = {f"x{i}": trial.suggest_float(f"x{i}", 0.0, 1.0) for i in range(spec["d"])}
            f, c = _evaluate(problem, params)
            trial.set_user_attr("constraints", c)
            out.append((f, c))
            return f

        study.optimize(objective, n_trials=budget)
        return out

    return run


METHODS: dict[str, Callable[[str, int, int], list[tuple[list[float], list[float]]]]] = {
    "treefarm-auto": _treefarm("auto"),
    "treefarm-gp-ehvi": _treefarm(lambda: _gp_ehvi()),
    "treefarm-gp-ehvi3": _treefarm(lambda: _gp_ehvi("ehvi3")),
    "treefarm-tpe": _treefarm("tpe"),
    "treefarm-tpe-rank": _treefarm(lambda: _tpe_rank()),
    "treefarm-nsga2": _treefarm("nsga2"),
    "treefarm-random": _treefarm("random"),
    "optuna-nsga2": _optuna("nsga2"),
    "optuna-tpe": _optuna("tpe"),
    "optuna-gp": _optuna("gp"),
    "optuna-random": _optuna("random"),
}


# ------------------------------------------------------------------ measures
def front_hypervolume(evaluations: list[tuple[list[float], list[float]]], ref: list[float]) -> float:
    """The hypervolume of the feasible evaluations up to ``ref``."""
    from treefarm.pareto import hypervolume

    feasible = [f for f, c in evaluations if all(v <= 0 for v in c)]
    if not feasible:
        return 0.0
    return hypervolume(np.array(feasible, dtype=float), np.array(ref, dtype=float))


def row_of(problem: str, method: str, seed: int, budget: int) -> dict[str, Any]:
    started = time.perf_counter()
    evaluations = METHODS[method](problem, seed, budget)
    seconds = time.perf_counter() - started
    ref = PROBLEMS[problem]["ref"]
    any_feasible = any(all(v <= 0 for v in c) for _, c in evaluations)
    return {
        "problem": problem,
        "method": method,
        "seed": seed,
        "budget": budget,
        "hv": {str(k): front_hypervolume(evaluations[:k], ref) for k in CHECKPOINTS if k <= budget},
        "any_feasible": any_feasible,
        "seconds": round(seconds, 2),
    }


def _done() -> set[tuple[str, str, int, int]]:
    if not ROWS.exists():
        return set()
    keys = set()
    for line in ROWS.read_text().splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        keys.add((r["problem"], r["method"], r["seed"], r["budget"]))
    return keys


def run_all(problems: list[str], methods: list[str], seeds: int, budget: int) -> None:
    done = _done()
    ROWS.parent.mkdir(parents=True, exist_ok=True)
    for seed in range(seeds):
        for problem in problems:
            for method in methods:
                if (problem, method, seed, budget) in done:
                    continue
                row = row_of(problem, method, seed, budget)
                with ROWS.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                print(json.dumps(row), file=sys.stderr, flush=True)


# ------------------------------------------------------------------ report
def _interval(a: np.ndarray, b: np.ndarray, rng: np.random.Generator, n_boot: int = 2000) -> tuple[float, float]:
    """95% percentile-bootstrap interval of ``median(a) - median(b)``."""
    boot = np.median(rng.choice(a, (n_boot, len(a))), axis=1) - np.median(rng.choice(b, (n_boot, len(b))), axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return float(lo), float(hi)


def report(at: int = 100, ours: str = "treefarm-auto") -> str:
    rows = [json.loads(line) for line in ROWS.read_text().splitlines() if line.strip()]
    table: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        if str(at) in r["hv"]:
            table.setdefault((r["problem"], r["method"]), []).append(r["hv"][str(at)])
    methods = [m for m in METHODS if any(k[1] == m for k in table)]
    problems = [p for p in PROBLEMS if any(k[0] == p for k in table)]
    rng = np.random.default_rng(0)
    lines = [
        f"Median hypervolume at {at} evaluations (higher is better; seeds in brackets); "
        f"verdict of {ours} against the best Optuna sampler with at least {MIN_SEEDS} seeds "
        "(95% bootstrap interval of the difference of medians).",
        "",
        "| problem | " + " | ".join(methods) + " | best Optuna | verdict |",
        "|---|" + "---|" * (len(methods) + 2),
    ]
    wins = losses = 0
    for p in problems:
        cells = []
        for m in methods:
            v = table.get((p, m))
            cells.append(f"{np.median(v):.4g} ({len(v)})" if v else "")
        optuna = [
            m
            for m in methods
            if m.startswith("optuna-") and m != "optuna-random" and len(table.get((p, m), ())) >= MIN_SEEDS
        ]
        verdict = ""
        if optuna and (p, ours) in table:
            best = max(optuna, key=lambda m: np.median(table[(p, m)]))
            lo, hi = _interval(np.array(table[(p, ours)]), np.array(table[(p, best)]), rng)
            verdict = "better" if lo > 0 else "worse" if hi < 0 else "not resolved"
            wins += verdict == "better"
            losses += verdict == "worse"
            cells += [best]
        else:
            cells += [""]
        held = " (held out)" if p in HELD_OUT else " (held out, added later)" if p in HELD_OUT_LATER else ""
        lines.append(f"| {p}{held} | " + " | ".join(cells) + f" | {verdict} |")
    lines += ["", f"{ours}: better beyond noise on {wins}, worse on {losses} of {len(problems)} problems."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.suites.multi_objective")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("--problems", default=",".join(PROBLEMS))
    run.add_argument("--methods", default=",".join(METHODS))
    run.add_argument("--seeds", type=int, default=10)
    run.add_argument("--budget", type=int, default=200)
    run.add_argument("--rows", type=Path, default=None, help="the rows file (default: bench/results/multi_objective.jsonl)")
    rep = sub.add_parser("report")
    rep.add_argument("--at", type=int, default=100)
    rep.add_argument("--ours", default="treefarm-auto")
    rep.add_argument("--rows", type=Path, default=None, help="the rows file (default: bench/results/multi_objective.jsonl)")
    args = parser.parse_args(argv)
    if args.rows is not None:
        global ROWS
        ROWS = args.rows
    if args.command == "run":
        run_all(args.problems.split(","), args.methods.split(","), args.seeds, args.budget)
    else:
        print(report(args.at, args.ours))


if __name__ == "__main__":
    main()
