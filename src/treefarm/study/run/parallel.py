"""Evaluating trials: a batch inline, in threads or in worker processes, or one
trial at a time on any executor with a ``concurrent.futures``-like ``submit``
(a Dask ``Client``).

Workers only call the objective on built values (and, for an objective that
takes ``trial``, a detached copy of it: :mod:`.remote_trial`); asking, telling
and the storage stay in the study's process, so a worker that dies loses nothing
recorded. Each result comes back as an :class:`Outcome` plus the exception
the objective raised (if any), and the study decides whether to go on.

Worker processes die with their parent (:mod:`treefarm.execution.processes`).
An executor given by the caller is used through the one
:class:`~treefarm.execution.base.Executor` interface, as it is, and never
shut down here. A trial whose future raises instead of returning
(the worker died: Dask's ``KilledWorker``, a cancelled task, a lost
connection), and every trial a broken process pool held (one dead process
ends the others' evaluations too), is FAILED with the reason and
``system_attrs["worker_lost"]``, which the optimize loop uses to queue its
configuration again.
"""

from __future__ import annotations

import pickle
import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from typing import Any

from ...exceptions import StudyError, TrialPruned
from ...execution.base import Executor as RemoteExecutor
from ...execution.base import ExecutorLike, Pending
from ...execution.executors import as_executor
from ...execution.processes import call_in_worker, process_pool, terminate
from ...storage import TrialState
from ..state.checkpoints import RESUMED
from ..state.outcome import Outcome, from_exception, from_result
from ..tell.trial import Trial
from .guard import check_main_guard
from .remote_trial import StudyAddress, call_with_trial, detach, settle

__all__ = ["Evaluator", "budget_freed"]

Evaluated = tuple[Outcome, BaseException | None]
"""An evaluation's outcome and the exception the objective raised (if any)."""


CAPACITY_PERIOD = 5.0
"""Seconds an executor's capacity (its workers' threads) is taken as known."""


def _lost(exc: BaseException) -> Evaluated:
    reason = f"the worker died while evaluating the trial: {type(exc).__name__}: {exc}"
    return Outcome(TrialState.FAILED, system_attrs={"fail_reason": reason, "worker_lost": True}), None


def budget_freed(results: Sequence[tuple[Trial, Evaluated]]) -> bool:
    """Whether recording ``results`` may let the study claim again after its budget was
    found spent: a worker died (its configuration is queued again, and claimed even once
    the budget is spent, in the lost trial's place), or a trial that resumed on a worker
    gave back cost (:func:`.remote_trial.settle`). A loop that found the budget spent
    then asks once more."""
    return any(
        outcome.system_attrs.get("worker_lost") or outcome.system_attrs.get(RESUMED) for _, (outcome, _) in results
    )


def _evaluate_inline(objective: Callable[..., Any], trial: Trial, wants_trial: bool) -> Evaluated:
    try:
        result = objective(trial.value, trial=trial) if wants_trial else objective(trial.value)
    except BaseException as exc:
        return _raised(exc)
    return from_result(result), None


def _raised(exc: BaseException) -> Evaluated:
    """The outcome of a raised ``exc``, and the exception unless it is a pruning (which is no error)."""
    return from_exception(exc), None if isinstance(exc, TrialPruned) else exc


