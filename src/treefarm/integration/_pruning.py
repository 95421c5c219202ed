"""What the pruning callbacks share: report a value at a step, stop when the pruner says so."""

from __future__ import annotations

from ..exceptions import StudyError, TrialPruned
from ..study import Trial

__all__ = ["check_direction", "report_and_check"]


def check_direction(trial: Trial, metric: str, higher_is_better: bool | None) -> None:
    """StudyError when the library's metric runs against the study's direction: a pruner
    comparing AUCs in a minimizing study would stop the best trials."""
    if higher_is_better is None:
        return
    if higher_is_better != trial.study.objectives.maximizes(0):
        raise StudyError(
            f"the metric's direction must be the study's, but got metric={metric!r} "
            f"({'higher' if higher_is_better else 'lower'} is better), direction={trial.study.direction!r}"
        )


def report_and_check(trial: Trial, step: int, value: float, where: str) -> None:
    """``trial.report(step, value)``, then :class:`~treefarm.TrialPruned` if the study's
    pruner stops the trial there (``where`` says at what, for the trial's reason)."""
    trial.report(step, float(value))
    if trial.should_prune():
        raise TrialPruned(f"pruned at {where} {step}")
