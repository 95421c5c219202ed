"""The optimize loop: ask a batch, evaluate it, tell the outcomes, until a rule stops it.

The objective receives the built value; if it declares a parameter named
``trial`` it also gets the :class:`~treefarm.Trial` (to ``report``
intermediate values). It returns a number or a mapping with ``"loss"``. An
exception of a type in ``catch`` fails the trial and the run goes on; any
other, and KeyboardInterrupt, fails every trial this process is running
(reason ``"interrupted"`` for Ctrl-C) and propagates. Errors claiming a
trial are not the objective's and propagate whatever ``catch`` holds: the
storage's (a read-only database file) and the optimizer's
(:class:`~treefarm.SuggestionError`, its trial failed). With ``n_jobs > 1``
trials run in synchronous batches of ``n_jobs`` in worker processes
(``backend="process"``) or threads (``"thread"``); each batch is asked with
the earlier members pending, so a seeded parallel run is reproducible.
With an ``executor`` (a Dask ``Client``, any object with a
``concurrent.futures``-like ``submit``) suggestions are still made here and
only evaluations run on its workers, as many at once as its capacity, a new
trial asked (with the others pending) as soon as one finishes; a trial
whose worker died is FAILED with the reason and its configuration queued
again, at most ``requeue_lost`` times.

A finish the storage refuses because the trial is no longer this process's
(a recovery elsewhere presumed it dead) is logged and not recorded: each
trial completes at most once. A finish the storage kept in its local journal
(it stayed unreachable past its retry deadline) is logged and the loop goes
on: the journal writes it when the storage answers again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ..exceptions import StorageUnavailableError, StudyError, TrialStateError, format_values
from ..execution.base import ExecutorLike
from ..space import Config
from ..storage import Storage, TrialRecord, TrialState
from .loop_arguments import check_arguments, check_total, checked_catch
from .outcome import Outcome
from .parallel import Evaluator
from .recovery import REQUEUE_LOST
from .recovery import requeue_lost as requeue_lost_trial
from .stopping import Stopper
from .talk import Reporter, bar_total, show_progress
from .trial import Trial

__all__ = ["Asking", "Host", "optimize"]


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
    def directions(self) -> tuple[str, ...]: ...

    @property
    def stop_requested(self) -> bool: ...

    def recover(self, *, limit: int = ...) -> list[int]: ...

    def recover_due(self, *, limit: int = ...) -> list[int]: ...

    def fail_running(self, reason: str) -> None: ...

    def finish(self, number: int, outcome: Outcome) -> TrialRecord: ...


@dataclass(frozen=True)
class Asking:
    """A study's ask in the two parts the loop runs apart: ``claim(budget)`` (the
    storage's and the optimizer's part: a RUNNING trial's number, configuration and
    whether it re-runs a lost evaluation, or None when the budget is spent; its errors
    are never the objective's), then ``start(number, config)`` (building the value)."""

    claim: Callable[[int | None], tuple[int, Config, bool] | None]
    start: Callable[[int, Config], Trial]


Study = TypeVar("Study", bound=Host)
"""The study the loop runs, as its callbacks receive it."""
Callback = Callable[[Study, TrialRecord], None]

log = logging.getLogger("treefarm")


def _finish(study: Study, number: int, outcome: Outcome) -> TrialRecord | None:
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


def optimize(
    study: Study,
    asking: Asking,
    objective: Callable[..., Any],
    *,
    n_trials: int | None,
    n_new_trials: int | None,
    timeout: float | None,
    n_jobs: int,
    backend: str,
    catch: Sequence[type[BaseException]],
    callbacks: Iterable[Callback[Study]],
    target: float | None,
    patience: int | None,
    executor: ExecutorLike | None = None,
    requeue_lost: int = REQUEUE_LOST,
    progress: bool | None = None,
) -> None:
    """Run ``objective`` on ``study``'s suggestions (see the module docstring); each
    finished trial is logged and counted on a progress bar (see :mod:`.talk`)."""
    wants_trial = check_arguments(objective, n_jobs, backend, executor, requeue_lost)
    check_total(n_trials)
    caught = checked_catch(catch)
    several = len(study.directions) > 1
    if several and (target is not None or patience is not None):
        raise StudyError(
            "target and patience take a study with one objective, but got "
            f"{format_values(target=target, patience=patience, directions=list(study.directions))}"
        )
    stopper = Stopper(n_new_trials, timeout, target, patience, maximize=study.directions[0] == "maximize")
    shown = show_progress(progress)
    study.recover(limit=requeue_lost)
    reporter = Reporter(study, total=bar_total(study.storage, study.study_id, n_trials, n_new_trials) if shown else None, progress=shown)
    callbacks = [lambda _, record: reporter(record), *callbacks]
    try:
        evaluator = Evaluator(objective, n_jobs=n_jobs, backend=backend, wants_trial=wants_trial, executor=executor)
        with evaluator as ev:
            if executor is not None:
                _run_as_completed(study, asking, ev, n_trials, caught, stopper, callbacks, requeue_lost)
            else:
                _run_batches(study, asking, ev, n_trials, caught, stopper, callbacks, requeue_lost)
    except BaseException as exc:
        reporter.close(None)
        study.fail_running(
            "interrupted" if isinstance(exc, KeyboardInterrupt) else f"{type(exc).__name__}: {exc}"
        )
        raise
    reporter.close(stopper)