class Evaluator:
    """Runs batches for one ``optimize`` call; owns its pool (if any) for the call's duration."""

    def __init__(
        self,
        objective: Callable[..., Any],
        *,
        n_jobs: int,
        backend: str,
        wants_trial: bool,
        executor: ExecutorLike | None = None,
        address: StudyAddress | None = None,
    ) -> None:
        self.objective = objective
        self.address = address
        self.n_jobs = n_jobs
        self.backend = backend
        self.wants_trial = wants_trial
        self.executor: RemoteExecutor | None = None if executor is None else as_executor(executor)
        self._capacity: tuple[int, float] | None = None
        self._pool: Executor | None = None
        if n_jobs > 1 and backend == "process" and executor is None:
            check_main_guard(n_jobs)
        if (n_jobs > 1 and backend == "process") or executor is not None:
            try:
                pickle.dumps(objective)
            except Exception as exc:
                raise StudyError(
                    "with an executor, or n_jobs > 1 and backend='process', the objective must be "
                    "picklable (define it at "
                    f"module level, or use backend='thread'), but got objective={objective!r}: {exc}"
                ) from exc

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        if self._pool is not None:
            if exc_type is not None:
                terminate(self._pool)
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _get_pool(self) -> Executor:
        if self._pool is None:
            if self.backend == "thread":
                self._pool = ThreadPoolExecutor(max_workers=self.n_jobs)
            else:
                self._pool = process_pool(self.n_jobs)
        return self._pool

    def batch_size(self) -> int:
        """How many trials to ask for at once: ``n_jobs``, or the executor's capacity
        (asked again at most every ``CAPACITY_PERIOD`` seconds: a cluster grows and shrinks)."""
        if self.executor is None or self.n_jobs > 1:
            return self.n_jobs
        now = time.monotonic()
        if self._capacity is None or now - self._capacity[1] > CAPACITY_PERIOD:
            self._capacity = (self.executor.capacity(), now)
        return self._capacity[0]

    def run(self, trials: Sequence[Trial]) -> list[Evaluated]:
        """Evaluate ``trials`` here or in this evaluator's own pool; results in the same order."""
        if self.n_jobs == 1 or (len(trials) <= 1 and self.backend == "thread"):
            return [_evaluate_inline(self.objective, t, self.wants_trial) for t in trials]
        if self.backend == "thread":
            pool = self._get_pool()
            futures = [pool.submit(_evaluate_inline, self.objective, t, self.wants_trial) for t in trials]
            return [f.result() for f in futures]
        submitted: list[tuple[Future[Any] | Evaluated, Executor | None]] = []
        for t in trials:
            try:
                submitted.append(self._submit(t))
            except (pickle.PicklingError, TypeError, AttributeError) as exc:
                submitted.append(((from_exception(exc), None), None))
        return [self._collect(item, pool, t) for (item, pool), t in zip(submitted, trials)]

    def _task(self, trial: Trial) -> tuple[Callable[..., Any], Any, Any]:
        """What a worker runs for ``trial``: the objective on its value, and for an objective
        that takes ``trial`` its detached copy too (:mod:`.remote_trial`)."""
        if self.wants_trial:
            return call_with_trial, self.objective, detach(trial, self.address)
        return call_in_worker, self.objective, trial.value

    def send(self, trial: Trial) -> Pending | Evaluated:
        """Send ``trial`` to the caller's executor: its pending evaluation, or at once the
        evaluation (outcome and error) of a trial that cannot be sent."""
        assert self.executor is not None, "send needs the caller's executor"
        try:
            return self.executor.submit(*self._task(trial))
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            return from_exception(exc), None

    def finished(self, pending: Collection[Pending]) -> set[Pending]:
        """The evaluations of :meth:`send` that are done, waiting until at least one is."""
        assert self.executor is not None, "finished needs the caller's executor"
        return self.executor.first_completed(pending)

    def outcome(self, future: Pending, trial: Trial) -> Evaluated:
        """The evaluation of ``trial`` from a finished future of :meth:`send`; a future that
        raised is a lost worker."""
        try:
            returned = future.result()
        except Exception as exc:
            return _lost(exc)
        return self._returned(returned, trial)

    def _returned(self, returned: Any, trial: Trial) -> Evaluated:
        """The evaluation a worker returned for ``trial``; what the objective wrote to its
        detached trial is written first (:func:`.remote_trial.settle`), and an error
        writing it fails the trial, as it would have failed the objective's call."""
        resumed = False
        if self.wants_trial:
            kind, payload, effects = returned
            try:
                resumed = settle(trial, effects)
            except Exception as exc:
                return _raised(exc)
        else:
            kind, payload = returned
        outcome, error = (from_result(payload), None) if kind == "ok" else _raised(payload)
        return (replace(outcome, system_attrs={**outcome.system_attrs, RESUMED: True}) if resumed else outcome), error

    def _submit(self, trial: Trial) -> tuple[Future[Any], Executor]:
        """Send ``trial`` to a worker; the future and the pool it went to.

        A trial submitted earlier in the batch may already have killed its
        worker, which breaks the pool: this trial then goes to a fresh pool,
        since it did not run (only the trials the broken pool held fail). A
        pool caught breaking, before it says so, fails the process it starts
        for this trial with ``OSError`` (its queue's handle closed by its own
        clean-up): the same case."""
        function, objective, argument = self._task(trial)
        pool = self._get_pool()
        try:
            return pool.submit(function, objective, argument), pool
        except (BrokenProcessPool, OSError):
            self._forget(pool)
            pool = self._get_pool()
            return pool.submit(function, objective, argument), pool

    def _forget(self, pool: Executor) -> None:
        """Stop using a broken pool (its remaining futures fail as died) and end its
        processes. A process the pool started while it was breaking (a submit racing
        the pool's own clean-up) is not among those the pool terminates: it would
        wait for work forever, and the interpreter's exit, which joins every worker
        process, with it. Nothing submits to this pool after this call, so its
        process table is complete here."""
        if self._pool is pool:
            self._pool = None
        terminate(pool)
        pool.shutdown(wait=True)

    def _collect(self, item: Future[Any] | Evaluated, pool: Executor | None, trial: Trial) -> Evaluated:
        if isinstance(item, tuple):
            return item
        try:
            returned = item.result()
        except BrokenProcessPool as exc:
            # a dead process breaks the pool, and the trials its other processes held die with it:
            # each is a lost evaluation, queued again by the loop like a dead Dask worker's
            if pool is not None:
                self._forget(pool)
            return _lost(exc)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            return from_exception(exc), None
        return self._returned(returned, trial)
