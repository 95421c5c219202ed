"""``treefarm show STORAGE --study NAME``: a study's trials, counts by state, hints and best."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from ..fidelity import stored_full_fidelity
from ..storage import Storage, open_storage
from ..study.state.objectives import feasible_front
from ..study.state.rows import full_evaluations, trial_rows, value_columns
from ..study.state.warm import GATE_TRIALS, gate_open, warm_source
from .arguments import RETRY_DEADLINE_HELP, deadline_option, positive_float, positive_int, storage_argument
from .command import Command
from .tidy import as_found

__all__ = ["COMMAND", "cmd_show"]


def _table(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    cells = [[str(c) for c in columns]]
    cells += [
        ["" if r.get(c) is None else f"{r[c]:.6g}" if isinstance(r[c], float) else str(r[c]) for c in columns]
        for r in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in cells)


def _one_line(text: Any, width: int = 80) -> Any:
    if not isinstance(text, str):
        return text
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


#: The spread of a fold x replica objective (``evaluate_folds``), shown when stored.
FOLD_COLUMNS = ("user_attrs.bias", "user_attrs.variance", "user_attrs.std")


#: When a warm start's region hints count (treefarm.study.state.warm.gate_open), for ``show``.
GATE_HELP = (
    f"a warm start's region hints count once {GATE_TRIALS} trials are complete and while "
    "the source's best, evaluated here, ranks in the better half"
)


def cmd_show(args: argparse.Namespace) -> int:
    with as_found(args.storage) as location, open_storage(location, **deadline_option(args)) as storage:
        return _show(storage, args)


def _show(storage: Storage, args: argparse.Namespace) -> int:
    record = storage.get_study(args.study)
    trials = storage.get_trials(record.study_id)
    objectives = record.objectives
    full = stored_full_fidelity(record.attrs)
    rows = trial_rows(trials, objectives, full_fidelity=full)
    for row in rows:
        row["reason"] = _one_line(row.get("fail_reason"))
    several = objectives.several
    columns = ["number", "state", *(value_columns(objectives) or ["value"])]
    columns += ["duration"]
    columns += [c for c in ("feasible",) if any(r.get(c) is not None for r in rows)]
    columns += [c for c in ("last_step", "fidelity", "continues", "resumed", *FOLD_COLUMNS) if any(r.get(c) is not None for r in rows)]
    columns += ["cost"] if any(r["cost"] for r in rows) else []
    columns += sorted({k for r in rows for k in r if k.startswith("params.")})
    columns += ["reason"] if any(r["reason"] for r in rows) else []
    print(_table(rows[-args.last :] if args.last else rows, columns))
    counts: dict[str, int] = {}
    for t in trials:
        counts[t.state.value] = counts.get(t.state.value, 0) + 1
    print("\nstates: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if any(t.cost for t in trials):
        print(f"cost spent: {sum(t.cost for t in trials):g}")
    sign = objectives.sign(0)
    for h in storage.get_hints(record.study_id):
        kind = "bad" if h.weight < 0 else "good"
        source = warm_source(h.author)
        shut = source is not None and not gate_open(source, trials, sign)
        note = f"; not counted now: {GATE_HELP}" if shut else ""
        print(
            f"hint {h.hint_id} ({kind}, credibility {h.credibility:g}, by {h.author}{note}): "
            f"{json.dumps(dict(h.config))}"
        )
    complete = [t for t in full_evaluations(trials, full) if t.value is not None]
    if several:
        front = feasible_front(complete, objectives)
        print(f"Pareto front ({objectives.describe()}): trials {[t.number for t in front]}")
        for t in front:
            shown = ", ".join(f"{label}={v!r}" for label, v in zip(objectives.labels, t.values or ()))
            print(f"  trial {t.number}: {shown}")
    elif complete:
        best = feasible_front(complete, objectives)[0]
        print(f"best: trial {best.number} {objectives.label()} {best.value!r} config {json.dumps(dict(best.params))}")
    return 0


def _arguments(show: argparse.ArgumentParser) -> None:
    storage_argument(show)
    show.add_argument("--study", required=True)
    show.add_argument("--last", type=positive_int, default=None, help="only the last N trials")
    show.add_argument("--retry-deadline", type=positive_float, default=None, help=RETRY_DEADLINE_HELP)


COMMAND = Command("show", "a study's trials, counts by state and best", _arguments, cmd_show)
