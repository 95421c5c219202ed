"""The scale benchmark's runs: N workers on one study, simulated on a virtual clock
or real (see :mod:`bench.suites.scale` for the command and the rows).

``simulate``: the real ``study.optimize(..., executor=...)`` loop, with its real
optimizer and a real SQLite or PostgreSQL storage, drives a :class:`VirtualCluster`:
an executor whose evaluations take no real time but a virtual duration (the
objective's duration times a uniform draw in [0.5, 1.5], so that workers desynchronize
as on a real cluster). The driver's clock advances by the measured wall time of
everything the study does between two calls to the executor (recording, claiming,
suggesting), and jumps to the next evaluation's end while it waits; while a helper
thread prepares trials ahead, the wait runs in real time until the helper is done
(its work overlaps the workers' evaluations, as it would on a cluster; the driver is
woken by the helper's end, not by polling, which on a loaded machine oversleeps). A worker
waits from the end of its evaluation (or from time 0) until the driver sends it
its next trial.

``simulate_shared``: N workers each asking and telling through the storage for
themselves (``study.ask``/``tell`` in the worker, no driver): each worker's own
clock advances by its calls' measured wall time. Calls are made one at a time in
the order of the virtual clocks, so the database's contention between workers is
not modelled; the storage's busy fraction (its total call time over the run's
length) says how close to saturation one server would be.

``run_real``: the same loop on real workers (a Dask ``LocalCluster`` of processes,
or a thread pool) with objectives that sleep; each evaluation returns its start and
end, from which the waiting is counted the same way.
"""

from __future__ import annotations

import contextlib
import functools
import heapq
import itertools
import math
import os
import threading
import time
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

import treefarm as tf
from treefarm.execution.base import Pending
from treefarm.storage import SQLStorage, TrialState
from treefarm.study.run import loop, steps

SPACE = {f"x{i}": tf.Real(-5.0, 5.0) for i in range(6)}
TIMED = ("claim_trial", "set_trial_params", "finish_trial", "get_trials", "trial_page", "count_trials", "heartbeat")
"""The storage calls whose wall time is summed as the storage's busy time."""


def styblinski_tang(p: dict[str, float]) -> float:
    """The 6-d Styblinski-Tang function (Styblinski & Tang 1990), scaled by 1/6."""
    return sum(x**4 - 16 * x**2 + 5 * x for x in (p[k] for k in sorted(p))) / 12.0


def sleeping(p: dict[str, float], *, duration: float) -> dict[str, Any]:
    """Sleep ``duration`` times a draw in [0.5, 1.5] seeded by the configuration; the
    value, and when and where the evaluation ran."""
    draw = np.random.default_rng([int(abs(v) * 1e9) for v in p.values()]).uniform(0.5, 1.5)
    start = time.time()
    time.sleep(duration * draw)
    worker = f"{os.getpid()}-{threading.get_ident()}"
    return {"loss": styblinski_tang(p), "start": start, "end": time.time(), "worker": worker}


