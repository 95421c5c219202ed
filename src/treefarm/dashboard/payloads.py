"""The dashboard's JSON: trials and the data of each plot, from the functions of :mod:`treefarm.viz`.

JSON has no NaN or infinity; they travel as ``null`` (a blank in a chart).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .. import viz
from ..exceptions import ConfigError, TreefarmError, format_values
from ..storage import NoteRecord, TrialRecord
from ..storage.checks import json_floats
from ..study.state import artifacts as stored_artifacts
from ..viz.history import _even
from ..viz.posterior import numeric_addresses
from ..viz.source import complete_trials
from ..viz.structures import trial_expression

__all__ = [
    "MAX_ESTIMATED",
    "PLOTS",
    "artifact_entry",
    "estimated_on",
    "page_query",
    "study_ids",
    "trial_detail",
    "trial_row",
]


def _number(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _int(params: Mapping[str, str], name: str, default: int) -> int:
    text = params.get(name)
    try:
        return default if text in (None, "") else int(text)
    except ValueError:
        raise TreefarmError(f"{name} must be an integer, but got {name}={text!r}") from None


def _float(params: Mapping[str, str], name: str) -> float | None:
    text = params.get(name)
    try:
        return None if text in (None, "") else float(text)
    except ValueError:
        raise TreefarmError(f"{name} must be a number, but got {name}={text!r}") from None


def _flag(params: Mapping[str, str], name: str) -> bool:
    text = params.get(name) or "false"
    if text not in ("true", "false"):
        raise TreefarmError(f"{name} must be true or false, but got {format_values(**{name: text[:100]})}")
    return text == "true"


def page_query(params: Mapping[str, str]) -> dict[str, Any]:
    """The arguments of :meth:`~treefarm.storage.Storage.trial_page` from the table's query:
    offset, limit, order_by, descending, state (comma-separated), value_min, value_max."""
    state = params.get("state") or None
    return {
        "offset": _int(params, "offset", 0),
        "limit": _int(params, "limit", 50),
        "order_by": params.get("order_by", "number"),
        "descending": _flag(params, "descending"),
        "states": None if state is None else state.split(","),
        "value_min": _float(params, "value_min"),
        "value_max": _float(params, "value_max"),
    }


def study_ids(text: str) -> list[int]:
    """The study ids of ``?studies=1,2``."""
    try:
        return [int(part) for part in text.split(",") if part]
    except ValueError:
        raise TreefarmError(
            f"studies must be study ids separated by commas, but got studies={text[:100]!r}"
        ) from None


def artifact_entry(t: TrialRecord, name: str, *, served: bool) -> tuple[dict[str, Any] | None, str]:
    """The trial's artifact ``name`` as listed in the trial, and what to answer without
    it (or when the dashboard was not given the artifact store: not ``served``)."""
    entry = next((e for e in stored_artifacts.records(t.user_attrs) if e.get("name") == name), None)
    why = "the dashboard was not given the artifact store" if entry is not None else "the trial lists no artifact of that name"
    return entry, f"{why}, but got {format_values(number=t.number, name=name[:200])}"


def trial_row(t: TrialRecord) -> dict[str, Any]:
    """One row of the trials table."""
    duration = t.finished - t.started if t.finished is not None and t.started is not None else None
    shown = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in t.params.items())
    return {
        "number": t.number,
        "state": t.state.value,
        "value": _number(t.value),
        "values": None if t.values is None else [_number(v) for v in t.values],
        "duration": duration,
        "finished": t.finished,
        "params": shown,
    }


def note_json(note: NoteRecord) -> dict[str, Any]:
    """A stored note as the page shows it."""
    return {"author": note.author, "time": note.created, "text": note.text, "trial": note.trial}


def trial_detail(t: TrialRecord) -> dict[str, Any]:
    """Everything about one trial: configuration, expression, failure, attributes, curve,
    what it cost, the fidelity it was evaluated at, the trial it continues and whether it
    resumed from that trial's checkpoint, and with several objectives its
    values, constraints and whether it is feasible."""
    expression, depth = trial_expression(t)
    steps = sorted(t.intermediate)
    return {
        **trial_row(t),
        "config": dict(t.params),
        "expression": expression,
        "depth": depth,
        "fail_reason": t.system_attrs.get("fail_reason"),
        "user_attrs": dict(t.user_attrs),
        "system_attrs": dict(t.system_attrs),
        "started": t.started,
        "values": None if t.values is None else json_floats(list(t.values)),
        "constraints": None if t.constraints is None else json_floats(list(t.constraints)),
        "feasible": t.feasible,
        "cost": t.cost,
        "fidelity": t.system_attrs.get("fidelity"),
        "continues": t.system_attrs.get("continues"),
        "resumed": t.system_attrs.get("resumed") is True,
        "intermediate": {"steps": steps, "values": json_floats([t.intermediate[s] for s in steps])},
    }


def convergence(trials: Sequence[TrialRecord], direction: str, param: str) -> dict[str, Any]:
    c = viz.convergence(trials, direction=direction, axis=param or "number")
    return {
        "x": json_floats(c.x),
        "value": json_floats(c.value),
        "best_x": json_floats(c.best_x),
        "best": json_floats(c.best),
        "axis": c.axis,
        "shown": c.shown,
        "total": c.total,
    }


def slices(trials: Sequence[TrialRecord], direction: str, param: str) -> dict[str, Any]:
    out = []
    for s in viz.slices(trials):
        order = np.argsort(s.x, kind="stable")
        out.append(
            {
                "address": s.column.address,
                "categories": list(s.column.categories),
                "log": s.column.log,
                "x": json_floats(s.x[order]),
                "y": json_floats(s.y[order]),
                "shown": s.shown,
                "total": s.total,
            }
        )
    return {"slices": out}


MAX_ESTIMATED = 20_000
"""Above this many complete trials, importance and the two-parameter view are estimated
on that many evenly spaced ones: the estimates barely move (a share of variance from
20,000 trials has a standard error near 0.01) and the view stays within a second."""


def estimated_on(trials: Sequence[TrialRecord]) -> list[TrialRecord]:
    """At most :data:`MAX_ESTIMATED` complete trials of ``trials``, evenly spaced by number."""
    done = complete_trials(trials)
    return [done[i] for i in _even(len(done), MAX_ESTIMATED)]


def importance(trials: Sequence[TrialRecord], direction: str, param: str) -> dict[str, Any]:
    sample = estimated_on(trials)
    scores = viz.importance(sample, direction=direction)
    return {"scores": [[a, v] for a, v in scores], "shown": len(sample), "total": len(complete_trials(trials))}


def parallel(trials: Sequence[TrialRecord], direction: str, param: str) -> dict[str, Any]:
    p = viz.parallel_coordinates(trials, direction=direction)
    return {
        "addresses": p.addresses,
        "unit": json_floats(p.unit) if len(p.values) else [],
        "values": json_floats(p.values),
        "ticks": [[list(pos), labels] for pos, labels in p.ticks],
        "shown": p.shown,
        "total": p.total,
    }


def intermediate(trials: Sequence[TrialRecord], direction: str, param: str) -> dict[str, Any]:
    c = viz.intermediate_curves(trials, direction=direction, max_curves=50)
    return {
        "numbers": c.numbers,
        "steps": [json_floats(s) for s in c.steps],
        "values": [json_floats(v) for v in c.values],
        "shown": c.shown,
        "total": c.total,
    }


def structures(trials: Sequence[TrialRecord], direction: str, param: str) -> dict[str, Any]:
    rows = viz.best_structures(trials, direction=direction, k=20)
    return {
        "rows": [
            {"number": r.number, "expression": r.expression, "depth": r.depth, "value": r.value} for r in rows
        ]
    }


def gp(trials: Sequence[TrialRecord], direction: str, param: str) -> dict[str, Any]:
    options = numeric_addresses(trials)
    if len(complete_trials(trials)) < 3 or not options:
        return {"options": options, "address": None}
    known = {address for t in trials for address in t.params}
    if param and param not in known:  # a categorical one is answered with a numeric one
        raise ConfigError(f"param must be one of the parameters {sorted(known)[:50]}, but got {format_values(param=param[:100])}")
    address = param if param in options else options[0]
    p = viz.gp_posterior(trials, address, direction=direction)
    return {
        "options": options,
        "address": address,
        "grid": json_floats(p.grid),
        "mean": json_floats(p.mean),
        "low": json_floats(p.mean - 1.96 * p.std),
        "high": json_floats(p.mean + 1.96 * p.std),
        "acquisition": json_floats(p.acquisition),
        "log": p.log,
        "at": p.at,
        "shown": p.shown,
        "total": p.total,
    }


PLOTS: dict[str, Callable[[Sequence[TrialRecord], str, str], dict[str, Any]]] = {
    "convergence": convergence,
    "slices": slices,
    "importance": importance,
    "parallel": parallel,
    "intermediate": intermediate,
    "structures": structures,
    "gp": gp,
}
"""The plot kinds the dashboard serves: name -> (trials, direction, param) -> JSON data."""
