"""What the trackers share: a finished trial as a run's name, parameters, metrics and tags."""

from __future__ import annotations

from typing import Any

from ..storage import TrialRecord, TrialState

__all__ = ["run_fields"]


def run_fields(study_name: str, record: TrialRecord, metric: str) -> dict[str, Any]:
    """``name``, ``params`` (the configuration: address -> decision), ``metrics`` (the value
    as ``metric``, and each reported step as ``METRIC_intermediate``) and ``tags`` (the
    trial's number, state, and why it did not complete)."""
    tags = {"treefarm.study": study_name, "treefarm.trial": str(record.number), "treefarm.state": record.state.value}
    reason = record.system_attrs.get("fail_reason")
    if record.state is not TrialState.COMPLETE and isinstance(reason, str):
        tags["treefarm.reason"] = reason[:5000]
    metrics = {} if record.value is None else {metric: float(record.value)}
    return {
        "name": f"{study_name}-trial-{record.number}",
        "params": dict(record.params),
        "metrics": metrics,
        "steps": {int(step): float(v) for step, v in record.intermediate.items()},
        "tags": tags,
    }
