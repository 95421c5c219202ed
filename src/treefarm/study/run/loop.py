"""The optimize loop: ask a batch, evaluate it, tell the outcomes, until a rule stops it.

The objective receives the built value; if it declares a parameter named
``trial`` it also gets the :class:`~treefarm.Trial` (to ``report``
intermediate values, read its fidelity, resume from a checkpoint); on an
executor or in worker processes, a detached copy of it that carries what it
reads and brings back what it writes (:mod:`.remote_trial`). It returns a number or a mapping with ``"loss"``. An
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
only evaluations run on its workers, as many at once as its capacity; the
next trials are prepared (asked with the others pending) while the workers
run, and a worker that finishes gets one at once (:mod:`.ahead`); a trial
whose worker died is FAILED with the reason and its configuration queued
again, at most ``requeue_lost`` times.

A finish the storage refuses because the trial is no longer this process's
(a recovery elsewhere presumed it dead) is logged and not recorded: each
trial completes at most once. A finish the storage kept in its local journal
(it stayed unreachable past its retry deadline) is logged and the loop goes
on: the journal writes it when the storage answers again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ...exceptions import StudyError, format_values
from ...execution.base import ExecutorLike
from ..state.recovery import REQUEUE_LOST
from .ahead import run_as_completed
from .loop_arguments import check_arguments, check_total, checked_catch
from .parallel import Evaluator, budget_freed
from .steps import Asking, Host, HostCallback, HostT, Run, unspendable
from .stopping import Stopper
from .talk import Reporter, bar_total, show_progress

__all__ = ["Asking", "Host", "optimize"]


def optimize(
    study: HostT,
    asking: Asking,
    objective: Callable[..., Any],
    *,
    n_trials: int | None,
    n_new_trials: int | None,
    timeout: float | None,
    n_jobs: int,
    backend: str,
    catch: Sequence[type[BaseException]],
    callbacks: Iterable[HostCallback[HostT]],
    target: float | None,
    patience: int | None,
    executor: ExecutorLike | None = None,
    requeue_lost: int = REQUEUE_LOST,
    progress: bool | None = None,
) -> None:
    """Run ``objective`` on ``study``'s suggestions (see the module docstring); each
    finished trial is logged and counted on a progress bar (see :mod:`.talk`)."""
    wants_trial = check_arguments(objective, n_jobs, backend, executor, requeue_lost)
    if study.max_cost is not None and study.fidelity is None and not wants_trial:
        raise StudyError(unspendable(study.max_cost, "the objective does not take the trial, so it reports no step"))
    check_total(n_trials)
    caught = checked_catch(catch)
    if study.objectives.several and (target is not None or patience is not None):
        raise StudyError(
            "target and patience take a study with one objective, but got "
            f"{format_values(target=target, patience=patience, directions=study.objectives.argument)}"
        )
    stopper = Stopper(n_new_trials, timeout, target, patience, objectives=study.objectives)
    shown = show_progress(progress)
    study.recover(limit=requeue_lost)
    reporter = Reporter(study, total=bar_total(study.storage, study.study_id, n_trials, n_new_trials) if shown else None, progress=shown)
    callbacks = [lambda _, record: reporter(record), *callbacks]
    try:
        evaluator = Evaluator(objective, n_jobs=n_jobs, backend=backend, wants_trial=wants_trial, executor=executor,
                              address=study.worker_address() if wants_trial else None)
        run = Run(study, asking, n_trials, caught, stopper, callbacks, requeue_lost)
        with evaluator as ev:
            if executor is not None:
                run_as_completed(run, ev)
            else:
                _run_batches(run, ev)
    except BaseException as exc:
        reporter.close(None)
        study.fail_running(
            "interrupted" if isinstance(exc, KeyboardInterrupt) else f"{type(exc).__name__}: {exc}"
        )
        raise
    reporter.close(stopper)


def _run_batches(run: Run[HostT], ev: Evaluator) -> None:
    """Ask a batch, evaluate it, record it, until a rule stops or the budget is spent."""
    while not run.stopping():
        run.recover_due()
        remaining = run.stopper.remaining()
        size = ev.batch_size() if remaining is None else min(ev.batch_size(), remaining)
        trials, exhausted = run.ask(size)
        results = list(zip(trials, ev.run(trials)))
        run.record(results)
        if exhausted and not budget_freed(results):  # a lost trial's re-run, or cost given back
            return
