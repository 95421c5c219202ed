"""Search hints measured: a good hint (a region containing the optimum) and a
misleading one (a region far from it) at several credibilities, beside no hint.

For each problem the good hint is the known optimum moved by 5 % of each
range (a person's good guess, not the answer), the misleading one the point
of the box farthest from the optimum. Hints use the default spread (0.1).
Reported per problem and variant: the median over seeds of the regret at the
budget, and the first evaluation at which the median regret reaches the
no-hint median at the budget (how much sooner a hint gets there).

Beside the synthetic functions: a tuning problem (``svc_digits``, the CV error
of an SVC; its good hint is the region of the best errors, RBF kernel with
C = 30 and gamma = 0.15, its misleading one the corner C = 1e-3, gamma =
1e-4 where the error is 0.80) and three grammar ones: ``nguyen9``, sin(x) +
sin(y^2), whose good hint is the sub-expression ``add(sin(x0), ...)``;
``nguyen10``, 2 sin(x) cos(y), good hint ``mul(sin(x0), ...)``; ``nguyen5``,
sin(x^2) cos(x) - 1, good hint ``sub(mul(sin(mul(...)), ...), ...)``; the
misleading one is ``exp(exp(...))`` for all three. Their "regret" is the
loss itself (the CV error; the log1p MSE, 0 at the exact formula).

``--algo`` takes an optimizer name, or one of :data:`DESIGNS` (the GP's
ways of honouring a hint, measured against each other).

    python -m bench.suites.hints run --seeds 10            # appends to bench/results/hints.jsonl (resumable)
    python -m bench.suites.hints run --algo gp --shard 0/2 # half of the runs (start 1/2 beside it)
    python -m bench.suites.hints report                    # the markdown table
    python -m bench.suites.hints sure --out bench/results/hints_c1.jsonl  # credibility 1: seeds reaching the hint
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import treefarm as tf
from treefarm.optimizers.base import variant as tuned_variant

from ..harness.paths import RESULTS
from ..harness.problems import SYMBOLIC, SYNTHETIC, TUNING, Problem
from ..harness.spread import spread_notes
from ..harness.suite import Finals, Suite, lines

OUT = RESULTS / "hints.jsonl"
BUDGET = 100
#: Known minimizers of the synthetic functions (Surjanovic & Bingham's library).
OPTIMA: dict[str, list[float]] = {
    "branin": [math.pi, 2.275],
    "hartmann6": [0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573],
    "rosenbrock4": [1.0, 1.0, 1.0, 1.0],
    "styblinski8": [-2.903534] * 4 + [-3.0] * 4,
}
PROBLEMS: dict[str, Problem] = {
    **SYNTHETIC,
    "svc_digits": TUNING["svc_digits"],
    **{name: SYMBOLIC[name] for name in ("nguyen9", "nguyen10", "nguyen5")},
}
#: The misleading hint of the grammar problems: exp(exp(...)) at the root.
_EXP_EXP = {"E": "exp", "E.exp.0": "exp"}
#: Hints of the problems whose optimum is not a point of a box: (good, misleading).
HINTS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "svc_digits": (
        {"kernel": "rbf", "C": 30.0, "kernel.rbf.gamma": 0.15},
        {"kernel": "rbf", "C": 1e-3, "kernel.rbf.gamma": 1e-4},
    ),
    "nguyen9": ({"E": "add", "E.add.0": "sin", "E.add.0.sin.0": "x0"}, _EXP_EXP),
    "nguyen10": ({"E": "mul", "E.mul.0": "sin", "E.mul.0.sin.0": "x0"}, _EXP_EXP),
    "nguyen5": ({"E": "sub", "E.sub.0": "mul", "E.sub.0.mul.0": "sin", "E.sub.0.mul.0.sin.0": "mul"}, _EXP_EXP),
}
#: The GP's ways of honouring hints, as its tuned settings: window draws only, πBO only (judged
#: or plain credibility), both without the GP's stall rule.
DESIGNS: dict[str, dict[str, Any]] = {
    "gp:draws": {"hint_prior": "off"},
    "gp:pibo": {"hint_draws": False},
    "gp:plain-pibo": {"hint_draws": False, "hint_prior": "plain"},
    "gp:no-stall": {"explore_stalls": False},
}
VARIANTS: dict[str, tuple[str, float] | None] = {
    "none": None,
    "good c=1": ("good", 1.0),
    "good c=0.5": ("good", 0.5),
    "misleading c=0.2": ("misleading", 0.2),
    "misleading c=1": ("misleading", 1.0),
}
#: Variants whose hint is withdrawn after a number of evaluations: is a run that
#: stays where a misleading hint led it still held by the hint, or by its own trials?
WITHDRAWN: dict[str, tuple[str, float, int]] = {
    "misleading c=1, withdrawn at 20": ("misleading", 1.0, 20),
    "misleading c=1, withdrawn at 50": ("misleading", 1.0, 50),
}


def _hint(problem: Problem, kind: str) -> dict[str, Any]:
    if problem.name in HINTS:
        return HINTS[problem.name][0 if kind == "good" else 1]
    out: dict[str, Any] = {}
    for p, x in zip(problem.params, OPTIMA[problem.name]):
        width = p.high - p.low
        value = x + 0.05 * width if kind == "good" else (p.low if x - p.low > p.high - x else p.high)
        value = min(max(value, p.low), p.high)
        out[p.name] = round(value) if p.kind == "int" else float(value)
    return out


def run_one(problem: Problem, variant: str, seed: int, algo: str, budget: int = BUDGET) -> dict[str, Any]:
    optimizer: Any = tuned_variant(tf.GP, DESIGNS[algo]) if algo in DESIGNS else algo
    study = tf.Study.create(space=problem.treefarm_space(), algo=optimizer, seed=seed)
    spec = VARIANTS[variant] if variant in VARIANTS else WITHDRAWN[variant]
    hint_id = None if spec is None else study.hint(_hint(problem, spec[0]), credibility=spec[1])
    if hint_id is not None and variant in WITHDRAWN:
        study.optimize(lambda v: problem.objective(problem.flat_value(v)), WITHDRAWN[variant][2])
        study.remove_hint(hint_id)
    study.optimize(lambda v: problem.objective(problem.flat_value(v)), budget)
    values = [t.value for t in study.trials]
    best = np.minimum.accumulate([v if v is not None else math.inf for v in values])
    regret = (best - (problem.optimum or 0.0)).tolist()
    return {"problem": problem.name, "variant": variant, "seed": seed, "algo": algo, "regret": regret}


def _done(path: Path) -> set[tuple[str, str, int, str]]:
    if not path.exists():
        return set()
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {(r["problem"], r["variant"], r["seed"], r["algo"]) for r in rows}


def run(
    seeds: int,
    algo: str,
    problems: list[str],
    variants: list[str],
    shard: tuple[int, int] = (0, 1),
    *,
    budget: int = BUDGET,
    out: Path = OUT,
) -> None:
    """The missing runs (every ``shard[1]``-th from ``shard[0]`` on), one JSON line each in ``out``."""
    done = _done(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    jobs = [(name, variant, seed) for name in problems for variant in variants for seed in range(seeds)]
    for name, variant, seed in jobs[shard[0] :: shard[1]]:
        if (name, variant, seed, algo) not in done:
            row = run_one(PROBLEMS[name], variant, seed, algo, budget)
            with out.open("a") as f:
                f.write(json.dumps(row) + "\n")


def _curves(rows: list[dict[str, Any]], name: str, algo: str, variant: str) -> np.ndarray:
    """The regret curves (seeds, evaluations) of one problem, optimizer and variant, cut to the shortest."""
    curves = [r["regret"] for r in rows if (r["problem"], r["algo"], r["variant"]) == (name, algo, variant)]
    length = min((len(c) for c in curves), default=0)
    return np.array([c[:length] for c in curves])


def read_runs(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """The rows of all ``paths``, one per run (problem, variant, seed, algo): a
    later file's row replaces an earlier one's."""
    by_run: dict[tuple[str, str, int, str], dict[str, Any]] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                by_run[row["problem"], row["variant"], row["seed"], row["algo"]] = row
    return list(by_run.values())


def report(paths: Sequence[Path] = (OUT,)) -> str:
    """Per problem, optimizer and variant: median regret at 100 evaluations (and at
    the runs' end when they ran longer), its ratio to no hint's at 100, and the first
    evaluation where the median regret reaches no hint's median at 100. A design of
    :data:`DESIGNS` without no-hint rows of its own is compared with the GP's. The rows
    of all ``paths`` are read together, a later file's row replacing an earlier one's
    of the same run (runs to 200 evaluations beside the no-hint runs to 100: a seeded
    run's first 100 evaluations are the same)."""
    rows = read_runs(paths)
    length = max(len(r["regret"]) for r in rows)
    tail = f" median regret at {length} |" if length > BUDGET else ""
    lines = [
        f"| problem | algo | variant | seeds | median regret at {BUDGET} |{tail} / no hint "
        f"| evaluations to the no-hint median at {BUDGET} |",
        "|---|---|---|---|---|---|---|" + ("---|" if tail else ""),
    ]
    keys = sorted({(r["problem"], r["algo"]) for r in rows})
    for name, algo in keys:
        curves = {v: _curves(rows, name, algo, v) for v in [*VARIANTS, *WITHDRAWN]}
        base = algo if len(curves["none"]) else algo.split(":")[0]
        none = _curves(rows, name, base, "none")
        if len(none) == 0:
            continue
        target = float(np.median(none[:, BUDGET - 1]))
        for variant, curve in curves.items():
            if len(curve) == 0:
                continue
            median = np.median(curve, axis=0)
            reached = next((i + 1 for i, m in enumerate(median) if m <= target * (1 + 1e-9)), None)
            ratio = f"{median[BUDGET - 1] / target:.2f}" if target > 0 else "-"
            end = (f" {median[-1]:.4g} |" if len(median) == length else " - |") if tail else ""
            lines.append(
                f"| {name} | {algo} | {variant} | {len(curve)} | {median[BUDGET - 1]:.4g} |{end} {ratio} "
                f"| {reached or f'> {len(median)}'} |"
            )
    return "\n".join(lines)


def sure(paths: Sequence[Path], at: int = 50) -> str:
    """Per problem and optimizer, the good hint at credibility 1 (its point 5 % of each
    range from the optimum): the hint's own regret, the median regret after ``at``
    evaluations and the seeds whose best after ``at`` is at least as good as the hint."""
    rows = [r for r in read_runs(paths) if r["variant"] == "good c=1" and r["problem"] in OPTIMA]
    lines = [
        f"| problem | algo | seeds | the hint's regret | median regret at {at} | seeds at least as good as the hint |",
        "|---|---|---|---|---|---|",
    ]
    for name, algo in sorted({(r["problem"], r["algo"]) for r in rows}):
        problem = PROBLEMS[name]
        hinted = problem.objective(problem.flat_value(_hint(problem, "good"))) - (problem.optimum or 0.0)
        at_budget = np.array([r["regret"][at - 1] for r in rows if (r["problem"], r["algo"]) == (name, algo)])
        reached = int(np.sum(at_budget <= hinted + 1e-12))
        lines.append(
            f"| {name} | {algo} | {len(at_budget)} | {hinted:.4g} | {np.median(at_budget):.4g} | {reached} of {len(at_budget)} |"
        )
    return "\n".join(lines)


def finals() -> Finals:
    """Per problem and hint, each seed's regret at 100 evaluations (``auto``)."""
    out: Finals = {}
    for f in SUITE_FILES:
        for r in lines(RESULTS / f):
            if r.get("algo", "auto") == "auto":
                out.setdefault((r["problem"], r["variant"]), {})[int(r["seed"])] = float(r["regret"][BUDGET - 1])
    return out


#: The credibility-1 runs since a sure hint's point is tried first replace the earlier files' (a later
#: file's row of a run wins in :func:`finals`).
SUITE_FILES = (
    "hints_issue21.jsonl",
    "hints_svc_issue21.jsonl",
    "hints_grammar60.jsonl",
    "hints_c1.jsonl",
    "hints_c1_svc.jsonl",
    "hints_c1_grammar.jsonl",
)
SUITES = (
    Suite(
        "hints", "Search hints",
        "`auto` given a hint (a region believed good) at credibility 1 or 0.5, or a misleading one at "
        "credibility 0.2 or 1, against no hint. The first column is the run without a hint: ▼ marks a "
        "hint that helped beyond noise, ▲ one that hurt. The credibility-1 columns were run again once a sure "
        "hint's point became the first trial (`hints_c1*` rows).",
        "regret after 100 evaluations", "none",
        ("none", "good c=1", "good c=0.5", "misleading c=0.2", "misleading c=1"), SUITE_FILES,
        ("python -m bench.suites.hints run --algo auto --seeds 30 --problems rosenbrock4 hartmann6 styblinski8 branin "
         "--variants none 'good c=1' 'good c=0.5' 'misleading c=0.2' --out bench/results/hints_issue21.jsonl",
         "python -m bench.suites.hints run --algo auto --seeds 10 --problems svc_digits "
         "--out bench/results/hints_svc_issue21.jsonl",
         "python -m bench.suites.hints run --algo auto --seeds 60 --problems nguyen5 nguyen10 nguyen9 "
         "--out bench/results/hints_grammar60.jsonl",
         "python -m bench.suites.hints run --algo auto --seeds 30 --problems rosenbrock4 hartmann6 styblinski8 branin "
         "--variants 'good c=1' --out bench/results/hints_c1.jsonl",
         "python -m bench.suites.hints run --algo auto --seeds 10 --problems svc_digits --variants 'good c=1' "
         "'misleading c=1' --out bench/results/hints_c1_svc.jsonl",
         "python -m bench.suites.hints run --algo auto --seeds 60 --problems nguyen5 nguyen10 nguyen9 "
         "--variants 'good c=1' 'misleading c=1' --out bench/results/hints_c1_grammar.jsonl"),
        finals, notes=spread_notes("none", ("none", "good c=1", "good c=0.5", "misleading c=0.2", "misleading c=1"), full=False)),
)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.suites.hints")
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--seeds", type=int, default=10)
    r.add_argument("--algo", default="tpe")
    r.add_argument("--problems", nargs="+", default=list(OPTIMA))
    r.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=[*VARIANTS, *WITHDRAWN])
    r.add_argument("--shard", default="0/1", help="i/k: every k-th run from the i-th on")
    r.add_argument("--budget", type=int, default=BUDGET, help="evaluations per run (at least 100)")
    r.add_argument("--out", type=Path, default=OUT, help="the JSON lines file the rows are appended to")
    p = sub.add_parser("report")
    p.add_argument("--out", type=Path, nargs="+", default=[OUT], help="the JSON lines files to read")
    q = sub.add_parser("sure", help="a good hint at credibility 1: the seeds that reach its own value")
    q.add_argument("--out", type=Path, nargs="+", default=[OUT], help="the JSON lines files to read")
    q.add_argument("--at", type=int, default=50, help="evaluations")
    args = parser.parse_args()
    if args.command == "run":
        i, k = (int(part) for part in args.shard.split("/"))
        run(args.seeds, args.algo, args.problems, args.variants, (i, k), budget=args.budget, out=args.out)
    elif args.command == "sure":
        print(sure(args.out, args.at))
    else:
        print(report(args.out))


if __name__ == "__main__":
    main()
