"""Does ``auto`` with a model across fidelities beat ``auto`` with Hyperband as it was, at equal cost?

Synthetic multi-fidelity functions, each reported as a learning curve: at step
``s`` of ``MAX_STEPS`` the objective reports the function at fidelity
``z = s / MAX_STEPS`` (the target at the last step). Reaching step ``s`` costs
``(s / MAX_STEPS) ** COST_POWER`` full evaluations (cheap fidelities cost the
square of their fraction). Each run spends ``BUDGET`` full-evaluation
equivalents; the measure is the best value of a trial run to the last step
(the function at full fidelity) within the cost spent, at 1/3 of the budget and
at all of it.

Methods (all in-process, one core, same GP settings):

- ``auto-none``: ``algo="auto"`` without a pruner, every trial at full fidelity;
- ``auto-hb-final``: ``auto`` with ``HyperbandPruner`` learning from final
  values only (``Auto(fidelity=None)``: a pruned trial counts at its last value);
- ``auto-hb-model``: ``auto`` with ``HyperbandPruner`` and the GP across fidelities
  (the default, the ``"discrepancy"`` kernel);
- ``auto-hb-matern``: the same with one ARD Matérn-5/2 over (x, z).

Problems: the multi-fidelity Branin and Hartmann functions of Kandasamy et al.,
"Multi-fidelity Bayesian optimisation with continuous approximations" (BOCA,
2017), Park's and Currin's functions with the low fidelities of Xiong, Qian &
Wu, "Sequential design and analysis of high-accuracy and low-accuracy computer
codes" (2013), blended linearly in z, and ``*_noise`` variants whose values below
the target are noise (uniform over the function's range, fixed per point and
step): misleading low fidelities. ``HELD_OUT`` took no part in any design choice.

    python -m bench.screens.fidelity_model --seeds 10 --out bench/results/fidelity_model.jsonl
    python -m bench.screens.fidelity_model --report bench/results/fidelity_model*.jsonl --plot out.png

One JSON line per (problem, method, seed); a rerun skips the rows already in the file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

MAX_STEPS = 27
COST_POWER = 2.0
BUDGET = 30.0
METHODS = ("auto-none", "auto-hb-final", "auto-hb-model", "auto-hb-matern")
DESIGN = ("branin", "hartmann3", "park", "branin_noise", "hartmann3_noise", "currin")
HELD_OUT = ("hartmann6", "borehole", "hartmann6_noise")

Function = Callable[[np.ndarray, float], float]
"""``f(x, z)``: the loss of a point of the unit cube at fidelity z in (0, 1]."""


def branin(x: np.ndarray, z: float) -> float:
    """BOCA's multi-fidelity Branin on [-5, 10] x [0, 15] (minimum 0.397887 at z = 1)."""
    x1, x2 = 15.0 * x[0] - 5.0, 15.0 * x[1]
    b = 5.1 / (4 * math.pi**2) - 0.01 * (1 - z)
    c = 5 / math.pi - 0.1 * (1 - z)
    t = 1 / (8 * math.pi) + 0.05 * (1 - z)
    return (x2 - b * x1**2 + c * x1 - 6) ** 2 + 10 * (1 - t) * math.cos(x1) + 10 - 0.397887


_H3_A = np.array([[3.0, 10, 30], [0.1, 10, 35], [3.0, 10, 30], [0.1, 10, 35]])
_H3_P = 1e-4 * np.array([[3689, 1170, 2673], [4699, 4387, 7470], [1091, 8732, 5547], [381, 5743, 8828]])
_H6_A = np.array(
    [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]]
)
_H6_P = 1e-4 * np.array(
    [
        [1312, 1696, 5569, 124, 8283, 5886],
        [2329, 4135, 8307, 3736, 1004, 9991],
        [2348, 1451, 3522, 2883, 3047, 6650],
        [4047, 8828, 8732, 5743, 1091, 381],
    ]
)
_ALPHA = np.array([1.0, 1.2, 3.0, 3.2])
_DELTA = np.array([0.01, -0.01, -0.1, 0.1])


def _hartmann(a: np.ndarray, p: np.ndarray, optimum: float) -> Function:
    def f(x: np.ndarray, z: float) -> float:
        alpha = _ALPHA - _DELTA * (1 - z) * 10  # BOCA's bias, scaled so the rungs differ visibly
        return float(-(alpha * np.exp(-((a * (x - p) ** 2).sum(1)))).sum()) - optimum

    return f


def park(x: np.ndarray, z: float) -> float:
    """Park (1991)'s first function on [0, 1]^4 (x1 kept from 0) and Xiong et al.'s low fidelity, minimized."""
    x1, x2, x3, x4 = max(x[0], 1e-3), x[1], x[2], x[3]
    high = x1 / 2 * (math.sqrt(1 + (x2 + x3**2) * x4 / x1**2) - 1) + (x1 + 3 * x4) * math.exp(1 + math.sin(x3))
    low = (1 + math.sin(x1) / 10) * high - 2 * x1 + x2**2 + x3**2 + 0.5
    return z * high + (1 - z) * low


