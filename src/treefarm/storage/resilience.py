"""Which database errors are worth retrying, and how long to keep trying.

Two kinds of failure are transient:

* **Lock contention** (SQLite "database is locked"/"busy", PostgreSQL
  serialization failures and deadlocks): another writer holds what we need.
  Retried a fixed number of times (``LOCK_RETRIES``) with exponential backoff.
* **A lost connection** (the server restarted or is down, the network
  dropped, "the database system is starting up"): retried, reconnecting each
  time, until ``retry_deadline`` seconds have passed since the first failure,
  with exponential backoff capped at ``CONNECT_BACKOFF_CAP`` seconds so that a
  worker notices a restarted server within a second or so.

A full disk (SQLite's "database or disk is full", PostgreSQL's ``disk_full``) is
not retried: it is told apart so that the result being recorded is kept in the
journal instead of lost. Everything else (a constraint violation, a missing table, bad SQL) is a real
error and is raised at once. The backoff is "full jitter"-like: each delay is
drawn uniformly in [0.5, 1.5) times the nominal one, so workers that lost the
server together do not all reconnect in the same instant.
"""

from __future__ import annotations

import enum
import random
import time

from sqlalchemy import exc

__all__ = ["CONNECT_BACKOFF_CAP", "LOCK_RETRIES", "Failure", "RetryClock", "classify"]

LOCK_RETRIES = 8
"""Attempts of one transaction against lock contention (backoff 10 ms, 20 ms, ... <= 2 s)."""
CONNECT_BACKOFF_CAP = 1.0
"""Longest pause, in seconds, between two attempts to reach a server that went away."""
_PG_LOCK_CODES = ("40001", "40P01")  # serialization_failure, deadlock_detected
_PG_GONE_CODES = ("57P01", "57P02", "57P03")  # admin/crash shutdown, cannot connect now
_PG_FULL_CODES = ("53100", "53200")  # disk_full, out_of_memory


class Failure(enum.Enum):
    """What a database error means for a retry."""

    LOCK = "lock"
    CONNECTION = "connection"
    FULL = "full"
    FATAL = "fatal"


def classify(error: exc.DBAPIError) -> Failure:
    """Whether ``error`` is lock contention, a lost connection, or a real failure."""
    code = getattr(error.orig, "sqlstate", None)
    text = str(error.orig).lower()
    if code in _PG_LOCK_CODES or (
        isinstance(error, exc.OperationalError) and ("locked" in text or "busy" in text)
    ):
        return Failure.LOCK
    if code in _PG_FULL_CODES or "disk is full" in text or "no space left" in text:
        return Failure.FULL
    if error.connection_invalidated:
        return Failure.CONNECTION
    if isinstance(code, str) and (code.startswith("08") or code in _PG_GONE_CODES):
        return Failure.CONNECTION
    if isinstance(error, (exc.OperationalError, exc.InterfaceError)) and code is None and _is_network(error):
        return Failure.CONNECTION
    return Failure.FATAL


def _is_network(error: exc.DBAPIError) -> bool:
    """A driver error without a SQLSTATE that comes from a client/server driver (psycopg:
    connection refused, server closed the connection); SQLite has no server to lose."""
    return type(error.orig).__module__.split(".")[0] != "sqlite3"


class RetryClock:
    """The retry budget of one storage call: how long to wait before the next attempt,
    or None when it is spent (see the module docstring)."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.attempts = 0
        self._locks = 0
        self._first_loss: float | None = None

    def next_delay(self, failure: Failure) -> float | None:
        """Seconds to sleep before retrying after ``failure``; None to give up."""
        self.attempts += 1
        jitter = 0.5 + random.random()
        if failure is Failure.LOCK:
            self._locks += 1
            return None if self._locks >= LOCK_RETRIES else min(2.0, 0.01 * 2 ** (self._locks - 1)) * jitter
        if failure is Failure.CONNECTION:
            now = time.monotonic()
            if self._first_loss is None:
                self._first_loss = now
            left = self._first_loss + self.deadline - now
            if left <= 0:
                return None
            losses = self.attempts - self._locks
            return min(left, min(CONNECT_BACKOFF_CAP, 0.05 * 2 ** (losses - 1)) * jitter)
        return None
