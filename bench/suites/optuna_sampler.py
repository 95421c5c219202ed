"""treefarm's GP through Optuna (``TreefarmSampler``) against treefarm's GP run by treefarm.

The same optimizer reached by two routes, on the synthetic set: a treefarm
study (``Study.ask``/``tell``), and an Optuna study whose sampler is
``TreefarmSampler("gp")`` (define-by-run ``suggest_*``). The claim checked:
the final median regret is the same within the seeds' noise (the 95%
bootstrap interval of the difference of medians contains 0), and the Optuna
route costs at most 20 % more optimizer time per suggestion (CPU seconds of
``ask`` plus the ``suggest_*`` calls, objective excluded, summed over a run
and divided by the budget; the ratio of the medians over seeds).

    nice -n 10 python -m bench.suites.optuna_sampler --seeds 10 --budget 60

Rows go to ``bench/results/optuna_sampler.jsonl`` with the commit that made
them (resumable: a route, problem and seed already there from this commit
is not rerun); ``--report`` prints the table from the rows alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
from typing import Any

import numpy as np

from ..harness.methods import Stopwatch, _optuna_params, run_treefarm
from ..harness.paths import RESULTS
from ..harness.problems import SYNTHETIC, Problem
from ..harness.report import median_difference_interval
from ..harness.runner import head_commit

OUT = RESULTS / "optuna_sampler.jsonl"
ROUTES = ("treefarm", "optuna")


def run_through_optuna(problem: Problem, seed: int, budget: int) -> dict[str, Any]:
    """One Optuna study with ``TreefarmSampler("gp", seed=seed)`` on ``problem``."""
    import optuna

    from treefarm.integration.optuna import TreefarmSampler

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=TreefarmSampler("gp", seed=seed))
    losses, clock = [], Stopwatch()
    for _ in range(budget):
        clock.start()
        trial = study.ask()
        values = _optuna_params(problem, trial)
        clock.lap()
        value = problem.objective(values)
        study.tell(trial, value)
        losses.append(value)
    return clock.result(losses, optuna.__version__)


def run_one(route: str, problem: Problem, seed: int, budget: int) -> dict[str, Any]:
    result = (
        run_treefarm("gp", problem, seed, budget)
        if route == "treefarm"
        else run_through_optuna(problem, seed, budget)
    )
    assert problem.optimum is not None
    return {
        "route": route,
        "problem": problem.name,
        "seed": seed,
        "budget": budget,
        "regret": min(result["losses"]) - problem.optimum,
        "cpu_per_suggestion": sum(result["suggest_cpu"]) / budget,
        "wall_per_suggestion": sum(result["suggest_times"]) / budget,
    }


def _rows(commit: str | None = None) -> list[dict[str, Any]]:
    if not OUT.exists():
        return []
    rows = [json.loads(line) for line in OUT.read_text().splitlines() if line.strip()]
    return [r for r in rows if commit is None or r["commit"] == commit]


def report(rows: list[dict[str, Any]]) -> str:
    """Per problem: median regret of both routes, the bootstrap interval of
    their difference, and the median CPU per suggestion of each route."""
    rng = np.random.default_rng(0)
    lines = [
        "| problem | regret treefarm | regret Optuna route | difference (95% interval) "
        "| CPU ms/suggestion treefarm | Optuna route | ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    cpu = {route: [] for route in ROUTES}  # type: dict[str, list[float]]
    for name in SYNTHETIC:
        by = {route: [r for r in rows if r["problem"] == name and r["route"] == route] for route in ROUTES}
        if not all(by.values()):
            continue
        regret = {route: np.array([r["regret"] for r in by[route]]) for route in ROUTES}
        t = {route: statistics.median(r["cpu_per_suggestion"] for r in by[route]) for route in ROUTES}
        for route in ROUTES:
            cpu[route] += [r["cpu_per_suggestion"] for r in by[route]]
        lo, hi = median_difference_interval(regret["optuna"], regret["treefarm"], rng)
        lines.append(
            f"| {name} | {np.median(regret['treefarm']):.4g} | {np.median(regret['optuna']):.4g} "
            f"| [{lo:.3g}, {hi:.3g}] | {1e3 * t['treefarm']:.1f} | {1e3 * t['optuna']:.1f} "
            f"| {t['optuna'] / t['treefarm']:.2f} |"
        )
    if all(cpu.values()):
        ratio = statistics.median(cpu["optuna"]) / statistics.median(cpu["treefarm"])
        lines.append(
            f"\nmedian CPU per suggestion over every run: ratio Optuna route / treefarm = {ratio:.2f}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--budget", type=int, default=60)
    parser.add_argument("--problems", nargs="*", default=list(SYNTHETIC))
    parser.add_argument("--report", action="store_true", help="print the table from the rows and stop")
    args = parser.parse_args()
    commit = head_commit()
    if not args.report:
        done = {(r["route"], r["problem"], r["seed"]) for r in _rows(commit) if r["budget"] == args.budget}
        OUT.parent.mkdir(exist_ok=True)
        for seed in range(args.seeds):
            for name in args.problems:
                for route in ROUTES:
                    if (route, name, seed) in done:
                        continue
                    row = {**run_one(route, SYNTHETIC[name], seed, args.budget), "commit": commit}
                    with OUT.open("a") as f:
                        f.write(json.dumps(row) + "\n")
                    print(json.dumps(row), flush=True)
    print(report([r for r in _rows(None if args.report else commit) if r["budget"] == args.budget]))


if __name__ == "__main__":
    main()
