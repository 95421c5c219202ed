"""Continuing a trial from its checkpoint: a promotion that trains on instead of again.

In a study with a :class:`~treefarm.Fidelity`, a promotion evaluates a configuration
at a higher rung as a new trial. For an objective that can resume (a model trained
by epochs or boosting rounds), training from scratch pays the lower rung's cost a
second time; a checkpoint avoids it, as freeze-thaw optimization pauses and thaws
learning curves (Swersky, Snoek & Adams, "Freeze-Thaw Bayesian Optimization", 2014).

A trial saves its state with ``trial.save_checkpoint(data)``: the trial's artifact
named :data:`CHECKPOINT` (see :mod:`treefarm.study.state.artifacts`). A promotion records
the trial it continues (:data:`CONTINUES`, the configuration's evaluation at the
rung below) with its configuration, in the storage's one checked write, so no two
trials continue one evaluation at one rung. ``trial.load_checkpoint()`` reads that
trial's checkpoint and, in one storage step, gives back the part of the trial's
reserved cost the continued trial already spent and marks the trial
:data:`RESUMED`: the trial's cost is then ``cost(its fidelity) - cost(the continued
trial's fidelity)``, what it adds, and a study's ``max_cost`` counts added work only.
"""

from __future__ import annotations

from ...exceptions import StudyError, format_values
from ...fidelity import Fidelity
from ...storage import Storage, TrialRecord
from . import artifacts

__all__ = ["CHECKPOINT", "CONTINUES", "RESUMED", "give_back", "load", "needs_fidelity", "read"]

CHECKPOINT = "checkpoint"
"""The name of the artifact holding a trial's checkpoint."""
CONTINUES = "continues"
"""The system attribute holding the number of the trial a promotion continues."""
RESUMED = "resumed"
"""The system attribute set (True) when a trial loaded the checkpoint of the trial it continues."""


def needs_fidelity(fidelity: Fidelity | None, call: str) -> Fidelity:
    """The study's ``fidelity``; a StudyError naming ``call`` in a study without one: no
    trial there is ever continued, so a checkpoint would never be read (nor one be there to read)."""
    if fidelity is None:
        raise StudyError(
            f"{call} needs a study with a fidelity (Study.create(..., fidelity=treefarm.Fidelity(...))): "
            "only a promotion to a higher rung continues a trial, "
            f"but got {format_values(fidelity=None)}"
        )
    return fidelity


def _fidelity_of(record: TrialRecord) -> float:
    value = record.system_attrs.get("fidelity")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise StudyError(
            "a continued trial must have been evaluated at a fidelity, "
            f"but got {format_values(trial=record.number, fidelity=value)}"
        )
    return float(value)


def read(storage: Storage, study_id: int, study: str, root: str, continues: int | None) -> bytes | None:
    """The checkpoint trial ``continues`` saved (None when it is None, or that trial saved
    none), read from the artifact store ``root``; a StudyError naming the trial when the
    store does not hold it."""
    if continues is None:
        return None
    source = storage.get_trial(study_id, continues)
    entry = next((a for a in artifacts.records(source.user_attrs) if a.get("name") == CHECKPOINT), None)
    if entry is None:
        return None
    try:
        return artifacts.load(root, study, continues, entry)
    except FileNotFoundError as exc:
        raise StudyError(
            "a continued trial's checkpoint must be in the study's artifact store (set study.artifact_store "
            f"to where it is), but got {format_values(trial=continues, artifact_store=root)} without it"
        ) from exc


def give_back(storage: Storage, study_id: int, fidelity: Fidelity, number: int, continues: int, at: float) -> None:
    """Give back from trial ``number``'s reservation (its fidelity ``at``) the cost the trial
    it continues already spent, and mark it :data:`RESUMED`, in one storage step."""
    source = storage.get_trial(study_id, continues)
    spent = min(fidelity.cost_of(_fidelity_of(source)), fidelity.cost_of(at))
    storage.refund_trial_cost(study_id, number, spent, system_attrs={RESUMED: True})


def load(
    storage: Storage,
    study_id: int,
    study: str,
    root: str,
    fidelity: Fidelity,
    number: int,
    continues: int | None,
    *,
    refund_at: float | None,
) -> bytes | None:
    """The checkpoint of trial ``continues`` for trial ``number`` (:func:`read`). With
    ``refund_at``, trial ``number``'s fidelity (the first load), a checkpoint found
    gives back the cost the continued trial spent (:func:`give_back`)."""
    content = read(storage, study_id, study, root, continues)
    if content is not None and continues is not None and refund_at is not None:
        give_back(storage, study_id, fidelity, number, continues, refund_at)
    return content
