"""The steps every optimize loop shares: claiming a batch of trials, recording the
outcomes of evaluations that finished together, and what the loop needs of its study
(:class:`Host`) and of its asking (:class:`Asking`). See :mod:`.loop` for the rules."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from ...exceptions import StorageUnavailableError, StudyError, TrialStateError
from ...fidelity import Fidelity
from ...objectives import Objectives
from ...space import Config
from ...storage import Storage, TrialRecord, TrialState
from ..state.outcome import Outcome
from ..state.recovery import requeue_lost as requeue_lost_trial
from ..tell.trial import Trial
from .parallel import Evaluated
from .remote_trial import StudyAddress
from .stopping import Stopper

__all__ = ["Asking", "Host", "HostCallback", "HostT", "Run", "ask_batch", "record", "unspendable"]

class Host(Protocol):
    """What the loop needs of its study (a :class:`~treefarm.Study`) besides asking:
    where trials are stored, how many objectives, recovery, recording and stopping,
    and what its announcements read (:class:`.talk.Reported`)."""

    @property
    def name(self) -> str: ...

    @property
    def best_trial(self) -> TrialRecord: ...

    @property
    def best_trials(self) -> list[TrialRecord]: ...

    @property
    def storage(self) -> Storage: ...

    @property
    def study_id(self) -> int: ...

    @property
    def objectives(self) -> Objectives: ...

    @property
    def stop_requested(self) -> bool: ...

    def recover(self, *, limit: int = ...) -> list[int]: ...

    def recover_due(self, *, limit: int = ...) -> list[int]: ...

    def fail_running(self, reason: str) -> None: ...

    def finish(self, number: int, outcome: Outcome) -> TrialRecord: ...

    def worker_address(self) -> StudyAddress | None: ...

    @property
    def max_cost(self) -> float | None: ...

    @property
    def fidelity(self) -> Fidelity | None: ...


@dataclass(frozen=True)
class Asking:
    """A study's ask in the two parts the loop runs apart: ``claim(budget)`` (the
    storage's and the optimizer's part: a RUNNING trial's number, configuration and
    whether it re-runs a lost evaluation, or None when the budget is spent; its errors
    are never the objective's), then ``start(number, config)`` (building the value)."""

    claim: Callable[[int | None], tuple[int, Config, bool] | None]
    start: Callable[[int, Config], Trial]


HostT = TypeVar("HostT", bound=Host)
"""The study the loop runs, as its callbacks receive it."""
HostCallback = Callable[[HostT, TrialRecord], None]

log = logging.getLogger("treefarm")


def _finish(study: HostT, number: int, outcome: Outcome) -> TrialRecord | None:
    try:
        return study.finish(number, outcome)
    except TrialStateError as exc:
        log.warning("the result of trial %d was not recorded: %s", number, exc)
        return None
    except StorageUnavailableError as exc:
        if exc.journal is None:
            raise
        log.warning("the result of trial %d is kept in the journal %s", number, exc.journal)
        return None


def ask_batch(
    asking: Asking, size: int, budget: int | None, catch: tuple[type[BaseException], ...], stopper: Stopper
) -> tuple[list[Trial], bool]:
    """Up to ``size`` trials, and whether the study's budget is spent. A trial whose
    value fails to build (a caught error) is recorded failed and counts against the
    budget; an error claiming a trial (the storage's, the optimizer's) propagates.
    A re-run of a lost evaluation goes alone: re-runs are claimed first, and a
    configuration that kills its worker again would take its batch with it."""
    trials: list[Trial] = []
    while len(trials) < size and not stopper.done():
        claimed = asking.claim(budget)
        if claimed is None:
            return trials, True
        number, config, rerun = claimed
        try:
            trials.append(asking.start(number, config))
        except catch:
            stopper.record(None)
        if rerun:
            break
    return trials, False


def record(
    study: HostT,
    results: list[tuple[Trial, Evaluated]],
    catch: tuple[type[BaseException], ...],
    stopper: Stopper,
    callbacks: list[HostCallback[HostT]],
    requeue_lost: int,
) -> None:
    """Record the outcomes of evaluations that finished together (queueing a
    configuration again if its worker died) and count them, then call the
    callbacks, then re-raise the first uncaught error: every result is stored
    before an error of one trial, or of a callback, stops the study."""
    records: list[TrialRecord] = []
    uncaught: BaseException | None = None
    for trial, (outcome, exc) in results:
        stored = _finish(study, trial.number, outcome)
        if stored is not None and outcome.system_attrs.get("worker_lost"):
            requeue_lost_trial(study.storage, study.study_id, stored, requeue_lost)
        if stored is not None:
            stopper.record(stored.value if stored.state is TrialState.COMPLETE and stored.feasible else None)
            records.append(stored)
        if exc is not None and (not isinstance(exc, catch) or isinstance(exc, KeyboardInterrupt)):
            uncaught = uncaught or exc
    for stored in records:
        for callback in callbacks:
            callback(study, stored)
    uncaught = uncaught or _never_spent(study, records)
    if uncaught is not None:
        raise uncaught


def _never_spent(study: HostT, records: list[TrialRecord]) -> StudyError | None:
    """The error of a cost budget in a study without a fidelity once a trial completed
    without reporting a step while no trial of the study has reported one: nothing will."""
    if study.max_cost is None or study.fidelity is not None:
        return None
    free = next((r for r in records if r.state is TrialState.COMPLETE and r.cost == 0), None)
    if free is None or study.storage.spent_cost(study.study_id) > 0:
        return None
    return StudyError(
        unspendable(study.max_cost, f"trial {free.number} completed without reporting a step, so it cost nothing")
    )


def unspendable(max_cost: float, why: str) -> str:
    """The error of a cost budget that nothing spends: in a study without a fidelity, only
    the steps a trial reports cost, and a run bounded by cost alone would never end."""
    return (
        f"max_cost={max_cost:g} is spent by the steps trials report (trial.report(step, value)) or by a "
        f"Fidelity's cost, but this study has no fidelity and {why}: the budget would never be spent. "
        "Report the steps, declare a Fidelity, or bound the run with n_trials or timeout"
    )


@dataclass(frozen=True)
class Run(Generic[HostT]):
    """What every step of one ``optimize`` call reads: the study and its asking, the
    study's budget (``n_trials``), the errors that fail a trial rather than the run,
    the stopping rules, the callbacks, and how often a lost evaluation is queued again."""

    study: HostT
    asking: Asking
    budget: int | None
    catch: tuple[type[BaseException], ...]
    stopper: Stopper
    callbacks: list[HostCallback[HostT]]
    requeue_lost: int

    def ask(self, size: int) -> tuple[list[Trial], bool]:
        """:func:`ask_batch` of up to ``size`` trials."""
        return ask_batch(self.asking, size, self.budget, self.catch, self.stopper)

    def record(self, results: list[tuple[Trial, Evaluated]]) -> None:
        """:func:`record` of evaluations that finished together."""
        record(self.study, results, self.catch, self.stopper, self.callbacks, self.requeue_lost)

    def recover_due(self) -> None:
        """Queue again the trials whose workers were lost, as the study's rules allow."""
        self.study.recover_due(limit=self.requeue_lost)

    def stopping(self) -> bool:
        """Whether a rule (``n_new_trials``, timeout, target, patience) or ``stop()`` said stop."""
        return self.stopper.done() or self.study.stop_requested
