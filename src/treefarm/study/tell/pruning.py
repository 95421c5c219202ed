"""What a pruner reads from storage, and the record a pruned trial leaves.

A trial asks its study's pruner with the curves of the trials numbered below
it (see :mod:`treefarm.pruners.base`), read fresh from storage on every ask,
so workers in other processes or on other machines decide from the same
stored values. A pruned trial is stored PRUNED with the value it last
reported and that step (``system_attrs["pruned_step"]``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ...objectives import Objectives
from ...pruners import Curves, HyperbandPruner, Pruner, SuccessiveHalvingPruner
from ...storage import TrialRecord, TrialState
from ..state.outcome import Outcome

__all__ = ["curves_for", "fidelity_range", "with_last_report"]


def fidelity_range(pruner: Pruner | None) -> tuple[float, float] | None:
    """The ``(min_resource, max_resource)`` of a budget-setting pruner (Hyperband,
    successive halving with a ``max_resource``): the fidelities the optimizer's
    model spans; None for any other pruner, or none."""
    if isinstance(pruner, (HyperbandPruner, SuccessiveHalvingPruner)) and pruner.max_resource is not None:
        return float(pruner.min_resource), float(pruner.max_resource)
    return None


def curves_for(records: Sequence[TrialRecord], number: int, objectives: Objectives) -> Curves:
    """The curves trial ``number`` is judged by: its own and those of the trials numbered
    below it (with several objectives, their vectors too)."""
    own: Mapping[int, float] = {}
    earlier = {}
    vectors = {}
    several = objectives.several
    for r in records:  # records are snapshots with their own dicts: no copy needed
        if r.number == number:
            own = r.intermediate
        elif r.number < number and r.intermediate:
            earlier[r.number] = r.intermediate
        if several and r.number <= number and r.intermediate_vectors:
            vectors[r.number] = r.intermediate_vectors
    return Curves(number, own, earlier, objectives, vectors)


def with_last_report(outcome: Outcome, record: TrialRecord, *, several: bool = False) -> Outcome:
    """A PRUNED outcome completed with the trial's last reported (finite) value and its step;
    with ``several`` objectives, only a vector report gives it values."""
    if outcome.state is not TrialState.PRUNED or outcome.value is not None or not record.intermediate:
        return outcome
    step = max(record.intermediate)
    value = record.intermediate[step]
    attrs: dict[str, Any] = {**outcome.system_attrs, "pruned_step": step}
    vector = record.intermediate_vectors.get(step)
    finite_vector = vector is not None and all(math.isfinite(v) for v in vector)
    if several and not finite_vector:
        return Outcome(TrialState.PRUNED, None, user_attrs=outcome.user_attrs, system_attrs=attrs)
    return Outcome(
        TrialState.PRUNED,
        value if math.isfinite(value) and (vector is None or finite_vector) else None,
        user_attrs=outcome.user_attrs,
        system_attrs=attrs,
        values=tuple(vector) if vector is not None and finite_vector else None,
    )