class Latency:
    """The wall time of a storage's calls: every call of :data:`TIMED` summed, and
    each ``claim_trial``, ``finish_trial`` and ``get_trials`` (the history's read) kept
    for percentiles."""

    def __init__(self, storage: SQLStorage) -> None:
        self.total = 0.0
        self.samples: dict[str, list[float]] = {"claim_trial": [], "finish_trial": [], "get_trials": []}
        for name in TIMED:
            if hasattr(storage, name):
                setattr(storage, name, self._timed(name, getattr(storage, name)))

    def _timed(self, name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(call)
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return call(*args, **kwargs)
            finally:
                spent = time.perf_counter() - start
                self.total += spent
                if name in self.samples:
                    self.samples[name].append(spent)

        return timed

    def percentiles(self) -> dict[str, float]:
        """p50, p95 and p99 of claim, tell (finish) and read in milliseconds."""
        out = {}
        for name, short in (("claim_trial", "claim"), ("finish_trial", "tell"), ("get_trials", "read")):
            values = np.asarray(self.samples[name]) * 1e3
            for q in (50, 95, 99):
                out[f"{short}_p{q}_ms"] = round(float(np.percentile(values, q)), 3) if len(values) else math.nan
        return out


class Helper:
    """Whether the loop's helper thread is preparing trials now (``steps.ask_batch``
    called outside the main thread), and the loop run with ``ahead`` prepared trials."""

    def __init__(self) -> None:
        self.active = 0
        self.idle = threading.Event()
        self.idle.set()

    @contextlib.contextmanager
    def patched(self, prepared: int) -> Iterator[None]:
        original_batch, original_run = steps.ask_batch, loop.run_as_completed

        def watched(*args: Any, **kwargs: Any) -> Any:
            helper = threading.current_thread() is not threading.main_thread()
            if helper:
                self.active += 1
                self.idle.clear()
            try:
                return original_batch(*args, **kwargs)
            finally:
                if helper:
                    self.active -= 1
                    self.idle.set()

        steps.ask_batch = watched  # type: ignore[assignment]
        loop.run_as_completed = functools.partial(original_run, ahead=prepared)  # type: ignore[assignment]
        try:
            yield
        finally:
            steps.ask_batch = original_batch
            loop.run_as_completed = original_run


class VirtualCluster:
    """An executor of ``workers`` slots on a virtual clock (see the module docstring)."""

    def __init__(self, workers: int, duration: float, rng: np.random.Generator, helper: Helper) -> None:
        self.workers, self.duration, self.rng, self.helper = workers, duration, rng, helper
        self.now = 0.0
        self._mark = time.perf_counter()
        self._free = [(0.0, slot, True) for slot in range(workers)]
        self._ends: dict[Any, tuple[float, int]] = {}
        self.busy = self.wait = self.first_wait = self.makespan = 0.0
        self.sent: list[dict[str, Any]] = []

    def _advance(self) -> None:
        mark = time.perf_counter()
        self.now += mark - self._mark
        self._mark = mark

    def capacity(self) -> int:
        return self.workers

    def submit(self, function: Callable[..., Any], /, *args: Any) -> Pending:
        self._advance()
        free_at, slot, first = heapq.heappop(self._free)
        gap = self.now - free_at
        self.wait += gap
        self.first_wait += gap if first else 0.0
        took = self.duration * self.rng.uniform(0.5, 1.5)
        self.busy += took
        self.sent.append(dict(args[-1]))
        start = time.perf_counter()
        future: Future[Any] = Future()
        future.set_result(function(*args))
        self._mark += time.perf_counter() - start  # the objective runs on a worker, not in the driver
        self._ends[future] = (self.now + took, slot)
        return future

    def first_completed(self, pending: Collection[Pending]) -> set[Pending]:
        self._advance()
        first = min(self._ends[f][0] for f in pending)
        if self.now < first and self.helper.active:
            # the helper prepares while the driver waits: real time runs until it is done
            # (woken at once then) or until the first evaluation ends, whichever is first
            self.helper.idle.wait(first - self.now)
            self._advance()
        self.now = max(self.now, first)
        done = {f for f in pending if self._ends[f][0] <= self.now}
        for f in done:
            end, slot = self._ends.pop(f)
            self.makespan = max(self.makespan, end)
            heapq.heappush(self._free, (end, slot, False))
        self._mark = time.perf_counter()
        return done


def _shares(
    wait: float, first_wait: float, busy: float, trials: int, makespan: float, ideal: float, latency: Latency
) -> dict[str, float]:
    """The workers' share of time waiting (all of it, and past each one's first trial),
    throughput against the ``ideal`` trials per second, and the storage's share of the run."""
    return {
        "wait": wait / (wait + busy),
        "wait_steady": (wait - first_wait) / (wait - first_wait + busy),
        "trials_per_s": trials / makespan,
        "ideal_per_s": ideal,
        "storage_busy": latency.total / makespan,
    }


def _checked(storage: SQLStorage, study_id: int, trials: int, sent: list[dict[str, Any]]) -> dict[str, Any]:
    """Whether every trial number is there once, the budget exact, every trial
    complete, and every configuration sent to a worker exactly once."""
    records = storage.get_trials(study_id)
    numbers = [t.number for t in records]
    stored = sorted(tuple(sorted(t.params.items())) for t in records)
    ran = sorted(tuple(sorted(p.items())) for p in sent)
    return {
        "numbers_once": numbers == list(range(trials)),
        "all_complete": all(t.state is TrialState.COMPLETE for t in records),
        "sent_once": stored == ran,
    }


def _study(url: str, name: str, algo: str, seed: int) -> tuple[tf.Study, SQLStorage, Latency]:
    storage = SQLStorage(url, journal=None)
    latency = Latency(storage)
    study = tf.Study.create(name, space=SPACE, storage=storage, algo=algo, seed=seed)
    return study, storage, latency


def simulate(
    *, workers: int, duration: float, algo: str, url: str, trials: int, seed: int, prepared: int, name: str
) -> dict[str, Any]:
    """One central-driver run on the virtual clock: its row's measurements."""
    study, storage, latency = _study(url, name, algo, seed)
    helper = Helper()
    cluster = VirtualCluster(workers, duration, np.random.default_rng(seed), helper)
    start = time.perf_counter()
    with helper.patched(prepared):
        study.optimize(styblinski_tang, trials, executor=cluster, progress=False)
    real = time.perf_counter() - start
    row = {
        **_shares(cluster.wait, cluster.first_wait, cluster.busy, trials, cluster.makespan, workers / duration, latency),
        "real_s": real,
        **latency.percentiles(),
        **_checked(storage, study.study_id, trials, cluster.sent),
    }
    storage.close()
    return row


def simulate_shared(
    *, workers: int, duration: float, algo: str, url: str, trials: int, seed: int, name: str
) -> dict[str, Any]:
    """One run of workers asking through the storage themselves, on virtual clocks."""
    first, storage, latency = _study(url, name, algo, seed)
    rng = np.random.default_rng(seed)
    studies = [tf.Study.load(name, space=SPACE, storage=storage) for _ in range(workers)]
    clocks = [(0.0, i, None, True) for i in range(workers)]
    busy = wait = first_wait = makespan = 0.0
    sent: list[dict[str, Any]] = []
    start = time.perf_counter()
    while clocks:
        now, i, trial, is_first = heapq.heappop(clocks)
        mark = time.perf_counter()
        if trial is not None:
            studies[i].tell(trial, styblinski_tang(trial.config))
        nxt = studies[i].ask_within(trials)
        spent = time.perf_counter() - mark
        makespan = max(makespan, now + spent)
        if nxt is None:
            continue
        wait += spent
        first_wait += spent if is_first else 0.0
        took = duration * rng.uniform(0.5, 1.5)
        busy += took
        sent.append(dict(nxt.config))
        heapq.heappush(clocks, (now + spent + took, i, nxt, False))
    row = {
        **_shares(wait, first_wait, busy, trials, makespan, workers / duration, latency),
        "real_s": time.perf_counter() - start,
        **latency.percentiles(),
        **_checked(storage, first.study_id, trials, sent),
    }
    storage.close()
    return row


@contextlib.contextmanager
def _executor(kind: str, workers: int) -> Iterator[Any]:
    if kind == "threads":
        with ThreadPoolExecutor(workers) as pool:
            yield pool
        return
    from treefarm.execution.dask import connect

    with connect("local", n_workers=workers) as client:
        yield client


def run_real(
    *, workers: int, duration: float, algo: str, url: str, trials: int, seed: int, prepared: int, name: str,
    executor: str,
) -> dict[str, Any]:
    """One run on real workers (``executor``: "dask" processes or "threads")."""
    study, storage, latency = _study(url, name, algo, seed)
    objective = functools.partial(sleeping, duration=duration)
    with _executor(executor, workers) as pool, Helper().patched(prepared):
        began = time.time()
        study.optimize(objective, trials, executor=pool, progress=False)
    records = storage.get_trials(study.study_id)
    spans: dict[str, list[tuple[float, float]]] = {}
    for t in records:
        spans.setdefault(str(t.user_attrs["worker"]), []).append((float(t.user_attrs["start"]), float(t.user_attrs["end"])))
    busy = wait = first_wait = 0.0
    for runs in spans.values():
        runs.sort()
        first_wait += runs[0][0] - began
        wait += runs[0][0] - began + sum(b[0] - a[1] for a, b in itertools.pairwise(runs))
        busy += sum(e - s for s, e in runs)
    makespan = max(e for runs in spans.values() for _, e in runs) - began
    row = {
        **_shares(wait, first_wait, busy, trials, makespan, workers / duration, latency),
        "workers_seen": len(spans),
        **latency.percentiles(),
        **_checked(storage, study.study_id, trials, [t.params for t in records]),
    }
    storage.close()
    return row
