"""Trials as flat rows, for tables, CSV, JSON and pandas."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...fidelity import recorded_fidelity
from ...objectives import Objectives
from ...storage import TrialRecord, TrialState
from .objectives import feasible_front

__all__ = ["ROW_COLUMNS", "full_evaluations", "trial_rows", "value_columns"]


#: The columns every exported trial has, before its ``params.*`` and ``user_attrs.*``.
ROW_COLUMNS = (
    "number", "state", "value", "started", "finished", "duration", "last_step", "fidelity", "continues", "resumed",
    "cost", "fail_reason",
)  # fmt: skip


def value_columns(objectives: Objectives) -> tuple[str, ...]:
    """The columns of the objectives' values beside ``value`` (the first): one per
    objective by name (``values.error``), or ``values.<i>`` for several unnamed
    objectives; none for one unnamed objective."""
    if objectives.names is not None:
        return tuple(f"values.{name}" for name in objectives.names)
    if objectives.several:
        return tuple(f"values.{i}" for i in range(len(objectives)))
    return ()


def full_evaluations(records: Sequence[TrialRecord], full_fidelity: float | None = None) -> list[TrialRecord]:
    """The completed trials that are results: evaluated at ``full_fidelity`` (a declared
    fidelity's ``high``), or at no recorded fidelity."""
    return [
        r
        for r in records
        if r.state is TrialState.COMPLETE and recorded_fidelity(r.system_attrs) in (None, full_fidelity)
    ]


def trial_rows(
    records: Sequence[TrialRecord], objectives: Objectives | None = None, *, full_fidelity: float | None = None
) -> list[dict[str, Any]]:
    """One flat dict per trial: number, state, value, timing, the last reported step, the
    fidelity it was evaluated at (None: full), the trial it continues (a promotion) and
    whether it resumed from that trial's checkpoint, and what it cost,
    ``params.<address>``, ``user_attrs.<key>`` and the failure reason, in a stable column order.
    The objectives' values follow in :func:`value_columns` (``value`` is the first; without
    ``objectives``, a trial with several values adds ``values.<i>``); a trial with
    constraints adds ``constraints.<i>`` and ``feasible``. With several ``objectives``,
    ``front`` says whether the trial is on the feasible Pareto front of the full
    evaluations (:func:`full_evaluations`; None for a trial that is not one)."""
    front = None
    if objectives is not None and objectives.several:
        full = full_evaluations(records, full_fidelity)
        front = ({r.number for r in feasible_front(full, objectives)}, {r.number for r in full})
    rows = []
    for r in records:
        duration = r.finished - r.started if r.finished is not None and r.started is not None else None
        row: dict[str, Any] = {
            "number": r.number,
            "state": r.state.value,
            "value": r.value,
            "started": r.started,
            "finished": r.finished,
            "duration": duration,
            "last_step": max(r.intermediate) if r.intermediate else None,
            "fidelity": r.system_attrs.get("fidelity"),
            "continues": r.system_attrs.get("continues"),
            "resumed": r.system_attrs.get("resumed") is True if "continues" in r.system_attrs else None,
            "cost": r.cost,
            "fail_reason": r.system_attrs.get("fail_reason"),
        }
        columns = value_columns(objectives) if objectives is not None else _unnamed(r)
        row.update(zip(columns, r.values or (None,) * len(columns)))
        if front is not None:
            row["front"] = r.number in front[0] if r.number in front[1] else None
        if r.constraints is not None:
            row.update({f"constraints.{i}": c for i, c in enumerate(r.constraints)})
            row["feasible"] = r.feasible
        row.update({f"params.{k}": v for k, v in r.params.items()})
        row.update({f"user_attrs.{k}": v for k, v in r.user_attrs.items()})
        rows.append(row)
    return rows


def _unnamed(record: TrialRecord) -> tuple[str, ...]:
    n = len(record.values or ())
    return tuple(f"values.{i}" for i in range(n)) if n > 1 else ()
