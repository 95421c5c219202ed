"""What every plot reads: a study's name, direction and trials, however the caller holds them.

A plot can be drawn from a live :class:`~treefarm.Study`, from a storage and
a study name (the command line and the dashboard, which have no space), or
from records already read. :class:`StudyData` is that common form; the data
functions of :mod:`treefarm.viz` take its ``trials`` and ``direction`` only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..exceptions import StudyError, format_values
from ..storage import Storage, TrialRecord, TrialState
from ..study import Study

__all__ = ["StudyData", "StudyLike", "as_study_data", "complete_trials", "losses", "sign"]


@dataclass(frozen=True)
class StudyData:
    """A study as the plots see it: ``trials`` ordered by number; ``direction`` is
    the first of ``directions`` (one per objective); ``fidelity`` is the full
    evaluation of a study with a fidelity parameter (None otherwise)."""

    name: str
    direction: str
    trials: Sequence[TrialRecord]
    directions: tuple[str, ...] = ()
    fidelity: float | None = None

    def __post_init__(self) -> None:
        if not self.directions:
            object.__setattr__(self, "directions", (self.direction,))

    @classmethod
    def load(cls, storage: Storage, name: str) -> StudyData:
        """Read the study ``name`` from ``storage`` (every trial, one query)."""
        record = storage.get_study(name)
        stored = record.attrs.get("fidelity")
        full = stored.get("high") if isinstance(stored, dict) else None
        trials = storage.get_trials(record.study_id)
        return cls(record.name, record.direction, trials, tuple(record.directions), full)  # type: ignore[arg-type]



StudyLike = Study | StudyData


def as_study_data(study: StudyLike) -> StudyData:
    """``study`` as :class:`StudyData`; StudyError naming the type otherwise."""
    if isinstance(study, StudyData):
        return study
    if isinstance(study, Study):
        full = None if study.fidelity is None else study.fidelity.high
        return StudyData(study.name, study.directions[0], study.trials, study.directions, full)
    raise StudyError(
        f"a plot needs a Study or a StudyData, but got {format_values(study=type(study).__name__)}"
    )


def sign(direction: str) -> float:
    """+1 to minimize, -1 to maximize: ``sign * value`` is a loss (lower is better)."""
    return 1.0 if direction == "minimize" else -1.0


def complete_trials(trials: Sequence[TrialRecord]) -> list[TrialRecord]:
    """The COMPLETE trials with a finite value, in the given order."""
    return [
        t for t in trials if t.state is TrialState.COMPLETE and t.value is not None and math.isfinite(t.value)
    ]


def losses(trials: Sequence[TrialRecord], direction: str) -> list[float]:
    """The values of ``trials`` (all complete) as losses, lower is better."""
    s = sign(direction)
    return [s * float(t.value) for t in trials if t.value is not None]
