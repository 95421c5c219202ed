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
from ..storage import Storage, TrialRecord, TrialState
from ..study import Study

__all__ = ["StudyData", "StudyLike", "as_study_data", "complete_trials", "losses", "sign"]


@dataclass(frozen=True)
class StudyData:
    """A study as the plots see it: ``trials`` ordered by number; ``direction`` is
    the first of ``directions`` (one per objective)."""

    name: str
    direction: str
    trials: Sequence[TrialRecord]
    directions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.directions:
            object.__setattr__(self, "directions", (self.direction,))

    @classmethod
    def load(cls, storage: Storage, name: str) -> StudyData:
        """Read the study ``name`` from ``storage`` (every trial, one query)."""
        record = storage.get_study(name)
        return cls(record.name, record.direction, storage.get_trials(record.study_id), tuple(record.directions))


StudyLike = Study | StudyData


def as_study_data(study: StudyLike) -> StudyData:
    """``study`` as :class:`StudyData`; StudyError naming the type otherwise."""
    if isinstance(study, StudyData):
        return study
    if isinstance(study, Study):
        return StudyData(study.name, study.directions[0], study.trials, study.directions)
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
