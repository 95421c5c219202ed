"""A suite: which committed rows make one table of the report, and the commands that made them.

A suite reads its rows from ``bench/results/`` into *finals*: for each
(problem, method) the final value of every seed (lower is better: a simple
regret, an error, seconds). Rows come in two shapes, both JSON lines:

- the runner's (``python -m bench run``, ``python -m bench.harness.bbob run``):
  ``problem``, ``method``, ``seed``, ``status`` and the ``losses`` of the run;
- the screen's (``python -m bench.harness.screen run``): ``problem``, ``dim``,
  ``seed``, ``variant`` and the best-so-far ``regret`` curve.

Suites with rows of their own shape (hints, pruning, overhead, many workers)
give their own loader. When two files hold the same (problem, method, seed),
the later file in the suite's list wins, as in the screen's report.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .paths import RESULTS

#: (problem, method) -> seed -> final value (lower is better).
Finals = dict[tuple[str, str], dict[int, float]]


@dataclass(frozen=True)
class Suite:
    """One table of the report.

    ``ours`` is the method every other column is tested against; ``columns``
    fixes the order of the methods (those without rows are left out);
    ``files`` are the rows' files in ``bench/results/`` (for the commits they
    measured); ``commands`` made those rows (each resumable: it runs only
    what the file does not hold); ``held_out`` marks problems kept out of
    the design decisions, reported apart from the ones they were tuned on;
    ``resolved_only`` lists only the problems where a method differs from
    ``ours`` beyond noise (a suite of many problems with two methods, whose
    other rows are counted, not shown); ``notes``, when given, makes text
    shown under the table from the same finals (counts the table of medians
    does not show)."""

    name: str
    title: str
    about: str
    measure: str
    ours: str
    columns: tuple[str, ...]
    files: tuple[str, ...]
    commands: tuple[str, ...]
    load: Callable[[], Finals]
    held_out: bool = False
    headline: bool = field(default=False)
    resolved_only: bool = False
    notes: Callable[[Finals], str] | None = None


def lines(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON rows of a file (a torn last line from a killed run is skipped)."""
    with path.open() as fh:
        for line in fh:
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    continue


def merge(*parts: Finals) -> Finals:
    """Later parts win on the same (problem, method, seed)."""
    out: Finals = {}
    for part in parts:
        for key, seeds in part.items():
            out.setdefault(key, {}).update(seeds)
    return out


def keep(finals: Finals, *, problems: Sequence[str] | None = None, seeds: range | None = None) -> Finals:
    """Only ``problems`` (labels) and ``seeds``, when given."""
    out: Finals = {}
    for (p, m), values in finals.items():
        if problems is not None and p not in problems:
            continue
        kept = {s: v for s, v in values.items() if seeds is None or s in seeds}
        if kept:
            out[(p, m)] = kept
    return out


def complete(finals: Finals, seeds: range) -> Finals:
    """Only the (problem, method) cells that hold every one of ``seeds``: a run still
    under way shows nothing rather than a median of the seeds it has reached."""
    return {key: values for key, values in finals.items() if set(seeds) <= set(values)}


def _field(line: str, name: str) -> str | None:
    """A string field of a JSON line, read without parsing the line (the rows'
    curves make parsing the cost of a report, so rows of other methods are
    skipped unread); ``None`` when absent or not a plain string."""
    key = f'"{name}": "'
    start = line.find(key)
    if start < 0:
        return None
    start += len(key)
    end = line.find('"', start)
    value = line[start:end]
    return None if "\\" in value else value


def _rows_of(path: Path, field_name: str, wanted: Collection[str]) -> Iterator[dict[str, Any]]:
    """The rows of ``path`` whose ``field_name`` is one of ``wanted``."""
    with path.open() as fh:
        for line in fh:
            if _field(line, field_name) in wanted:
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    continue


def screen_finals(file: str, names: Mapping[str, str], *, dims: Sequence[int] | None = None) -> Finals:
    """Final regrets of a screen file's ``names`` (variant -> column); a BBOB
    problem is labelled ``f{n} {dim}-d``, a named one by its name."""
    out: Finals = {}
    for r in _rows_of(RESULTS / file, "variant", names):
        if dims is not None and r["dim"] not in dims:
            continue
        problem = r["problem"] if r["dim"] == 0 else f"{r['problem']} {r['dim']}-d"
        out.setdefault((problem, names[r["variant"]]), {})[int(r["seed"])] = float(r["regret"][-1])
    return out


_BBOB = re.compile(r"bbob_f(\d+)_i\d+_d(\d+)")
_MIXINT = re.compile(r"mixint_f(\d+)_i\d+_d(\d+)")


def runner_finals(file: str, names: Mapping[str, str], *, budget: int | None = None) -> Finals:
    """Final regrets (best loss of the first ``budget`` losses minus the
    problem's optimum, 0 where none is known) of a runner file's successful
    rows of ``names`` (method -> column); BBOB and bbob-mixint instances pooled by function
    (labelled ``f3 5-d`` and ``mixint 5-d f3``)."""
    from .bbob import bbob_problems
    from .problems import all_problems

    problems = all_problems()
    bbob: dict[str, Any] = {}
    out: Finals = {}
    for r in _rows_of(RESULTS / file, "method", names):
        label = names[r["method"]]
        if r.get("status") != "ok" or not r.get("losses"):
            continue
        match = _BBOB.fullmatch(r["problem"])
        mixint = _MIXINT.fullmatch(r["problem"])
        if match:
            problem = f"f{int(match[1])} {int(match[2])}-d"
            bbob = bbob or bbob_problems()
            optimum = bbob[r["problem"]].optimum
        elif mixint:
            problem, optimum = f"mixint {int(mixint[2])}-d f{int(mixint[1])}", problems[r["problem"]].optimum
        else:
            problem, optimum = r["problem"], problems[r["problem"]].optimum if r["problem"] in problems else None
        losses = np.asarray(r["losses"][:budget], dtype=float)
        out.setdefault((problem, label), {})[int(r["seed"])] = float(losses.min() - (optimum or 0.0))
    return out


def file_commits(file: str) -> list[str]:
    """The commits recorded in a file's rows, most rows first (empty when its rows record none)."""
    counts: dict[str, int] = {}
    with (RESULTS / file).open() as fh:
        for line in fh:
            commit = _field(line, "commit")
            if commit:
                counts[commit] = counts.get(commit, 0) + 1
    return sorted(counts, key=lambda c: (-counts[c], c))
