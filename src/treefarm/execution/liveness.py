"""Who runs a trial, whether that process is still alive, and its heartbeat.

A worker marks each trial it claims with its identity: the host name, a
random token drawn once per process, its PID and process start time, and the
PID namespace it lives in (the kernel's boot id and the namespace's inode).
Containers may share a host name while each has its own PIDs, so a PID is
only checked when the namespace proves the trial's worker and the checker
see the same process table; the start time then tells a dead worker from a
new process that reused its PID, and a zombie (killed, not yet reaped) is
dead. There a worker is judged by its process (:func:`worker_gone`,
:func:`worker_alive`), whatever its heartbeat says: a live one may hold the
GIL longer than its heartbeat deadline. Everywhere else the trial's own
heartbeat decides (see :meth:`treefarm.storage.Storage.fail_stale_trials`).
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

__all__ = ["KeepAlive", "identity", "worker_alive", "worker_gone"]


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


DEAD_STATES = frozenset("ZX")
"""/proc states of a process that has exited: a zombie (killed, not yet reaped by its
parent) keeps its /proc entry and start time, but runs nothing and beats no heartbeat."""


def _stat(pid: int) -> tuple[str, int] | None:
    """The process's state letter and start time in clock ticks since boot (fields 3 and
    22 of /proc/PID/stat); None if there is no such process."""
    stat = _read(f"/proc/{pid}/stat")
    if stat is None:
        return None
    fields = stat.rpartition(")")[2].split()  # the command name, in parentheses, may hold spaces
    return (fields[0], int(fields[19])) if len(fields) > 19 else None


def _start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat)."""
    stat = _stat(pid)
    return None if stat is None else stat[1]


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


def _local_pid(worker: Any) -> int | None:
    """The PID of the process described by ``worker`` (a trial's stored identity) if it
    lives in this process's PID namespace, so that /proc here shows that very process;
    None otherwise (another host or container, an older identity, not an identity)."""
    me = identity()
    if not isinstance(worker, dict) or me["namespace"] is None or worker.get("namespace") != me["namespace"]:
        return None
    pid = worker.get("pid")
    return pid if isinstance(pid, int) and not isinstance(pid, bool) else None


def worker_gone(worker: Any) -> bool:
    """Whether the process described by ``worker`` (a trial's stored identity) is
    certainly dead: same namespace as this process, and its PID is gone, is a zombie
    (killed but not yet reaped: dead, though its /proc entry remains) or now belongs to
    a process started at another time. False whenever unsure."""
    pid = _local_pid(worker)
    if pid is None or pid == os.getpid():
        return False
    stat = _stat(pid)
    if stat is None or stat[0] in DEAD_STATES:
        return True
    return worker.get("start") is not None and stat[1] != worker.get("start")


def worker_alive(worker: Any) -> bool:
    """Whether the process described by ``worker`` (a trial's stored identity) is
    certainly alive: same namespace as this process, and its PID is a running (not
    zombie) process started at the stored time. Such a worker keeps its trial even when
    its heartbeat is late (an objective holding the GIL stops the heartbeat thread).
    False whenever unsure (another host or namespace, no PID or start time)."""
    pid = _local_pid(worker)
    if pid is None or worker.get("start") is None:
        return False
    stat = _stat(pid)
    return stat is not None and stat[0] not in DEAD_STATES and stat[1] == worker.get("start")


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