def _currin_high(x1: float, x2: float) -> float:
    x2 = max(x2, 1e-6)
    return (1 - math.exp(-1 / (2 * x2))) * (2300 * x1**3 + 1900 * x1**2 + 2092 * x1 + 60) / (
        100 * x1**3 + 500 * x1**2 + 4 * x1 + 20
    )


def currin(x: np.ndarray, z: float) -> float:
    """Currin et al. (1991)'s exponential function on [0, 1]^2, maximized in the literature: here its
    negative, with Xiong et al.'s low fidelity (the mean of four shifted evaluations)."""
    high = _currin_high(x[0], x[1])
    low = 0.25 * sum(_currin_high(x[0] + a, max(0.0, x[1] + b)) for a, b in ((0.05, 0.05), (0.05, -0.05), (-0.05, 0.05), (-0.05, -0.05)))
    return -(z * high + (1 - z) * low)


def borehole(x: np.ndarray, z: float) -> float:
    """The borehole water flow (Morris et al. 1993) on its 8-d box, with Xiong et al.'s low fidelity."""
    lows = np.array([0.05, 100, 63070, 990, 63.1, 700, 1120, 9855])
    highs = np.array([0.15, 50000, 115600, 1110, 116, 820, 1680, 12045])
    rw, r, tu, hu, tl, hl, ll, kw = lows + x * (highs - lows)
    log = math.log(r / rw)
    high = 2 * math.pi * tu * (hu - hl) / (log * (1 + 2 * ll * tu / (log * rw**2 * kw) + tu / tl))
    low = 5 * tu * (hu - hl) / (log * (1.5 + 2 * ll * tu / (log * rw**2 * kw) + tu / tl))
    return z * high + (1 - z) * low


def _noisy(f: Function, spread: float) -> Function:
    """``f`` at the target; below it, uniform noise over ``[0, spread]`` fixed by the point and the step."""

    def g(x: np.ndarray, z: float) -> float:
        if z >= 1.0:
            return f(x, z)
        key = hashlib.sha256(np.round(x, 12).tobytes() + str(round(z, 9)).encode()).digest()
        return spread * int.from_bytes(key[:8], "little") / 2.0**64

    return g


FUNCTIONS: dict[str, tuple[Function, int]] = {
    "branin": (branin, 2),
    "hartmann3": (_hartmann(_H3_A, _H3_P, -3.86278), 3),
    "hartmann6": (_hartmann(_H6_A, _H6_P, -3.32237), 6),
    "park": (park, 4),
    "currin": (currin, 2),
    "borehole": (borehole, 8),
}
FUNCTIONS["branin_noise"] = (_noisy(branin, 300.0), 2)
FUNCTIONS["hartmann3_noise"] = (_noisy(FUNCTIONS["hartmann3"][0], 3.9), 3)
FUNCTIONS["hartmann6_noise"] = (_noisy(FUNCTIONS["hartmann6"][0], 3.3), 6)


def step_cost(step: int) -> float:
    """The cost of step ``step``: reaching it costs ``(step / MAX_STEPS) ** COST_POWER`` in all."""
    return ((step / MAX_STEPS) ** COST_POWER - ((step - 1) / MAX_STEPS) ** COST_POWER)


def run(problem: str, method: str, seed: int) -> dict[str, Any]:
    """One run: every finished trial's steps, final value (full fidelity only) and cost so far."""
    import treefarm as tf
    from treefarm import GP, Auto

    f, d = FUNCTIONS[problem]
    space = {f"x{i}": tf.Real(0.0, 1.0) for i in range(d)}
    pruner = None if method == "auto-none" else tf.HyperbandPruner(min_resource=1, max_resource=MAX_STEPS)
    fidelity = {"auto-hb-final": None, "auto-hb-matern": "matern52"}.get(method, "discrepancy")
    algo = Auto(gp=GP(n_candidates=256, n_local=128, n_starts=4), fidelity=fidelity)
    spent = [0.0]
    trials: list[dict[str, Any]] = []

    def objective(p: dict[str, float], trial: tf.Trial) -> float:
        x = np.array([p[f"x{i}"] for i in range(d)])
        value = math.nan
        for step in range(1, MAX_STEPS + 1):
            value = f(x, step / MAX_STEPS)
            spent[0] += step_cost(step)
            trial.report(step, value)
            if trial.should_prune():
                trials.append({"steps": step, "value": None, "cost": spent[0]})
                raise tf.TrialPruned()
        trials.append({"steps": MAX_STEPS, "value": value, "cost": spent[0]})
        return value

    def stop(study: tf.Study, _record: tf.TrialRecord) -> None:
        if spent[0] >= BUDGET:
            study.stop()

    started = time.time()
    logging.getLogger("treefarm").setLevel(logging.WARNING)
    study = tf.Study.create(space=space, algo=algo, seed=seed, pruner=pruner)
    study.optimize(objective, callbacks=[stop])
    return {"problem": problem, "method": method, "seed": seed, "trials": trials, "seconds": time.time() - started}


