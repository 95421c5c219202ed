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

import inspect
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..exceptions import StorageUnavailableError, StudyError, TrialStateError, format_values
from ..storage import TrialRecord, TrialState
from .parallel import Evaluator
from .recovery import REQUEUE_LOST
from .recovery import requeue_lost as requeue_lost_trial
from .stopping import Stopper
from .talk import Reporter, show_progress
from .trial import Trial

if TYPE_CHECKING:
    from .outcome import Outcome
    from .study import Callback, Study

__all__ = ["optimize"]

log = logging.getLogger("treefarm")


def _check(objective: Callable[..., Any], n_jobs: int, backend: str, executor: Any, requeue_lost: int) -> bool:
    """The arguments checked; whether the objective takes the trial."""
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise StudyError(f"n_jobs must be an integer >= 1, but got n_jobs={n_jobs!r}")
    if backend not in ("process", "thread"):
        raise StudyError(f"backend must be 'process' or 'thread', but got backend={backend!r}")
    if not callable(objective):
        raise StudyError(f"objective must be callable, but got objective={objective!r}")
    if isinstance(executor, str):
        raise StudyError(
            "executor must be an object with submit; turn an address into a Dask client with "
            f"treefarm.execution.dask.connect({executor!r}), but got executor={executor!r}"
        )
    if isinstance(requeue_lost, bool) or not isinstance(requeue_lost, int) or requeue_lost < 0:
        raise StudyError(f"requeue_lost must be an integer >= 0, but got requeue_lost={requeue_lost!r}")
    parameters = inspect.signature(objective).parameters
    wants_trial = "trial" in parameters
    if wants_trial and len(parameters) == 1:
        raise StudyError(
            "an objective gets the configuration's value first (def objective(params, trial) to get "
            f"the trial too; Optuna's objective(trial) is one argument short), but got objective{inspect.signature(objective)}"
        )
    if wants_trial and executor is not None:
        raise StudyError(f"an objective taking `trial` cannot run on an executor, but got executor={executor!r}")
    if wants_trial and n_jobs > 1 and backend == "process":
        raise StudyError(
            "an objective taking `trial` needs n_jobs=1 or backend='thread', but got backend='process'"
        )
    return wants_trial


def _checked_catch(catch: object) -> tuple[type[BaseException], ...]:
    """``catch`` as a tuple of exception classes (one class alone is taken as one),
    or a StudyError naming it, before any trial runs."""
    classes = (catch,) if isinstance(catch, type) else catch
    if not isinstance(classes, (tuple, list)) or not all(
        isinstance(c, type) and issubclass(c, BaseException) for c in classes
    ):
        raise StudyError(f"catch must be exception classes, e.g. (ValueError,), but got catch={catch!r}")
    return tuple(classes)


def _check_total(n_trials: int | None) -> None:
    if n_trials is not None and (isinstance(n_trials, bool) or not isinstance(n_trials, int) or n_trials < 1):
        raise StudyError(f"n_trials must be an integer >= 1 or None, but got n_trials={n_trials!r}")


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
    objective: Callable[..., Any],
    *,
    n_trials: int | None,
    n_new_trials: int | None,
    timeout: float | None,
    n_jobs: int,
    backend: str,
    catch: Sequence[type[BaseException]],
    callbacks: Iterable[Callback],
    target: float | None,
    patience: int | None,
    executor: Any = None,
    requeue_lost: int = REQUEUE_LOST,
    progress: bool | None = None,
) -> None:
    """Run ``objective`` on ``study``'s suggestions (see the module docstring); each
    finished trial is logged and counted on a progress bar (see :mod:`.talk`)."""
    wants_trial = _check(objective, n_jobs, backend, executor, requeue_lost)
    _check_total(n_trials)
    caught = _checked_catch(catch)
    several = len(study.directions) > 1
    if several and (target is not None or patience is not None):
        raise StudyError(
            "target and patience take a study with one objective, but got "
            f"{format_values(target=target, patience=patience, directions=list(study.directions))}"
        )
    stopper = Stopper(n_new_trials, timeout, target, patience, maximize=study.directions[0] == "maximize")
    shown = show_progress(progress)
    study.recover(limit=requeue_lost)
    reporter = Reporter(study, total=_bar_total(study, n_trials, n_new_trials) if shown else None, progress=shown)
    callbacks = [lambda _, record: reporter(record), *callbacks]
    try:
        evaluator = Evaluator(objective, n_jobs=n_jobs, backend=backend, wants_trial=wants_trial, executor=executor)
        with evaluator as ev:
            if executor is not None:
                _run_as_completed(study, ev, n_trials, caught, stopper, callbacks, requeue_lost)
            else:
                _run_batches(study, ev, n_trials, caught, stopper, callbacks, requeue_lost)
    except BaseException as exc:
        reporter.close(None)
        study.fail_running(
            "interrupted" if isinstance(exc, KeyboardInterrupt) else f"{type(exc).__name__}: {exc}"
        )
        raise
    reporter.close(stopper)


def _bar_total(study: Study, n_trials: int | None, n_new_trials: int | None) -> int | None:
    """How many trials this call may add: what the study's total leaves, at most ``n_new_trials``."""
    left = None
    if n_trials is not None:
        claimed = (TrialState.RUNNING, TrialState.COMPLETE, TrialState.FAILED, TrialState.PRUNED)
        left = max(n_trials - study.storage.count_trials(study.study_id, states=claimed), 0)
    if n_new_trials is None:
        return left
    return n_new_trials if left is None else min(left, n_new_trials)


def _run_batches(
    study: Study,
    ev: Evaluator,
    budget: int | None,
    catch: tuple[type[BaseException], ...],
    stopper: Stopper,
    callbacks: list[Callback],
    requeue_lost: int,
) -> None:
    """Ask a batch, evaluate it, record it, until a rule stops or the budget is spent."""
    while not (stopper.done() or study.stop_requested):
        study.recover_due(limit=requeue_lost)
        remaining = stopper.remaining()
        size = ev.batch_size() if remaining is None else min(ev.batch_size(), remaining)
        trials, exhausted = _ask_batch(study, size, budget, catch, stopper)
        _run_batch(study, ev, trials, catch, stopper, callbacks, requeue_lost)
        if exhausted:
            return


def _ask_batch(
    study: Study, size: int, budget: int | None, catch: tuple[type[BaseException], ...], stopper: Stopper
) -> tuple[list[Trial], bool]:
    """Up to ``size`` trials, and whether the study's budget is spent. A trial whose
    value fails to build (a caught error) is recorded failed and counts against the
    budget; an error claiming a trial (the storage's, the optimizer's) propagates.
    A re-run of a lost evaluation goes alone: re-runs are claimed first, and a
    configuration that kills its worker again would take its batch with it."""
    trials: list[Trial] = []
    while len(trials) < size and not stopper.done():
        claimed = study._claim_within(budget)
        if claimed is None:
            return trials, True
        number, config, rerun = claimed
        try:
            trials.append(study._start_claimed(number, config))
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
    callbacks: list[Callback],
    requeue_lost: int,
) -> None:
    """Evaluate ``trials`` and record each outcome; re-raise an uncaught error after recording."""
    _record(study, list(zip(trials, ev.run(trials))), catch, stopper, callbacks, requeue_lost)


def _run_as_completed(
    study: Study,
    ev: Evaluator,
    budget: int | None,
    catch: tuple[type[BaseException], ...],
    stopper: Stopper,
    callbacks: list[Callback],
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
                trials, exhausted = _ask_batch(study, room, budget, catch, stopper)
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
    callbacks: list[Callback],
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
