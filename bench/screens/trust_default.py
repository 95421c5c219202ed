"""The judgement of a new default against ``auto``, problem by problem, by a rule fixed before the runs.

Reads rows of the BBOB harness (``bench.harness.bbob``, instances pooled) and of the methods
harness (``python -m bench run``), takes each run's final simple regret (its best loss minus the
problem's optimum) and sets the ``candidate`` against the ``base`` on every problem both ran:
the medians over seeds, the 95 % bootstrap interval of their difference (beyond noise when it
excludes 0, :func:`bench.harness.report.median_difference_interval`) and the worst decile (the
90th percentile over seeds). The rule (registered in ``bench/notes/bbob.md``, "The trust region
as auto's default: the judgement", before any of its rows ran) adopts the candidate when, over
the problems:

1. it is lower beyond noise on more problems than it is higher beyond noise;
2. its median is lower on at least half of the problems where the two medians differ;
3. its worst decile is higher on no more problems than it is lower.

    python -m bench.screens.trust_default bench/results/trust_judge.jsonl \\
        --candidate tf-auto-trust --base tf-auto
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from ..harness.bbob import bbob_problems, pooled
from ..harness.problems import all_problems
from ..harness.report import median_difference_interval

Regrets = dict[tuple[str, str], dict[int, float]]


def final_regrets(rows: list[dict[str, Any]]) -> Regrets:
    """(problem, method) -> seed -> final simple regret; BBOB instances pooled into one problem."""
    bbob, others = bbob_problems(), all_problems()
    out: Regrets = {}
    for r in rows:
        if r.get("status") != "ok":
            continue
        name = r["problem"]
        problem = bbob.get(name) or others.get(name)
        if problem is None or problem.optimum is None:
            continue
        key = pooled(name) if name in bbob else name
        out.setdefault((key, r["method"]), {})[int(r["seed"])] = min(r["losses"]) - problem.optimum
    return out


def judge(
    regrets: Regrets, candidate: str, base: str, n_boot: int = 2000
) -> tuple[list[dict[str, Any]], bool]:
    """One line per problem both methods ran (their common seeds), and whether the rule adopts."""
    rng = np.random.default_rng(0)
    lines = []
    for problem in sorted({p for p, m in regrets if m == candidate}):
        if (problem, base) not in regrets:
            continue
        a, b = regrets[(problem, candidate)], regrets[(problem, base)]
        seeds = sorted(set(a) & set(b))
        x, y = np.array([a[s] for s in seeds]), np.array([b[s] for s in seeds])
        lo, hi = median_difference_interval(x, y, rng, n_boot=n_boot)
        lines.append(
            {
                "problem": problem,
                "seeds": len(seeds),
                "candidate": float(np.median(x)),
                "base": float(np.median(y)),
                "interval": (lo, hi),
                "verdict": "lower" if hi < 0 else "higher" if lo > 0 else "within noise",
                "worst_candidate": float(np.percentile(x, 90)),
                "worst_base": float(np.percentile(y, 90)),
            }
        )
    return lines, adopted(lines)


def adopted(lines: list[dict[str, Any]]) -> bool:
    """The registered rule (the module's docstring)."""
    wins = sum(line["verdict"] == "lower" for line in lines)
    losses = sum(line["verdict"] == "higher" for line in lines)
    differ = [line for line in lines if line["candidate"] != line["base"]]
    lower = sum(line["candidate"] < line["base"] for line in differ)
    worse_tail = sum(line["worst_candidate"] > line["worst_base"] for line in lines)
    better_tail = sum(line["worst_candidate"] < line["worst_base"] for line in lines)
    return wins > losses and 2 * lower >= len(differ) and worse_tail <= better_tail


def table(lines: list[dict[str, Any]], candidate: str, base: str) -> str:
    """The judgement as a Markdown table, with the counts the rule reads."""
    out = [
        f"| problem | seeds | {candidate} | {base} | difference [95 %] | verdict | worst decile {candidate} | "
        f"worst decile {base} |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for line in lines:
        lo, hi = line["interval"]
        out.append(
            f"| {line['problem']} | {line['seeds']} | {line['candidate']:.4g} | {line['base']:.4g} | "
            f"[{lo:.3g}, {hi:.3g}] | {line['verdict']} | {line['worst_candidate']:.4g} | {line['worst_base']:.4g} |"
        )
    differ = [line for line in lines if line["candidate"] != line["base"]]
    out += [
        "",
        f"{len(lines)} problems: lower beyond noise on {sum(x['verdict'] == 'lower' for x in lines)}, "
        f"higher beyond noise on {sum(x['verdict'] == 'higher' for x in lines)}; lower median on "
        f"{sum(x['candidate'] < x['base'] for x in differ)} of {len(differ)} where the medians differ; worst decile "
        f"lower on {sum(x['worst_candidate'] < x['worst_base'] for x in lines)}, higher on "
        f"{sum(x['worst_candidate'] > x['worst_base'] for x in lines)}.",
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.screens.trust_default")
    parser.add_argument("rows", type=Path, nargs="+")
    parser.add_argument("--candidate", default="tf-auto-trust")
    parser.add_argument("--base", default="tf-auto")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for path in args.rows for line in path.read_text().splitlines() if line.strip()]
    lines, verdict = judge(final_regrets(rows), args.candidate, args.base)
    print(table(lines, args.candidate, args.base))
    print("\nThe rule: " + ("adopted" if verdict else "not adopted"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
