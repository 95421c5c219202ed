"""Worker processes for a study's evaluations that die with the study, and the call each runs.

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
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

__all__ = ["call_in_worker", "die_with_parent", "process_pool", "terminate"]

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


def terminate(pool: Executor) -> None:
    """Kill a process pool's workers at once (an interrupted run must not wait for its
    objectives): ``terminate_workers`` where Python has it (3.14), else each worker process."""
    if hasattr(pool, "terminate_workers"):
        pool.terminate_workers()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()


def call_in_worker(objective: Callable[[Any], Any], value: Any) -> tuple[str, Any]:
    """Run in a worker process: the result, or the exception. One that cannot make
    the trip back (it does not pickle, or its class cannot be rebuilt from its
    pickle: an ``__init__`` with other arguments) travels as the nearest class of
    its own hierarchy that can, with its text and traceback as the message, so
    ``catch`` still matches it as far as its classes allow and a bad pickle never
    breaks the pool."""
    try:
        return "ok", objective(value)
    except Exception as exc:
        if _travels(exc):
            return "error", exc
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        message = f"{type(exc).__name__}: {exc}\n{text}"
        for cls in type(exc).__mro__:
            if issubclass(cls, BaseException):
                with contextlib.suppress(Exception):
                    stand_in = cls(message)
                    if _travels(stand_in):
                        return "error", stand_in
        return "error", Exception(message)


def _travels(exc: BaseException) -> bool:
    """Whether ``exc`` survives a pickle round trip (what a process pool gives it)."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return False
    return True


def process_pool(n_workers: int) -> ProcessPoolExecutor:
    """A pool of ``n_workers`` fresh (spawned) processes that die with this one."""
    return ProcessPoolExecutor(
        max_workers=n_workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    )
