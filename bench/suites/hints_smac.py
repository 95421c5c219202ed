"""SMAC3's prior-guided BO (πBO) given the same hints as treefarm's GP, beside it.

SMAC3 2.4 (``BlackBoxFacade``: a GP with EI) weighs its acquisition by a
prior over the optimum (``PriorAcquisitionFunction``, decay_beta = n_trials
/ 10 as its documentation advises) read from the configuration space's
parameter distributions. The hint of :mod:`bench.suites.hints` becomes that
prior: each parameter a Normal centred at the hinted value with sd
``spread`` (0.1) times its range, as treefarm's window is. SMAC3 has no
credibility, so only the credibility-1 hints are run; and it starts from
its own initial design, as treefarm's GP does.

    python -m bench.suites.hints_smac --seeds 10 --problems hartmann6 branin   # appends to bench/results/hints.jsonl
    python -m bench.suites.hints_smac --seeds 10 --problems branin --variants none "good c=1"
    python -m bench.suites.hints_smac --compare branin    # SMAC3 beside treefarm's optimizers: the markdown table
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..harness.problems import Problem
from .hints import BUDGET, OUT, PROBLEMS, _done, _hint, read_runs

ALGO = "smac-pibo"
VARIANTS = {"none": None, "good c=1": "good", "misleading c=1": "misleading"}
SPREAD = 0.1


def _space(problem: Problem, hint: dict[str, Any] | None, seed: int) -> Any:
    from ConfigSpace import ConfigurationSpace, Float, Integer, Normal

    cs = ConfigurationSpace(seed=seed)
    for p in problem.params:
        kind = Integer if p.kind == "int" else Float
        bounds = (int(p.low), int(p.high)) if p.kind == "int" else (float(p.low), float(p.high))
        if hint is None:
            cs.add(kind(p.name, bounds))
        else:
            cs.add(kind(p.name, bounds, distribution=Normal(float(hint[p.name]), SPREAD * (p.high - p.low))))
    return cs


def run_one(problem: Problem, variant: str, seed: int) -> dict[str, Any]:
    from smac import BlackBoxFacade, Scenario
    from smac.acquisition.function import EI, PriorAcquisitionFunction

    kind = VARIANTS[variant]
    values: list[float] = []

    def train(config: Any, seed: int = 0) -> float:
        value = float(problem.objective({p.name: config[p.name] for p in problem.params}))
        values.append(value)
        return value

    with tempfile.TemporaryDirectory() as tmp:
        cs = _space(problem, None if kind is None else _hint(problem, kind), seed)
        scenario = Scenario(cs, deterministic=True, n_trials=BUDGET, seed=seed, output_directory=tmp)
        acquisition = EI() if kind is None else PriorAcquisitionFunction(EI(), decay_beta=BUDGET / 10)
        smac = BlackBoxFacade(scenario, train, acquisition_function=acquisition, overwrite=True, logging_level=40)
        smac.optimize()
    best = np.minimum.accumulate([v if math.isfinite(v) else math.inf for v in values[:BUDGET]])
    regret = (best - (problem.optimum or 0.0)).tolist()
    return {"problem": problem.name, "variant": variant, "seed": seed, "algo": ALGO, "regret": regret}


#: Evaluations at which the comparison gives the median regret.
CHECKPOINTS = (10, 20, 30, 50, 100)
#: The regret whose first median crossing the comparison reports.
THRESHOLD = 1e-3


def compare(
    problem: str, algos: tuple[str, ...] = (ALGO, "gp", "auto", "tpe"), paths: Sequence[Path] = (OUT,)
) -> str:
    """Median regret at :data:`CHECKPOINTS` and the first evaluation where the median
    regret is at most :data:`THRESHOLD`, per optimizer and variant of ``problem`` that SMAC3 ran
    (an absolute threshold: SMAC3 and treefarm reach different floors, so a target
    relative to each one's own no-hint median would compare different things). A run
    (problem, algo, variant, seed) in several of ``paths`` counts once, from the last."""
    rows = read_runs(paths)
    ran = {r["variant"] for r in rows if (r["problem"], r["algo"]) == (problem, ALGO)}
    head = " | ".join(f"at {c}" for c in CHECKPOINTS)
    lines = [
        f"| algo | variant | seeds | {head} | evaluations to {THRESHOLD:g} |",
        "|---|---|---|" + "---|" * (len(CHECKPOINTS) + 1),
    ]
    for algo in algos:
        for variant in [v for v in VARIANTS if v in ran]:
            curves = [r["regret"] for r in rows if (r["problem"], r["algo"], r["variant"]) == (problem, algo, variant)]
            if not curves:
                continue
            median = np.median(np.array([c[:BUDGET] for c in curves]), axis=0)
            cells = " | ".join(f"{median[c - 1]:.2g}" for c in CHECKPOINTS)
            reached = next((i + 1 for i, m in enumerate(median) if m <= THRESHOLD), None)
            lines.append(f"| {algo} | {variant} | {len(curves)} | {cells} | {reached or f'> {BUDGET}'} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.suites.hints_smac")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--problems", nargs="+", default=["hartmann6", "branin"])
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--shard", default="0/1", help="i/k: every k-th run from the i-th on")
    parser.add_argument("--compare", metavar="PROBLEM", help="print the comparison on PROBLEM instead of running")
    parser.add_argument("--also", type=Path, nargs="*", default=[],
                        help="with --compare: more rows (later files win), e.g. a rerun of treefarm's")
    args = parser.parse_args()
    if args.compare:
        print(compare(args.compare, paths=(OUT, *args.also)))
        return
    i, k = (int(part) for part in args.shard.split("/"))
    jobs = [(name, v, seed) for seed in range(args.seeds) for name in args.problems for v in args.variants]
    for name, variant, seed in jobs[i::k]:
        if (name, variant, seed, ALGO) not in _done(OUT):
            row = run_one(PROBLEMS[name], variant, seed)
            with OUT.open("a") as f:
                f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
