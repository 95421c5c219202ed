"""The dashboard's JSON for what a person acts on: the relationship of two parameters,
the GP's posterior at one trial, hints where they sit on the slices, several studies
on one chart (see :mod:`.payloads` for the plots of one study)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import viz
from ..exceptions import ConfigError, format_values
from ..objectives import Objectives
from ..storage import HintRecord, StudyRecord, TrialRecord
from ..storage.checks import json_floats
from ..storage.pages import TrialSummary
from ..viz.front import front
from ..viz.history import _even
from ..viz.params import columns
from ..viz.posterior import gp_posteriors
from ..viz.relationship import relationship as relationship_data
from ..viz.source import complete_trials
from .payloads import estimated_on

__all__ = [
    "MAX_FRONT_LISTED",
    "MAX_FRONT_POINTS",
    "comparison",
    "front_summary",
    "hint_row",
    "hints_on_slices",
    "pareto",
    "relationship",
    "study_entry",
    "trial_posterior",
]

MAX_FRONT_POINTS = 5_000
"""Past this many completed trials the Pareto view draws every trial on the front and
every infeasible one up to the budget, and evenly spaced others."""


MAX_FRONT_LISTED = 10
"""How many trials of a study's front the studies list names (the Pareto view shows them all)."""


def study_entry(record: StudyRecord, summary: TrialSummary, front: dict[str, Any] | None = None) -> dict[str, Any]:
    """A study in the studies list: its objectives by name, its counts, and its best value
    (one objective) or its feasible front (several: ``front``, :func:`front_summary`)."""
    objectives = record.objectives
    best = None
    if not objectives.several and summary.min_value is not None and summary.max_value is not None:
        best = objectives.best([summary.min_value, summary.max_value])
    return {
        "id": record.study_id,
        "name": record.name,
        "direction": record.direction,
        "directions": list(record.directions),
        "objectives": objectives.as_json(),
        "counts": summary.counts,
        "total": summary.total,
        "best": best,
        "front": front,
    }


def front_summary(trials: Sequence[TrialRecord], objectives: Objectives) -> dict[str, Any]:
    """The feasible front of a study with several objectives: its size and its first
    :data:`MAX_FRONT_LISTED` trials (by number) with their values."""
    f = front(trials, objectives)
    on = np.flatnonzero(f.on_front)
    listed = [{"number": int(f.numbers[k]), "values": json_floats(f.values[k])} for k in on[:MAX_FRONT_LISTED]]
    return {"size": len(on), "trials": listed}


def relationship(trials: Sequence[TrialRecord], direction: str, param: str) -> dict[str, Any]:
    """``param`` is ``"x,y"``; empty (or one address) picks the first two parameters
    (estimated on :func:`.payloads.estimated_on`'s trials)."""
    complete = len(complete_trials(trials))
    trials = estimated_on(trials)
    addresses = [c.address for c in columns(trials)]
    wanted = [a for a in param.split(",") if a] if param else []
    if len(addresses) < 2:
        return {"options": addresses, "addresses": None}
    x, y = (wanted + [a for a in addresses if a not in wanted])[:2]
    r = relationship_data(trials, x, y, direction=direction)
    return {
        "options": addresses,
        "addresses": list(r.addresses),
        "mean_rank": [json_floats(row) for row in r.mean_rank],
        "good": r.good.tolist(),
        "x": json_floats(r.x),
        "y": json_floats(r.y),
        "ticks": [[list(pos), labels] for pos, labels in r.ticks],
        "shown": r.shown,
        "total": r.total,
        "estimated_on": len(trials),
        "complete": complete,
    }


def trial_posterior(trials: Sequence[TrialRecord], direction: str, number: int) -> dict[str, Any]:
    """The GP's posterior along each numeric parameter, the others at trial ``number``."""
    done = complete_trials(trials)
    if len(done) < 3 or not any(t.number == number for t in done):
        return {
            "slices": [],
            "note": "the GP is drawn at a complete trial of a study with 3 complete trials or more",
        }
    found = gp_posteriors(trials, direction=direction, at=number, n_grid=100)
    if not found:
        return {"slices": [], "note": "no numeric parameter is active in every complete trial"}
    by_number = {t.number: t for t in done}
    return {
        "slices": [
            {
                "address": p.address,
                "grid": json_floats(p.grid),
                "mean": json_floats(p.mean),
                "low": json_floats(p.mean - 1.96 * p.std),
                "high": json_floats(p.mean + 1.96 * p.std),
                "log": p.log,
                "here": by_number[number].params.get(p.address),
            }
            for p in found
        ],
        "note": f"one GP fitted to {found[0].shown} of {found[0].total} complete trials; the others held at trial {number}",
    }


