"""What every plot reads: a study's name, direction and trials, however the caller holds them.

A plot can be drawn from a live :class:`~treefarm.Study`, from a storage and
a study name (the command line and the dashboard, which have no space), or
from records already read. :class:`StudyData` is that common form; the data
functions of :mod:`treefarm.viz` take its ``trials`` and ``direction`` only.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..exceptions import StudyError, format_values
from ..objectives import Objectives
from ..storage import Storage, TrialRecord, TrialState
from ..study import Study

__all__ = ["StudyData", "StudyLike", "as_study_data", "complete_trials", "losses", "sign"]


@dataclass(frozen=True)
class StudyData:
    """A study as the plots see it: ``trials`` ordered by number; ``direction`` is
    the first of ``directions`` (one per objective), ``names`` the objectives'
    names (None when they have none); :attr:`objectives` is the two as one value;
    ``fidelity`` is the full evaluation of a study with a fidelity parameter (None
    otherwise)."""

    name: str
    direction: str
    trials: Sequence[TrialRecord]
    directions: tuple[str, ...] = ()
    names: tuple[str, ...] | None = None
    fidelity: float | None = None

    def __post_init__(self) -> None:
        if not self.directions:
            object.__setattr__(self, "directions", (self.direction,))

    @property
    def objectives(self) -> Objectives:
        return Objectives(tuple(self.directions), self.names)

    @classmethod
    def load(cls, storage: Storage, name: str) -> StudyData:
        """Read the study ``name`` from ``storage`` (every trial, one query)."""
        record = storage.get_study(name)
        stored = record.attrs.get("fidelity")
        full = stored.get("high") if isinstance(stored, dict) else None
        return cls.of(record.name, record.objectives, storage.get_trials(record.study_id), full)  # type: ignore[arg-type]

    @classmethod
    def of(
        cls, name: str, objectives: Objectives, trials: Sequence[TrialRecord], fidelity: float | None = None
    ) -> StudyData:
        """The plots' view of a study with these ``objectives`` (and the full ``fidelity``, if one)."""
        return cls(name, objectives.directions[0], trials, objectives.directions, objectives.names, fidelity)


StudyLike = Study | StudyData


def as_study_data(study: StudyLike) -> StudyData:
    """``study`` as :class:`StudyData`; StudyError naming the type otherwise."""
    if isinstance(study, StudyData):
        return study
    if isinstance(study, Study):
        full = None if study.fidelity is None else study.fidelity.high
        return StudyData.of(study.name, study.objectives, study.trials, full)
    raise StudyError(
        f"a plot needs a Study or a StudyData, but got {format_values(study=type(study).__name__)}"
    )


def sign(direction: str) -> float:
    """+1 to minimize, -1 to maximize: ``sign * value`` is a loss (lower is better)."""
    return Objectives.single(direction).sign(0)


def complete_trials(trials: Sequence[TrialRecord]) -> list[TrialRecord]:
    """The COMPLETE trials with a finite value, in the given order."""
    return [
        t for t in trials if t.state is TrialState.COMPLETE and t.value is not None and math.isfinite(t.value)
    ]


def check_plottable(data: StudyData, *, minimum: int = 2) -> None:
    """Refuse a plot of a study with fewer than ``minimum`` complete trials: drawn, it
    would be an empty or one-point image that looks like a result."""
    done = len(complete_trials(data.trials))
    if done < minimum:
        states = ", ".join(f"{n} {s}" for s, n in sorted(Counter(t.state.value for t in data.trials).items()))
        raise StudyError(
            f"a plot needs at least {minimum} complete trials with a finite value, but got "
            f"{format_values(study=data.name, complete=done)} ({states or 'no trials'})"
        )


def losses(trials: Sequence[TrialRecord], direction: str) -> list[float]:
    """The values of ``trials`` (all complete) as losses, lower is better."""
    s = sign(direction)
    return [s * float(t.value) for t in trials if t.value is not None]
