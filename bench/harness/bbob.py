"""The COCO/BBOB noiseless functions as benchmark problems, and their own run and report.

Hansen et al. (2009), "Real-parameter black-box optimization benchmarking:
noiseless functions definitions"; the functions come from the
``coco-experiment`` package (``cocoex``), imported only when a problem is
evaluated. Each of the 24 functions, in each dimension, has instances (shifts,
rotations and offsets drawn from the instance number); the box is
``[-5, 5]^d``. The optimal value ``f_opt`` of every (function, instance,
dimension) is in ``bench/harness/bbob_fopt.json``, read once from the header COCO's
own logger writes (``... - Fopt (value)``), so the regret is exact.

Problems are named ``bbob_f{ff}_i{i}_d{d}``. A run of seed ``s`` uses the
instance ``1 + s % 3``: ten seeds cover instances 1-3 (four, three and three
runs), and the report pools a function's instances into one row of ten
regrets, each against its own instance's optimum.

Usage (resumable; each run its own process; rows as JSON lines)::

    python -m bench.harness.bbob run --functions 1-24 --dims 2,10 --methods tf-gp,optuna-gp --seeds 10
    python -m bench.harness.bbob report bench/results/bbob.jsonl --ours tf-auto
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from .problems import Param, Problem

FOPT_FILE = Path(__file__).with_name("bbob_fopt.json")
DIMS = (2, 3, 5, 10, 20)
INSTANCES = (1, 2, 3)
FUNCTIONS = tuple(range(1, 25))
#: A run whose best is this close to f_opt has converged, and its end is not counted as a stall.
SOLVED = 1e-2


@cache
def coco_problem(function: int, instance: int, dim: int, suite: str = "bbob") -> Any:
    """COCO's problem of ``suite`` (``"bbob"``, ``"bbob-mixint"``), made once per process."""
    import cocoex

    problems = cocoex.Suite(suite, f"instances: {instance}", f"dimensions: {dim}")
    return problems.get_problem_by_function_dimension_instance(function, dim, instance)


def name(function: int, instance: int, dim: int, prefix: str = "bbob") -> str:
    return f"{prefix}_f{function:02d}_i{instance}_d{dim}"


def pooled(problem: str) -> str:
    """``bbob_f03_i2_d10`` -> ``bbob_f03_d10``: the row a problem's instance pools into."""
    return re.sub(r"_i\d+_", "_", problem)


def instance_of_seed(seed: int) -> int:
    return INSTANCES[seed % len(INSTANCES)]


def _problem(function: int, instance: int, dim: int, fopt: float) -> Problem:
    def objective(v: Mapping[str, Any]) -> float:
        x = np.array([v[f"x{i}"] for i in range(dim)], dtype=float)
        return float(coco_problem(function, instance, dim)(x))

    params = tuple(Param(f"x{i}", "real", -5.0, 5.0) for i in range(dim))
    return Problem(name(function, instance, dim), objective, params, fopt, kind="bbob")


@cache
def bbob_problems() -> dict[str, Problem]:
    """Every (function, instance, dimension) of the table, by name."""
    table = json.loads(FOPT_FILE.read_text())
    out = {}
    for key, fopt in table.items():
        f, i, d = (int(t) for t in re.findall(r"\d+", key))
        out[name(f, i, d)] = _problem(f, i, d, float(fopt))
    return out