def best_at(trials: list[dict[str, Any]], cost: float) -> float:
    """The best full-fidelity value among the trials finished within ``cost``."""
    values = [t["value"] for t in trials if t["value"] is not None and t["cost"] <= cost + 1e-9]
    return min(values) if values else math.inf


def _rows(paths: list[Path]) -> list[dict[str, Any]]:
    """The rows of ``paths``, the first of each (problem, method, seed) kept (files may overlap)."""
    rows: dict[tuple[str, str, int], dict[str, Any]] = {}
    for path in paths:
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                rows.setdefault((row["problem"], row["method"], row["seed"]), row)
    return list(rows.values())


def report(paths: list[Path]) -> str:
    """Per problem and method: median and IQR of the best at 10 and 30 full
    evaluations, and the model's wins and losses beyond noise (Mann-Whitney,
    one-sided p < 0.05 each way) against each other method."""
    from scipy.stats import mannwhitneyu

    rows = _rows(paths)
    out = []
    for title, problems in (("design", DESIGN), ("held out", HELD_OUT)):
        out += [f"### {title}", "", "| problem | method | n | best at 10 (median [IQR]) | best at 30 | vs auto-hb-model at 30 |", "|---|---|---|---|---|---|"]
        for p in problems:
            finals = {m: np.array([best_at(r["trials"], BUDGET) for r in rows if r["problem"] == p and r["method"] == m]) for m in METHODS}
            early = {m: np.array([best_at(r["trials"], BUDGET / 3) for r in rows if r["problem"] == p and r["method"] == m]) for m in METHODS}
            ours = finals["auto-hb-model"]
            for m in METHODS:
                a, b = early[m], finals[m]
                if not len(b):
                    continue
                verdict = "–"
                if m != "auto-hb-model" and len(ours):
                    better = mannwhitneyu(ours, b, alternative="less").pvalue
                    worse = mannwhitneyu(ours, b, alternative="greater").pvalue
                    verdict = f"model better (p={better:.3f})" if better < 0.05 else f"model worse (p={worse:.3f})" if worse < 0.05 else f"no difference (p={min(better, worse):.2f})"
                out.append(f"| {p} | {m} | {len(b)} | {_cell(a)} | {_cell(b)} | {verdict} |")
        out.append("")
    return "\n".join(out)


def plot(paths: list[Path], out: Path) -> None:
    """The median best full-fidelity value (regret) against the cost spent, per problem and method
    (the anytime curve), with the inter-quartile band; design problems first."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = _rows(paths)
    problems = [p for p in (*DESIGN, *HELD_OUT) if any(r["problem"] == p for r in rows)]
    grid = np.linspace(1.0, BUDGET, 59)
    fig, axes = plt.subplots(math.ceil(len(problems) / 3), 3, figsize=(12, 3.2 * math.ceil(len(problems) / 3)))
    for ax, p in zip(np.ravel(axes), problems):
        floor = min(best_at(r["trials"], BUDGET) for r in rows if r["problem"] == p)
        for m in METHODS:
            runs = [r for r in rows if r["problem"] == p and r["method"] == m]
            if not runs:
                continue
            curves = np.array([[best_at(r["trials"], c) - floor + 1e-6 for c in grid] for r in runs])
            q1, med, q3 = np.percentile(curves, [25, 50, 75], axis=0)
            ax.plot(grid, med, label=m)
            ax.fill_between(grid, q1, q3, alpha=0.15)
        ax.set_yscale("log")
        ax.set_title(f"{p}{' (held out)' if p in HELD_OUT else ''}", fontsize=9)
        ax.set_xlabel("cost (full evaluations)", fontsize=8)
    np.ravel(axes)[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=90)


def _cell(x: np.ndarray) -> str:
    q1, med, q3 = np.percentile(x, [25, 50, 75])
    return f"{med:.3g} [{q1:.3g}, {q3:.3g}]"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.screens.fidelity_model")
    parser.add_argument("--problems", nargs="+", default=[*DESIGN, *HELD_OUT])
    parser.add_argument("--methods", nargs="+", default=list(METHODS))
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("bench/results/fidelity_model.jsonl"))
    parser.add_argument("--report", type=Path, nargs="+")
    parser.add_argument("--plot", type=Path, help="with --report: write the anytime curves here")
    args = parser.parse_args(argv)
    if args.report is not None:
        print(report(args.report))
        if args.plot is not None:
            plot(args.report, args.plot)
        return
    done = set()
    if args.out.exists():
        done = {(r["problem"], r["method"], r["seed"]) for r in map(json.loads, args.out.read_text().splitlines())}
    for seed in range(args.first_seed, args.seeds):
        for problem in args.problems:
            for method in args.methods:
                if (problem, method, seed) in done:
                    continue
                row = run(problem, method, seed)
                with args.out.open("a") as fh:
                    fh.write(json.dumps(row) + "\n")
                print(problem, method, seed, f"{best_at(row['trials'], BUDGET):.4g}", f"{row['seconds']:.0f}s", flush=True)


if __name__ == "__main__":
    main()
