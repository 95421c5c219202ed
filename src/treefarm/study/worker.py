"""Who runs a trial, whether that process is still alive, and its heartbeat.

A worker marks each trial it claims with its identity: the host name, a
random token drawn once per process, its PID and process start time, and the
PID namespace it lives in (the kernel's boot id and the namespace's inode).
Containers may share a host name while each has its own PIDs, so a PID is
only checked when the namespace proves the trial's worker and the checker
see the same process table; the start time then tells a dead worker from a
new process that reused its PID. Everywhere else the trial's own heartbeat
decides (see :meth:`treefarm.storage.Storage.fail_stale_trials`).
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

from ..storage import JSON, Storage

__all__ = ["KeepAlive", "identity", "worker_gone"]


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _namespace() -> str | None:
    """The boot id and PID-namespace inode: equal only for processes sharing a process table."""
    boot = _read("/proc/sys/kernel/random/boot_id")
    try:
        inode = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return None
    return f"{boot}:{inode}" if boot else None


def _start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat)."""
    stat = _read(f"/proc/{pid}/stat")
    if stat is None:
        return None
    fields = stat.rpartition(")")[2].split()
    return int(fields[19]) if len(fields) > 19 else None


@cache
def _identity_of(pid: int) -> dict[str, JSON]:
    return {
        "host": socket.gethostname(),
        "pid": pid,
        "token": secrets.token_hex(8),
        "namespace": _namespace(),
        "start": _start_time(pid),
    }


def identity() -> dict[str, JSON]:
    """This process's identity (a fresh token in a forked child, whose PID differs)."""
    return dict(_identity_of(os.getpid()))


def worker_gone(worker: Any) -> bool:
    """Whether the process described by ``worker`` (a trial's stored identity) is
    certainly dead: same namespace as this process, and its PID is gone or now
    belongs to a process started at another time. False whenever unsure."""
    me = identity()
    if not isinstance(worker, dict) or me["namespace"] is None or worker.get("namespace") != me["namespace"]:
        return False
    pid = worker.get("pid")
    if not isinstance(pid, int) or pid == me["pid"]:
        return False
    started = _start_time(pid)
    return started is None or (worker.get("start") is not None and started != worker.get("start"))


class KeepAlive:
    """The study's heartbeats: its running trials, from ``optimize`` or ``ask``, marked
    alive every ``interval`` seconds until they are told.

    Without a beat, a trial whose evaluation takes longer than its
    ``stale_after`` (six intervals, 60 s by default) in a study shared with
    other workers would be failed by their recovery while its process is alive.
    :meth:`ensure` (called as each trial is claimed) starts a daemon thread that
    beats ``numbers()`` every ``interval`` seconds and ends once there is none
    left (the next :meth:`ensure` starts another); one thread per study, so
    each trial is beaten once per interval; a process that dies stops beating,
    so its trials are still recovered.
    """

    def __init__(
        self, storage: Storage, study_id: int, numbers: Callable[[], Iterable[int]], interval: float
    ) -> None:
        self._storage = storage
        self._study_id = study_id
        self._numbers = numbers
        self._interval = interval
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def ensure(self) -> None:
        """Beat ``numbers()`` from now on (a thread is started if none runs)."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="treefarm-keepalive", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(self._interval)
            with self._lock:
                numbers = list(self._numbers())
                if not numbers:
                    self._thread = None
                    return
            for number in numbers:  # a failed beat is skipped: the next one retries
                try:
                    self._storage.heartbeat(self._study_id, number)
                except Exception:
                    continue
