"""A study's objectives over its trials: the count check of a trial's values,
and what a study with several objectives or constraints calls its best — the
feasible Pareto front — and its hypervolume.

Values are stored as the objective returned them; they are turned into losses
(:meth:`treefarm.objectives.Objectives.losses`) only to compare trials, so every
reading of the study shows the user's own numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ...exceptions import StudyError
from ...objectives import Objectives
from ...pareto import hypervolume, nondominated_mask, violations
from ...storage import TrialRecord, TrialState
from .outcome import Outcome, failure

__all__ = [
    "constraint_matrix",
    "count_failure",
    "feasible_front",
    "loss_matrix",
    "study_hypervolume",
]

def count_failure(outcome: Outcome, objectives: Objectives) -> Outcome | None:
    """A failed outcome when ``outcome`` holds another count of values than the
    study has objectives, else None."""
    values, m = outcome.values, len(objectives)
    if outcome.state is not TrialState.COMPLETE or values is None or len(values) == m:
        return None
    return replace(failure(
        f"the study has {m} objective{'s' if m > 1 else ''} "
        f"({objectives.describe()}) but the objective returned {len(values)} "
        f"value{'s' if len(values) > 1 else ''}: {list(values)!r:.80}"
    ), malformed=True)


def loss_matrix(records: Sequence[TrialRecord], objectives: Objectives) -> np.ndarray:
    """The trials' values as losses to minimize, shape (n, m)."""
    m = len(objectives)
    rows = [r.values if r.values is not None and len(r.values) == m else (np.nan,) * m for r in records]
    return objectives.losses(np.array(rows, dtype=float).reshape(len(records), m))


def constraint_matrix(records: Sequence[TrialRecord]) -> np.ndarray | None:
    """The trials' constraint values, shape (n, k), a missing value counting as
    satisfied (0); None when no trial has any."""
    k = max((len(r.constraints or ()) for r in records), default=0)
    if k == 0:
        return None
    return np.array([tuple(r.constraints or ()) + (0.0,) * (k - len(r.constraints or ())) for r in records])


def feasible_front(records: Sequence[TrialRecord], objectives: Objectives) -> list[TrialRecord]:
    """The completed trials no feasible trial dominates, among the feasible ones,
    by trial number; with no feasible trial, those of least total violation."""
    done = [r for r in records if r.state is TrialState.COMPLETE and r.values is not None]
    done = [r for r, row in zip(done, loss_matrix(done, objectives)) if np.all(np.isfinite(row))]
    if not done:
        return []
    C = constraint_matrix(done)
    v = np.zeros(len(done)) if C is None else violations(C)
    feasible = np.flatnonzero(v == 0)
    if feasible.size == 0:
        return sorted((done[i] for i in np.flatnonzero(v == v.min())), key=lambda r: r.number)
    Y = loss_matrix([done[i] for i in feasible], objectives)
    keep = feasible[nondominated_mask(Y)]
    return sorted((done[i] for i in keep), key=lambda r: r.number)


def study_hypervolume(
    records: Sequence[TrialRecord], objectives: Objectives, reference: Sequence[float]
) -> float:
    """The hypervolume of the feasible front up to ``reference`` (in the user's
    own units: a maximized objective's reference is a value below every score
    that should count)."""
    ref = np.asarray(reference, dtype=float)
    if ref.shape != (len(objectives),) or not np.all(np.isfinite(ref)):
        raise StudyError(
            f"reference must hold {len(objectives)} finite numbers (one per objective), "
            f"but got reference={[float(r) for r in np.atleast_1d(ref)]!r}"
        )
    front = [r for r in feasible_front(records, objectives) if r.feasible]
    if not front:
        return 0.0
    return hypervolume(loss_matrix(front, objectives), objectives.losses(ref))