def _run_batches(
    study: Study,
    asking: Asking,
    ev: Evaluator,
    budget: int | None,
    catch: tuple[type[BaseException], ...],
    stopper: Stopper,
    callbacks: list[Callback[Study]],
    requeue_lost: int,
) -> None:
    """Ask a batch, evaluate it, record it, until a rule stops or the budget is spent."""
    while not (stopper.done() or study.stop_requested):
        study.recover_due(limit=requeue_lost)
        remaining = stopper.remaining()
        size = ev.batch_size() if remaining is None else min(ev.batch_size(), remaining)
        trials, exhausted = _ask_batch(asking, size, budget, catch, stopper)
        _run_batch(study, ev, trials, catch, stopper, callbacks, requeue_lost)
        if exhausted:
            return


def _ask_batch(
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


def _run_batch(
    study: Study,
    ev: Evaluator,
    trials: list[Trial],
    catch: tuple[type[BaseException], ...],
    stopper: Stopper,
    callbacks: list[Callback[Study]],
    requeue_lost: int,
) -> None:
    """Evaluate ``trials`` and record each outcome; re-raise an uncaught error after recording."""
    _record(study, list(zip(trials, ev.run(trials))), catch, stopper, callbacks, requeue_lost)


def _run_as_completed(
    study: Study,
    asking: Asking,
    ev: Evaluator,
    budget: int | None,
    catch: tuple[type[BaseException], ...],
    stopper: Stopper,
    callbacks: list[Callback[Study]],
    requeue_lost: int,
) -> None:
    """Keep the executor's capacity busy: a new trial is asked as soon as one finishes,
    with the others pending, so a long trial holds up one worker, not all of them.
    Trials finishing together are recorded in the order of their numbers, so the same
    seed and the same completion order give the same trials. On an uncaught error the
    other evaluations are cancelled (their trials are failed by the caller)."""
    running: dict[Any, Trial] = {}
    exhausted = False
    try:
        while True:
            room = ev.batch_size() - len(running)
            remaining = stopper.remaining()
            if remaining is not None:
                room = min(room, remaining - len(running))
            if room > 0 and not (exhausted or study.stop_requested or stopper.done()):
                study.recover_due(limit=requeue_lost)
                trials, exhausted = _ask_batch(asking, room, budget, catch, stopper)
                for trial in trials:
                    sent = ev.send(trial)
                    if isinstance(sent, tuple):
                        _record(study, [(trial, sent)], catch, stopper, callbacks, requeue_lost)
                    else:
                        running[sent] = trial
            if not running:
                if exhausted or study.stop_requested or stopper.done():
                    return
                continue
            done = sorted(ev.finished(running), key=lambda f: running[f].number)
            _record(study, [(running.pop(f), ev.outcome(f)) for f in done], catch, stopper, callbacks, requeue_lost)
    except BaseException:
        for future in running:
            future.cancel()
        raise


def _record(
    study: Study,
    results: list[tuple[Trial, tuple[Outcome, BaseException | None]]],
    catch: tuple[type[BaseException], ...],
    stopper: Stopper,
    callbacks: list[Callback[Study]],
    requeue_lost: int,
) -> None:
    """Record the outcomes of evaluations that finished together (queueing a
    configuration again if its worker died) and count them, then call the
    callbacks, then re-raise the first uncaught error: every result is stored
    before an error of one trial, or of a callback, stops the study."""
    records: list[TrialRecord] = []
    uncaught: BaseException | None = None
    for trial, (outcome, exc) in results:
        record = _finish(study, trial.number, outcome)
        if record is not None and outcome.system_attrs.get("worker_lost"):
            requeue_lost_trial(study.storage, study.study_id, record, requeue_lost)
        if record is not None:
            stopper.record(record.value if record.state is TrialState.COMPLETE and record.feasible else None)
            records.append(record)
        if exc is not None and (not isinstance(exc, catch) or isinstance(exc, KeyboardInterrupt)):
            uncaught = uncaught or exc
    for record in records:
        for callback in callbacks:
            callback(study, record)
    if uncaught is not None:
        raise uncaught
