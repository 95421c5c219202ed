"""The immutable values a storage returns: trial states, study and trial records.

Records are snapshots: a storage builds a fresh record (with fresh ``dict``
copies of params and attributes) on every read, so mutating a record's
mappings never reaches the storage, and a record never changes after it is
returned. To see a newer state, read again.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

from ..objectives import Objectives

__all__ = ["JSON", "REQUEUED", "HintRecord", "NoteRecord", "StudyRecord", "TrialRecord", "TrialState"]

JSON: TypeAlias = bool | int | float | str | list["JSON"] | dict[str, "JSON"] | None
"""A value JSON can hold; the only kind of value a storage keeps (never pickle)."""

REQUEUED = "requeued_from"
"""The system attribute of a WAITING trial that re-queues an interrupted trial's
configuration (its value: that trial's number). Such a trial takes the
interrupted one's place in a budget (:meth:`Storage.claim_trial`)."""


class TrialState(str, enum.Enum):
    """Where a trial is in its life: WAITING -> RUNNING -> COMPLETE | FAILED | PRUNED."""

    WAITING = "waiting"
    """Enqueued by the user (a warm start, a hint), not yet claimed by a worker."""
    RUNNING = "running"
    COMPLETE = "complete"
    FAILED = "failed"
    PRUNED = "pruned"

    @property
    def is_finished(self) -> bool:
        """Whether the state is final (COMPLETE, FAILED or PRUNED): it never changes again."""
        return self in (TrialState.COMPLETE, TrialState.FAILED, TrialState.PRUNED)


@dataclass(frozen=True)
class StudyRecord:
    """A study as stored: its id, unique name, objectives, seed and JSON attributes.

    ``directions`` holds one direction per objective and ``names`` their names
    (None when the user gave none); :attr:`objectives` is the two as one
    value, which is what every reader compares by. ``direction`` is the first
    direction (the one of a single-objective study); left out, ``directions``
    is ``(direction,)``.
    """

    study_id: int
    name: str
    direction: str
    seed: int | None
    attrs: Mapping[str, JSON]
    created: float
    directions: tuple[str, ...] = ()
    names: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not self.directions:
            object.__setattr__(self, "directions", (self.direction,))

    @property
    def objectives(self) -> Objectives:
        """The study's objectives: directions and names."""
        return Objectives(tuple(self.directions), self.names)


@dataclass(frozen=True)
class TrialRecord:
    """A trial as stored at the moment it was read.

    ``number`` is dense per study (0, 1, 2, ...) and assigned by the storage;
    ``value`` is a finite float for COMPLETE trials; ``intermediate`` maps a
    step to the value reported at it (NaN if NaN was reported); times are
    unix seconds (``started``/``heartbeat`` are set when the trial starts
    RUNNING, ``finished`` when it reaches a finished state).

    Several objectives: ``values`` holds one float per objective (None when the
    trial has no value), and ``value`` is always its first, so single-objective
    code reads ``value`` as before; left out, ``values`` is ``(value,)``.
    ``constraints`` holds the trial's constraint values (None when it has none);
    the trial is :attr:`feasible` when every one is ``<= 0`` (Optuna's
    convention). ``intermediate_vectors`` holds the steps reported as a vector
    (step -> one value per objective), beside their first entry in
    ``intermediate``. ``version`` counts the writes to the trial (its row and
    its reports) in a storage that keeps it (0 elsewhere): a reader holding a
    record asks :meth:`~treefarm.storage.Storage.get_trials` for the trials whose
    version differs (records that differ only in it compare equal). ``cost`` is
    what the trial has spent so far (steps of a learning curve, or the declared
    cost of its fidelity), summed by the study's cost budget.
    """

    study_id: int
    number: int
    state: TrialState
    params: Mapping[str, JSON]
    value: float | None
    intermediate: Mapping[int, float]
    user_attrs: Mapping[str, JSON]
    system_attrs: Mapping[str, JSON]
    started: float | None
    finished: float | None
    heartbeat: float | None
    values: tuple[float, ...] | None = None
    constraints: tuple[float, ...] | None = None
    intermediate_vectors: Mapping[int, tuple[float, ...]] = field(default_factory=dict)
    version: int = field(default=0, compare=False)
    cost: float = 0.0

    def __post_init__(self) -> None:
        if self.values is None and self.value is not None:
            object.__setattr__(self, "values", (self.value,))

    @property
    def feasible(self) -> bool:
        """Whether every constraint value is ``<= 0`` (True for a trial without constraints)."""
        return self.constraints is None or all(c <= 0 for c in self.constraints)


@dataclass(frozen=True)
class NoteRecord:
    """A note a person left on a study, or on its trial ``trial``: one row each, so
    that notes added at the same instant from two places are all kept."""

    note_id: int
    study_id: int
    trial: int | None
    text: str
    author: str | None
    created: float


@dataclass(frozen=True)
class HintRecord:
    """A search hint as stored: a partial configuration, how far to trust it
    (``credibility`` in [0, 1]), whether it marks a good (+1) or bad (-1)
    region, the width of its window (``spread``), who gave it and when."""

    hint_id: int
    study_id: int
    config: Mapping[str, JSON]
    credibility: float
    weight: int
    spread: float
    author: str | None
    created: float
