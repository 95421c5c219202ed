"""The data of a study with several objectives: its trials' values, which are
feasible and which are on the front, and the front's hypervolume as the study
went on. Pure NumPy over trial records, for the static plots and the dashboard.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..exceptions import StudyError, format_values
from ..objectives import Objectives
from ..pareto import hypervolume, reference_point
from ..storage import TrialRecord, TrialState

__all__ = ["Front", "HypervolumeHistory", "front", "hypervolume_history"]

#: The most points a hypervolume history computes (evenly spaced over the trials).
MAX_HISTORY_POINTS = 200


@dataclass(frozen=True)
class Front:
    """Every completed trial of a study with its values (``values``, shape (n, m), as
    the objectives returned them), whether it is feasible, whether it is on the
    feasible front, and its number."""

    numbers: np.ndarray
    values: np.ndarray
    feasible: np.ndarray
    on_front: np.ndarray
    objectives: Objectives


@dataclass(frozen=True)
class HypervolumeHistory:
    """The feasible front's hypervolume after each of ``numbers`` (trial numbers),
    up to ``reference`` (in the objectives' own units)."""

    numbers: np.ndarray
    hypervolume: np.ndarray
    reference: np.ndarray


def front(trials: Sequence[TrialRecord], objectives: Objectives) -> Front:
    """The completed trials with a value for every objective, by number, marked."""
    m = len(objectives)
    done = [
        t for t in trials
        if t.state is TrialState.COMPLETE and t.values is not None and len(t.values) == m
        and all(np.isfinite(t.values))
    ]
    values = np.array([t.values for t in done], dtype=float).reshape(len(done), m)
    feasible = np.array([t.feasible for t in done], dtype=bool)
    on_front = np.zeros(len(done), dtype=bool)
    if feasible.any():
        index = np.flatnonzero(feasible)
        on_front[index[objectives.front(values[index])]] = True
    return Front(np.array([t.number for t in done], dtype=int), values, feasible, on_front, objectives)


def hypervolume_history(
    trials: Sequence[TrialRecord], objectives: Objectives, reference: Sequence[float] | None = None
) -> HypervolumeHistory:
    """The hypervolume of the feasible trials finished so far, at up to
    ``MAX_HISTORY_POINTS`` trial numbers. ``reference`` defaults to a point just
    beyond the worst feasible value of each objective."""
    data = front(trials, objectives)
    signs = objectives.signs
    losses = data.values * signs
    feasible = losses[data.feasible]
    if reference is None:
        if len(feasible) == 0:
            return HypervolumeHistory(np.zeros(0, dtype=int), np.zeros(0), np.zeros(len(objectives)))
        ref_loss = reference_point(feasible)
    else:
        ref = np.asarray(reference, dtype=float)
        if ref.shape != (len(objectives),) or not np.all(np.isfinite(ref)):
            raise StudyError(
                f"reference must hold {len(objectives)} finite numbers, but got {format_values(reference=reference)}"
            )
        ref_loss = ref * signs
    n = len(data.numbers)
    at = np.unique(np.linspace(0, n - 1, min(n, MAX_HISTORY_POINTS)).round().astype(int)) if n else np.zeros(0, int)
    volumes = np.array([hypervolume(losses[: i + 1][data.feasible[: i + 1]], ref_loss) for i in at])
    return HypervolumeHistory(data.numbers[at], volumes, ref_loss * signs)