def _ints(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def keys(
    functions: list[int], dims: list[int], methods: list[str], seeds: int, budget: int, prefix: str = "bbob"
) -> list[Any]:
    """Run keys, the cheap dimension first, so an interrupted run has whole low-dimensional rows."""
    return [
        (name(f, instance_of_seed(s), d, prefix), m, s, budget)
        for d in dims
        for f in functions
        for s in range(seeds)
        for m in methods
    ]


def final_regrets(rows: list[dict[str, Any]]) -> dict[tuple[str, str], np.ndarray]:
    """(pooled problem, method) -> final simple regrets over seeds (each against its instance's optimum)."""
    problems = bbob_problems()
    out: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        if r.get("status") != "ok" or r["problem"] not in problems:
            continue
        fopt = problems[r["problem"]].optimum
        assert fopt is not None
        out.setdefault((pooled(r["problem"]), r["method"]), []).append(min(r["losses"]) - fopt)
    return {k: np.array(v) for k, v in out.items()}


def stalled_for(regret: Sequence[float], *, relative: float = 1e-2) -> int:
    """Evaluations at the end of a run after the last improvement that cut
    the best regret (``f - f_opt``) by more than ``relative`` of itself; 0
    for a run that ended within :data:`SOLVED` of the optimum (converged,
    not stuck).

    Relative to the regret, not to the run's loss range: on a function with
    a heavy upper tail (f10 spans 1e7) a range-relative threshold called every
    late refinement no improvement, so every method looked stuck."""
    if min(regret) <= SOLVED:
        return 0
    best, last = np.inf, 0
    for i, v in enumerate(regret):
        if v < best * (1.0 - relative):
            best, last = v, i
    return len(regret) - 1 - last


def final_stalls(rows: list[dict[str, Any]], *, relative: float = 1e-2) -> dict[tuple[str, str], list[int]]:
    """(pooled problem, method) -> per seed, :func:`stalled_for` of the run's regrets."""
    problems = bbob_problems()
    out: dict[tuple[str, str], list[int]] = {}
    for r in rows:
        if r.get("status") != "ok" or r["problem"] not in problems:
            continue
        regret = np.asarray(r["losses"], dtype=float) - (problems[r["problem"]].optimum or 0.0)
        out.setdefault((pooled(r["problem"]), r["method"]), []).append(stalled_for(list(regret), relative=relative))
    return out


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def report(rows: list[dict[str, Any]], ours: str, methods: list[str], n_boot: int = 2000) -> str:
    """Median final regret per pooled problem (those where ``ours`` has rows)
    with a 95% bootstrap interval of the median; then, for ``ours``, the wins and losses beyond noise against
    each other method (the interval of the difference of medians excludes 0)."""
    from .report import median_difference_interval

    regrets = final_regrets(rows)
    problems = sorted({p for p, m in regrets if m == ours}, key=lambda p: (int(p.split("_d")[-1]), p))
    rng = np.random.default_rng(0)
    lines = ["| problem | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
    for p in problems:
        cells = []
        for m in methods:
            r = regrets.get((p, m))
            if r is None:
                cells.append("·")
                continue
            boots = np.median(rng.choice(r, size=(n_boot, len(r))), axis=1)
            lo, hi = np.percentile(boots, [2.5, 97.5])
            cells.append(f"{_fmt(float(np.median(r)))} [{_fmt(lo)}, {_fmt(hi)}] ({len(r)})")
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    stalls = final_stalls(rows)
    lines += ["", "Stuck seeds: the last 50 or more evaluations did not cut the best regret by 1 %, and it is"]
    lines += [f"more than {SOLVED:g} above f_opt (of all seeds):", ""]
    lines += ["| problem | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
    for p in problems:
        cells = [
            f"{sum(s >= 50 for s in stalls[(p, m)])} / {len(stalls[(p, m)])}" if (p, m) in stalls else "·"
            for m in methods
        ]
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    lines += ["", f"| {ours} against | better | worse | not resolved | problems |", "|---|---|---|---|---|"]
    for m in methods:
        if m == ours:
            continue
        tally = {"better": 0, "worse": 0, "not resolved": 0}
        for p in problems:
            if (p, ours) in regrets and (p, m) in regrets:
                lo, hi = median_difference_interval(regrets[(p, ours)], regrets[(p, m)], rng, n_boot=n_boot)
                tally["worse" if lo > 0 else "better" if hi < 0 else "not resolved"] += 1
        lines.append(
            f"| {m} | {tally['better']} | {tally['worse']} | {tally['not resolved']} | {sum(tally.values())} |"
        )
    return "\n".join(lines)


def best_of_table(
    rows: list[dict[str, Any]], ours: list[str], peers: list[str], methods: list[str], n_boot: int = 2000
) -> str:
    """Per pooled problem where every method of ``ours`` ran: the better (by median final
    regret) of ``ours`` against the best of ``peers``, beyond noise or not (the 95 % bootstrap
    interval of the difference of medians excludes 0); then the mean rank of the medians of
    ``methods`` over the problems all of them ran (ties share their rank)."""
    from scipy.stats import rankdata

    from .report import median_difference_interval

    regrets = final_regrets(rows)
    problems = sorted(
        {p for p, _ in regrets if all((p, m) in regrets for m in ours)},
        key=lambda p: (int(p.split("_d")[-1]), int(p.split("_")[1][1:])),
    )
    rng = np.random.default_rng(0)
    lines = [
        "| function | " + " | ".join(ours) + " | best peer | its median | treefarm's best against it |",
        "|---" * (len(ours) + 4) + "|",
    ]
    tally = {"better beyond noise": 0, "within noise": 0, "worse beyond noise": 0}
    ranks: list[np.ndarray] = []
    for p in problems:
        medians = {m: float(np.median(regrets[(p, m)])) for m in methods if (p, m) in regrets}
        ran = [m for m in peers if m in medians]
        if not ran:
            continue
        mine = min(ours, key=lambda m: medians[m])
        peer = min(ran, key=lambda m: medians[m])
        lo, hi = median_difference_interval(regrets[(p, mine)], regrets[(p, peer)], rng, n_boot=n_boot)
        verdict = "worse beyond noise" if lo > 0 else "better beyond noise" if hi < 0 else "within noise"
        tally[verdict] += 1
        cells = " | ".join(_fmt(medians[m]) for m in ours)
        lines.append(f"| {p} | {cells} | {peer} | {_fmt(medians[peer])} | {verdict} |")
        if len(medians) == len(methods):
            ranks.append(rankdata([medians[m] for m in methods]))
    lines += ["", ", ".join(f"{k}: {v}" for k, v in tally.items())]
    if ranks:
        mean = np.mean(ranks, axis=0)
        order = np.argsort(mean, kind="stable")
        lines += [
            "",
            f"Mean rank of the medians over the {len(ranks)} problems every method ran: "
            + ", ".join(f"{methods[i]} {mean[i]:.2f}" for i in order),
        ]
    return "\n".join(lines)


def _ranges(text: str) -> str:
    """``text`` if :func:`_ints` reads it (``"1-5,7"``), else argparse's error naming the value."""
    try:
        _ints(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers and ranges like 1-5,7, got {text!r}") from None
    return text


def add_run_arguments(run: argparse.ArgumentParser, *, dims: str, methods: str | None, out: str) -> None:
    """The ``run`` command's options of a COCO suite (BBOB, bbob-mixint); ``methods=None``: required."""
    run.add_argument("--functions", type=_ranges, default="1-24")
    run.add_argument("--dims", type=_ranges, default=dims)
    run.add_argument("--methods", required=methods is None, default=methods)
    run.add_argument("--seeds", type=int, default=10)
    run.add_argument("--budget", type=int, default=100)
    run.add_argument("--jobs", type=int, default=1)
    run.add_argument("--timeout", type=float, default=1800.0)
    run.add_argument("--out", type=Path, default=Path(out))
    run.add_argument("--in-process", action="store_true", help="every run in this interpreter (cheap methods)")


def run_command(args: argparse.Namespace, prefix: str) -> int:
    """Run what ``args.out`` lacks of a COCO suite's (function, dimension, method, seed) keys."""
    from .runner import run_all

    methods = [m for m in args.methods.split(",") if m]
    todo = keys(_ints(args.functions), _ints(args.dims), methods, args.seeds, args.budget, prefix)
    ran = run_all(todo, args.out, jobs=args.jobs, timeout=args.timeout, in_process=args.in_process)
    print(f"{ran} runs done; results in {args.out}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.harness.bbob")
    sub = parser.add_subparsers(dest="command", required=True)
    add_run_arguments(sub.add_parser("run"), dims="2,10", methods=None, out="bench/results/bbob.jsonl")
    rep = sub.add_parser("report")
    rep.add_argument("results", type=Path, nargs="+")
    rep.add_argument("--ours", default="tf-auto")
    rep.add_argument("--methods", default=None)
    rep.add_argument("--functions", type=_ranges, default=None, help="only these functions (e.g. 15-24)")
    rep.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="FILE=SUFFIX",
        help="append SUFFIX to the method names of FILE's rows (two versions of one method side by side)",
    )
    rep.add_argument(
        "--best-of",
        default=None,
        metavar="METHODS",
        help="also compare the better of these methods (comma-separated) with the best peer (methods not tf-*)",
    )
    args = parser.parse_args(argv)
    from .runner import read_rows

    if args.command == "run":
        return run_command(args, "bbob")
    suffixes = dict(label.rsplit("=", 1) for label in args.label)
    rows = [
        {**r, "method": r["method"] + suffixes.get(str(path), "")} for path in args.results for r in read_rows(path)
    ]
    if args.functions:
        wanted = set(_ints(args.functions))
        rows = [r for r in rows if int(r["problem"].split("_")[1][1:]) in wanted]
    methods = args.methods.split(",") if args.methods else sorted({r["method"] for r in rows})
    print(report(rows, args.ours, methods))
    if args.best_of:
        ours = args.best_of.split(",")
        print()
        peers = [m for m in methods if not m.startswith("tf-")]
        print(best_of_table(rows, ours, peers, methods))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
