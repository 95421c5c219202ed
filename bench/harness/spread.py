"""The spread of a suite's finals over seeds, beside the medians the tables show.

A median over ten seeds hides a method whose outcome is bimodal (most seeds
solve the problem, one in five stalls), and a user runs one seed. For each
problem and method: the interquartile range (75th minus 25th percentile) and
the worst decile (the 90th percentile of the final value, lower is better, so
the worst tenth of the seeds lies above it; NumPy's linear interpolation,
between the two worst of ten seeds). Under the table: on how many problems
the suite's own method's worst decile is no worse than the best other
method's worst decile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .suite import Finals
from .summary import fmt, problems_of


def quantiles(values: Sequence[float]) -> tuple[float, float]:
    """(interquartile range, worst decile) of a method's finals on one problem."""
    q25, q75, q90 = np.percentile(np.asarray(values, dtype=float), [25, 75, 90])
    return float(q75 - q25), float(q90)


def spread_table(finals: Finals, ours: str, columns: Sequence[str], *, full: bool = True) -> str:
    """The table of interquartile ranges and worst deciles (without it when not ``full``), and
    ``ours``'s count of problems where its worst decile is no worse than every other method's best one."""
    present = {m for _, m in finals}
    methods = [m for m in columns if m in present] + sorted(present - set(columns))
    problems = problems_of(finals)
    out = ["Spread over seeds: interquartile range / worst decile (90th percentile) of the final value.", "",
           "|problem|" + "|".join(methods) + "|", "|---" * (len(methods) + 1) + "|"]
    held, compared = 0, 0
    for p in problems:
        cells, worst = [], {}
        for m in methods:
            seeds = finals.get((p, m))
            if not seeds or len(seeds) < 5:
                cells.append("·")
                continue
            iqr, decile = quantiles(list(seeds.values()))
            worst[m] = decile
            cells.append(f"{fmt(iqr)} / {fmt(decile)}")
        others = [v for m, v in worst.items() if m != ours]
        if ours in worst and others:
            compared += 1
            held += worst[ours] <= min(others)
        out.append(f"|{p}|" + "|".join(cells) + "|")
    count = (f"{ours}'s worst decile (90th percentile over seeds) is no worse than the best other method's on "
             f"{held} of {compared} problems (methods of 5+ seeds).")
    if not full:
        return f"Spread over seeds: {count}" if compared else ""
    return "\n".join([*out, *(["", count] if compared else [])])


def spread_notes(ours: str, columns: Sequence[str], *, full: bool = True) -> Callable[[Finals], str]:
    """A suite's ``notes``: :func:`spread_table` of its finals (only its count when not ``full``:
    the report of many suites stays short)."""
    return lambda finals: spread_table(finals, ours, columns, full=full)


def joined(*notes: Callable[[Finals], str]) -> Callable[[Finals], str]:
    """A suite's ``notes`` made of several, in order, the empty ones left out."""
    return lambda finals: "\n\n".join(text for text in (note(finals) for note in notes) if text)
