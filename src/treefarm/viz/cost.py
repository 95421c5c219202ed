"""What a study's evaluations cost: the best full-fidelity value against the cost spent
(the anytime curve), and every evaluation by the fidelity it was made at.

Pure data (NumPy, no matplotlib), as the rest of :mod:`treefarm.viz`. The cost spent
when a trial finished is the sum of the costs of the trials finished by then
(``TrialRecord.cost``: the steps of a learning curve, or a fidelity's cost). A trial's
*fidelity* is the one it was evaluated at (a fidelity parameter), else the last step it
reported (a learning curve), else None (a full evaluation).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..exceptions import StudyError
from ..fidelity import recorded_fidelity
from ..storage import TrialRecord, TrialState
from .source import sign

__all__ = ["Anytime", "anytime"]


@dataclass(frozen=True)
class Anytime:
    """Per finished trial, in finishing order: the cost spent by then (``spent``), its
    ``value``, its ``fidelity`` (NaN: full) and whether it was a full evaluation
    (``full``); ``best`` is the best full evaluation's value by then (NaN before one)."""

    spent: np.ndarray
    value: np.ndarray
    fidelity: np.ndarray
    full: np.ndarray
    best: np.ndarray
    numbers: np.ndarray


def _fidelity(trial: TrialRecord) -> float:
    value = recorded_fidelity(trial.system_attrs)
    if value is not None:
        return value
    if trial.state is TrialState.PRUNED and trial.intermediate:
        return float(max(trial.intermediate))
    return float("nan")


def anytime(trials: Sequence[TrialRecord], direction: str, *, full_fidelity: float | None = None) -> Anytime:
    """The anytime curve of ``trials`` (see the module docstring); ``full_fidelity`` is
    a fidelity parameter's full evaluation (None: any trial that completed is full)."""
    done = sorted(
        (t for t in trials if t.finished is not None and t.state is not TrialState.RUNNING),
        key=lambda t: (t.finished, t.number),
    )
    if not any(t.cost for t in done):
        raise StudyError(f"the anytime curve needs trials that spent a cost, but got {len(done)} finished trials without one")
    spent = np.cumsum([t.cost for t in done])
    value = np.array([np.nan if t.value is None else t.value for t in done], dtype=float)
    fidelity = np.array([_fidelity(t) for t in done], dtype=float)
    full = np.array(
        [t.state is TrialState.COMPLETE and t.value is not None and (full_fidelity is None or f == full_fidelity)
         for t, f in zip(done, fidelity)]
    )  # fmt: skip
    s = sign(direction)
    loss = np.where(full, s * value, np.inf)
    running = np.minimum.accumulate(loss) if len(loss) else loss
    best = np.where(np.isfinite(running), s * running, np.nan)
    return Anytime(spent, value, fidelity, full, best, np.array([t.number for t in done]))
