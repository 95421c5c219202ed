"""Trials as flat rows, for tables, CSV, JSON and pandas."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..storage import TrialRecord

__all__ = ["ROW_COLUMNS", "trial_rows"]


#: The columns every exported trial has, before its ``params.*`` and ``user_attrs.*``.
ROW_COLUMNS = (
    "number", "state", "value", "started", "finished", "duration", "last_step", "fidelity", "cost", "fail_reason",
)  # fmt: skip


def trial_rows(records: Sequence[TrialRecord]) -> list[dict[str, Any]]:
    """One flat dict per trial: number, state, value, timing, the last reported step, the
    fidelity it was evaluated at (None: full) and what it cost,
    ``params.<address>``, ``user_attrs.<key>`` and the failure reason, in a stable column order.
    A trial with several objectives adds ``values.<i>`` (``value`` is ``values.0``), one
    with constraints ``constraints.<i>`` and ``feasible``."""
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
            "cost": r.cost,
            "fail_reason": r.system_attrs.get("fail_reason"),
        }
        if r.values is not None and len(r.values) > 1:
            row.update({f"values.{i}": v for i, v in enumerate(r.values)})
        if r.constraints is not None:
            row.update({f"constraints.{i}": c for i, c in enumerate(r.constraints)})
            row["feasible"] = r.feasible
        row.update({f"params.{k}": v for k, v in r.params.items()})
        row.update({f"user_attrs.{k}": v for k, v in r.user_attrs.items()})
        rows.append(row)
    return rows
