"""The judgement of a new default against ``auto``, problem by problem, by a rule fixed before the runs.

Reads runner rows (the BBOB harness's, instances pooled by function, and ``python -m bench run``'s)
through :func:`bench.harness.suite.runner_finals`, and sets the ``candidate`` against the ``base``
on every problem both ran, over their common seeds: the medians of the final simple regret, the
95 % bootstrap interval of their difference (beyond noise when it excludes 0,
:func:`bench.harness.report.median_difference_interval`) and the worst decile (the 90th
percentile over seeds). The rule (registered in ``bench/notes/bbob.md``, "The trust region as
`auto`'s default", before any of its judges ran) adopts the candidate when, over the problems:

1. it is lower beyond noise on more problems than it is higher beyond noise;
2. its median is lower on at least half of the problems where the two medians differ;
3. its worst decile is higher on no more problems than it is lower.

    python -m bench.screens.trust_default bench/results/trust_judge_d2.jsonl bench/results/trust_judge_d5.jsonl \\
        bench/results/trust_judge_d10.jsonl bench/results/trust_judge_shifted.jsonl --candidate tf-auto-trust --base tf-auto
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..harness.report import median_difference_interval
from ..harness.suite import Finals, merge, runner_finals


class Line(NamedTuple):
    """One problem's comparison over the seeds both methods ran."""

    problem: str
    seeds: int
    candidate: float
    base: float
    interval: tuple[float, float]
    worst_candidate: float
    worst_base: float

    @property
    def verdict(self) -> str:
        lo, hi = self.interval
        return "lower" if hi < 0 else "higher" if lo > 0 else "within noise"


class Counts(NamedTuple):
    """What the rule reads: beyond noise either way, lower medians among those that differ, tails either way."""

    lower: int
    higher: int
    lower_median: int
    differ: int
    lower_tail: int
    higher_tail: int

    @property
    def adopted(self) -> bool:
        """The registered rule (the module's docstring)."""
        return self.lower > self.higher and 2 * self.lower_median >= self.differ and self.higher_tail <= self.lower_tail


def judge(finals: Finals, candidate: str, base: str, n_boot: int = 2000) -> list[Line]:
    """One line per problem both methods ran, over their common seeds."""
    rng = np.random.default_rng(0)
    lines = []
    for problem in sorted({p for p, m in finals if m == candidate and (p, base) in finals}):
        a, b = finals[(problem, candidate)], finals[(problem, base)]
        seeds = sorted(set(a) & set(b))
        x, y = np.array([a[s] for s in seeds]), np.array([b[s] for s in seeds])
        lines.append(Line(
            problem, len(seeds), float(np.median(x)), float(np.median(y)),
            median_difference_interval(x, y, rng, n_boot=n_boot),
            float(np.percentile(x, 90)), float(np.percentile(y, 90)),
        ))
    return lines


def counts(lines: Sequence[Line]) -> Counts:
    differ = [line for line in lines if line.candidate != line.base]
    return Counts(
        lower=sum(line.verdict == "lower" for line in lines),
        higher=sum(line.verdict == "higher" for line in lines),
        lower_median=sum(line.candidate < line.base for line in differ),
        differ=len(differ),
        lower_tail=sum(line.worst_candidate < line.worst_base for line in lines),
        higher_tail=sum(line.worst_candidate > line.worst_base for line in lines),
    )


def table(lines: Sequence[Line], candidate: str, base: str) -> str:
    """The judgement as a Markdown table, the counts the rule reads and its verdict."""
    out = [
        f"| problem | seeds | {candidate} | {base} | difference [95 %] | verdict | worst decile {candidate} | "
        f"worst decile {base} |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for line in lines:
        lo, hi = line.interval
        out.append(
            f"| {line.problem} | {line.seeds} | {line.candidate:.4g} | {line.base:.4g} | [{lo:.3g}, {hi:.3g}] | "
            f"{line.verdict} | {line.worst_candidate:.4g} | {line.worst_base:.4g} |"
        )
    c = counts(lines)
    out += [
        "",
        f"{len(lines)} problems: lower beyond noise on {c.lower}, higher beyond noise on {c.higher}; lower median on "
        f"{c.lower_median} of {c.differ} where the medians differ; worst decile lower on {c.lower_tail}, higher on "
        f"{c.higher_tail}.",
        "",
        "The rule: " + ("adopted" if c.adopted else "not adopted"),
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.screens.trust_default")
    parser.add_argument("rows", type=Path, nargs="+")
    parser.add_argument("--candidate", default="tf-auto-trust")
    parser.add_argument("--base", default="tf-auto")
    args = parser.parse_args(argv)
    names = {args.candidate: args.candidate, args.base: args.base}
    finals = merge(*(runner_finals(str(path.resolve()), names) for path in args.rows))
    print(table(judge(finals, args.candidate, args.base), args.candidate, args.base))
    return 0


if __name__ == "__main__":
    sys.exit(main())
