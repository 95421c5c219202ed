"""Evaluating a batch of trials: inline, in threads, or in worker processes.

Workers only call the objective on built values; asking, telling and the
storage stay in the study's process, so a worker that dies loses nothing
recorded. Each result comes back as an :class:`Outcome` plus the exception
the objective raised (if any), and the study decides whether to go on.

Worker processes die with their parent: on Linux the kernel sends them
SIGKILL when it dies (``PR_SET_PDEATHSIG``), and everywhere a watchdog
thread ends a worker whose parent is gone, so a ``kill -9`` of the study's
process leaves no orphan evaluating a trial nobody will record (the trial
itself is failed by the next recovery).
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..exceptions import StudyError, TrialPruned
from ..storage import TrialState
from .outcome import Outcome, from_exception, from_result
from .trial import Trial

__all__ = ["Evaluator"]

Result = tuple[Outcome, BaseException | None]


class RemoteError(Exception):
    """An objective's exception that could not be sent back from its worker process."""


PR_SET_PDEATHSIG = 1
"""prctl(2) option: the signal this process receives when its parent dies."""
WATCHDOG_PERIOD = 0.5
"""Seconds between a worker's checks that its parent is alive."""


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCHDOG_PERIOD)
    os._exit(1)


def die_with_parent(parent: int) -> None:
    """Run in each worker process at start: end it when ``parent`` dies (see the module docstring)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it fails the trials
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="treefarm-parent-watch", daemon=True).start()


def _terminate(pool: Executor) -> None:
    """Kill a process pool's workers at once (an interrupted run must not wait for its
    objectives): ``terminate_workers`` where Python has it (3.14), else each worker process."""
    if hasattr(pool, "terminate_workers"):
        pool.terminate_workers()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()


def call_in_worker(objective: Callable[[Any], Any], value: Any) -> tuple[str, Any]:
    """Run in a worker process: the result, or the exception (as text if it cannot be pickled)."""
    try:
        return "ok", objective(value)
    except Exception as exc:
        try:
            pickle.dumps(exc)
            return "error", exc
        except Exception:
            text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            return "error", RemoteError(f"{type(exc).__name__}: {exc}\n{text}")


def _evaluate_inline(objective: Callable[..., Any], trial: Trial, wants_trial: bool) -> Result:
    try:
        result = objective(trial.value, trial=trial) if wants_trial else objective(trial.value)
    except BaseException as exc:
        return _raised(exc)
    return from_result(result), None


def _raised(exc: BaseException) -> Result:
    """The outcome of a raised ``exc``, and the exception unless it is a pruning (which is no error)."""
    return from_exception(exc), None if isinstance(exc, TrialPruned) else exc


class Evaluator:
    """Runs batches for one ``optimize`` call; owns its pool (if any) for the call's duration."""

    def __init__(
        self, objective: Callable[..., Any], *, n_jobs: int, backend: str, wants_trial: bool
    ) -> None:
        self.objective = objective
        self.n_jobs = n_jobs
        self.backend = backend
        self.wants_trial = wants_trial
        self._pool: Executor | None = None
        if n_jobs > 1 and backend == "process":
            try:
                pickle.dumps(objective)
            except Exception as exc:
                raise StudyError(
                    "with n_jobs > 1 and backend='process' the objective must be picklable (define it at "
                    f"module level, or use backend='thread'), but got objective={objective!r}: {exc}"
                ) from exc

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        if self._pool is not None:
            if exc_type is not None:
                _terminate(self._pool)
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _get_pool(self) -> Executor:
        if self._pool is None:
            if self.backend == "thread":
                self._pool = ThreadPoolExecutor(max_workers=self.n_jobs)
            else:
                ctx = multiprocessing.get_context("spawn")
                self._pool = ProcessPoolExecutor(
                    max_workers=self.n_jobs,
                    mp_context=ctx,
                    initializer=die_with_parent,
                    initargs=(os.getpid(),),
                )
        return self._pool

    def run(self, trials: Sequence[Trial]) -> list[Result]:
        """Evaluate ``trials``; results in the same order."""
        if self.n_jobs == 1 or (len(trials) <= 1 and self.backend == "thread"):
            return [_evaluate_inline(self.objective, t, self.wants_trial) for t in trials]
        if self.backend == "thread":
            pool = self._get_pool()
            futures = [pool.submit(_evaluate_inline, self.objective, t, self.wants_trial) for t in trials]
            return [f.result() for f in futures]
        submitted: list[tuple[Future[tuple[str, Any]] | Result, Executor | None]] = []
        for t in trials:
            try:
                submitted.append(self._submit(t))
            except (pickle.PicklingError, TypeError, AttributeError) as exc:
                submitted.append(((from_exception(exc), None), None))
        return [self._collect(item, pool) for item, pool in submitted]

    def _submit(self, trial: Trial) -> tuple[Future[tuple[str, Any]], Executor]:
        """Send ``trial`` to a worker; the future and the pool it went to.

        A trial submitted earlier in the batch may already have killed its
        worker, which breaks the pool: this trial then goes to a fresh pool,
        since it did not run (only the trials the broken pool held fail)."""
        pool = self._get_pool()
        try:
            return pool.submit(call_in_worker, self.objective, trial.value), pool
        except BrokenProcessPool:
            self._forget(pool)
            pool = self._get_pool()
            return pool.submit(call_in_worker, self.objective, trial.value), pool

    def _forget(self, pool: Executor) -> None:
        """Stop using a broken pool (its remaining futures fail as died)."""
        if self._pool is pool:
            self._pool = None
        pool.shutdown(wait=False)

    def _collect(self, item: Future[tuple[str, Any]] | Result, pool: Executor | None) -> Result:
        if isinstance(item, tuple):
            return item
        try:
            kind, payload = item.result()
        except BrokenProcessPool as exc:
            if pool is not None:
                self._forget(pool)
            reason = f"the worker process died while evaluating the trial: {exc}"
            return Outcome(TrialState.FAILED, system_attrs={"fail_reason": reason}), None
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            return from_exception(exc), None
        if kind == "ok":
            return from_result(payload), None
        return _raised(payload)
