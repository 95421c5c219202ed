"""Trial records made by hand, so that each plot's expected content is known exactly."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from treefarm.storage import TrialRecord, TrialState
from treefarm.viz import StudyData


def record(
    number: int,
    value: float | None,
    params: Mapping[str, Any] | None = None,
    *,
    state: TrialState = TrialState.COMPLETE,
    intermediate: Mapping[int, float] | None = None,
    system_attrs: Mapping[str, Any] | None = None,
) -> TrialRecord:
    return TrialRecord(
        study_id=1,
        number=number,
        state=state,
        params=dict(params or {}),
        value=value,
        intermediate=dict(intermediate or {}),
        user_attrs={},
        system_attrs=dict(system_attrs or {}),
        started=100.0 + 2 * number,
        finished=101.0 + 2 * number,
        heartbeat=None,
    )


def study(values: Sequence[float | None], *, direction: str = "minimize", name: str = "s") -> StudyData:
    """A study whose trial i has value values[i] (None: a failed trial) and param x = i."""
    trials = [
        record(i, v, {"x": float(i)}, state=TrialState.COMPLETE if v is not None else TrialState.FAILED)
        for i, v in enumerate(values)
    ]
    return StudyData(name, direction, trials)