def hint_row(h: HintRecord) -> dict[str, Any]:
    return {
        "id": h.hint_id,
        "config": dict(h.config),
        "credibility": h.credibility,
        "bad": h.weight < 0,
        "spread": h.spread,
        "author": h.author,
        "created": h.created,
    }


def hints_on_slices(slices: dict[str, Any], hints: Sequence[HintRecord]) -> dict[str, Any]:
    """The slices payload with, per slice, the hints that state its parameter: the stated
    value and, for a number, the window its ``spread`` spans on the observed range
    (the space's own range is not stored, so the observed one stands in for it)."""
    out = []
    for s in slices["slices"]:
        marks = []
        xs = [v for v in s["x"] if v is not None]
        for h in hints:
            value = h.config.get(s["address"])
            if value is None:
                continue
            mark: dict[str, Any] = {"id": h.hint_id, "bad": h.weight < 0, "credibility": h.credibility, "value": value}
            if s["categories"]:
                mark["x"] = s["categories"].index(str(value)) if str(value) in s["categories"] else None
            elif isinstance(value, (int, float)) and xs and not isinstance(value, bool):
                mark["x"] = float(value)
                mark["window"] = _window(float(value), h.spread, min(xs), max(xs), bool(s["log"]))
            marks.append(mark)
        out.append({**s, "hints": marks})
    return {"slices": out}


def _window(value: float, spread: float, lo: float, hi: float, log: bool) -> list[float]:
    if log and value > 0 and lo > 0:
        half = spread / 2 * (math.log(hi) - math.log(lo))
        return [math.exp(math.log(value) - half), math.exp(math.log(value) + half)]
    half = spread / 2 * (hi - lo)
    return [value - half, value + half]


def comparison(studies: Sequence[tuple[str, str, Sequence[TrialRecord]]]) -> dict[str, Any]:
    """The best value so far of each (name, direction, trials) over the trial number."""
    if len(studies) < 2:
        raise ConfigError(
            f"a comparison needs two studies or more, but got {format_values(studies=len(studies))}"
        )
    out = []
    for name, direction, trials in studies:
        c = viz.convergence(trials, direction=direction)
        steps = np.append(c.best_x, c.x[-1] if len(c.x) else [])
        best = np.append(c.best, c.best[-1] if len(c.best) else [])
        out.append({"name": name, "direction": direction, "x": json_floats(steps), "best": json_floats(best)})
    return {"studies": out}


def pareto(trials: Sequence[TrialRecord], objectives: Objectives, param: str) -> dict[str, Any]:
    """Two objectives of a study with several (``param`` is ``"i,j"``, default ``"0,1"``):
    every completed trial's values, which are feasible and which on the feasible front."""
    m = len(objectives)
    if m < 2:
        return {"objectives": None, "count": m}
    try:
        i, j = (int(part) for part in (param or "0,1").split(","))
    except ValueError:
        raise ConfigError(f"param must be two objective indices as 'i,j', but got {format_values(param=param[:100])}") from None
    if not (0 <= i < m and 0 <= j < m and i != j):
        raise ConfigError(f"param must name two different objectives below {m}, but got {format_values(param=param)}")
    f = front(trials, objectives)
    keep = np.flatnonzero(f.on_front | ~f.feasible)[:MAX_FRONT_POINTS]
    rest = np.flatnonzero(~f.on_front & f.feasible)
    rest = rest[_even(len(rest), max(0, MAX_FRONT_POINTS - len(keep)))] if len(rest) else rest
    shown = np.sort(np.concatenate([keep, rest])).astype(int)
    return {
        "objectives": [i, j],
        "count": m,
        "directions": [objectives.directions[i], objectives.directions[j]],
        "labels": [objectives.label(i), objectives.label(j)],
        "numbers": f.numbers[shown].tolist(),
        "x": json_floats(f.values[shown, i]),
        "y": json_floats(f.values[shown, j]),
        "feasible": f.feasible[shown].tolist(),
        "on_front": f.on_front[shown].tolist(),
        "front_size": int(f.on_front.sum()),
        "shown": len(shown),
        "total": len(f.numbers),
    }
