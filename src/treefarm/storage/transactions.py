"""The SQL storage's connection to its database: engine, transactions, retries.

:class:`SQLConnection` opens the engine for a :class:`~treefarm.storage.url.StorageURL`
(``postgresql://`` means the psycopg 3 driver; SQLite files get the pragmas and
transaction handling of :mod:`.sqlite_file`), brings the schema to this treefarm's
revision (:mod:`.migrate`), and runs each storage call as one transaction:

* lock contention and lost connections are retried as :mod:`.resilience`
  describes, reconnecting after a lost connection, until ``retry_deadline``;
  then StorageUnavailableError;
* a write into a SQLite file that was deleted or replaced since it was opened
  is refused (StorageReplacedError), and a write through a read-only opening
  is refused (StorageError);
* a SQLite file it wrote is checkpointed on close, and at exit if still open
  (see :mod:`.sqlite_file`).

Each process should use its own connection; one inherited through ``fork``
drops the parent's connections on first use.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import time
import weakref
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import exc

from ..exceptions import (
    StorageError,
    StorageFullError,
    StorageReplacedError,
    StorageUnavailableError,
    format_values,
)
from ..validation import check_nonnegative
from . import sqlite_file
from .interrupts import sigint_deferred
from .migrate import ensure_schema
from .resilience import Failure, RetryClock, classify
from .url import StorageURL

__all__ = ["RETRY_DEADLINE", "SQLConnection"]

RETRY_DEADLINE = 60.0
"""Default seconds a call keeps reconnecting to a storage that went away before it gives up."""
_PG_SCHEMA_LOCK = 0x7472_6565  # pg_advisory_xact_lock key serializing schema creation ("tree")

_T = TypeVar("_T")


def _missing_driver(parsed: sa.URL, shown: str, error: ImportError) -> str:
    """The message for a URL whose database driver is not installed, naming the extra to install."""
    hint = " (pip install 'treefarm[postgres]')" if parsed.get_backend_name() == "postgresql" else ""
    return (
        f"the storage URL's database driver must be installed{hint}, but got {format_values(url=shown)} "
        f"({error})"
    )


def _check_synchronous(synchronous: object) -> None:
    if synchronous not in sqlite_file.SYNCHRONOUS:
        raise StorageError(
            f"synchronous must be one of {list(sqlite_file.SYNCHRONOUS)}, but got "
            f"{format_values(synchronous=synchronous)}"
        )


def _create_engine(url: StorageURL, engine_kwargs: Mapping[str, Any] | None, synchronous: str) -> sa.Engine:
    """The engine for ``url``: SQLite's busy timeout, read-only URI and hooks, or a
    server's pre-ping and read-only sessions; ``engine_kwargs`` override ours."""
    parsed = url.driver_url()
    sqlite = url.dialect == "sqlite"
    kwargs: dict[str, Any] = (
        {"connect_args": {"timeout": sqlite_file.BUSY_TIMEOUT_MS / 1000}} if sqlite else {"pool_pre_ping": True}
    )
    if url.read_only:
        parsed, kwargs = sqlite_file.read_only_url(parsed, kwargs)
    kwargs.update(engine_kwargs or {})
    try:
        engine = sa.create_engine(parsed, **kwargs)
    except ImportError as error:
        raise StorageError(_missing_driver(parsed, url.shown, error)) from None
    except exc.ArgumentError as error:
        raise StorageError(
            f"the storage URL must be usable, but got {format_values(url=url.shown)} ({error})"
        ) from None
    if sqlite:
        sqlite_file.install_hooks(engine, read_only=url.read_only, synchronous=synchronous)
    return engine


class SQLConnection:
    """The engine and transactions of a SQL storage (see the module docstring and
    :class:`~treefarm.storage.sql.SQLStorage` for the arguments).

    :meth:`read` and :meth:`write` run a body in one transaction, retrying;
    :meth:`close` releases the connections (it may be used again afterwards)."""

    def __init__(
        self,
        url: StorageURL,
        *,
        engine_kwargs: Mapping[str, Any] | None = None,
        retry_deadline: float = RETRY_DEADLINE,
        synchronous: str = "NORMAL",
    ) -> None:
        check_nonnegative("retry_deadline", retry_deadline, error=StorageError)
        _check_synchronous(synchronous)
        self.url = url
        self.retry_deadline = float(retry_deadline)
        self._file = url.path if url.dialect == "sqlite" else None
        self._identity: tuple[int, int] | None = None  # the file's, once opened (_check_same_file)
        self._dirty = False  # written since the last checkpoint of close()
        self._engine = _create_engine(url, engine_kwargs, synchronous)
        self._writer = self._engine.execution_options(treefarm_write=True)
        self._pid = os.getpid()
        self._open_schema()
        if self._file is not None and not url.read_only:
            self._identity = sqlite_file.file_identity(self._file)
        if self._file is not None:
            _OPEN.add(self)

    @property
    def engine(self) -> sa.Engine:
        """The SQLAlchemy engine (reads; a write goes through :meth:`write`)."""
        return self._engine

    def _open_schema(self) -> None:
        """Bring the schema to this treefarm's revision; on a read-only SQLite file whose
        ``-wal`` cannot be read, a StorageError saying why (:func:`.sqlite_file.unreadable_wal`)."""
        try:
            self._run(self._engine if self.url.read_only else self._writer, self._init_schema)
        except BaseException as error:
            self._engine.dispose()
            cause = error.__cause__
            why = (
                sqlite_file.unreadable_wal(self._file)
                if self.url.read_only and self._file is not None and isinstance(cause, exc.DBAPIError)
                else None
            )
            if why is None:
                raise
            assert isinstance(cause, exc.DBAPIError)
            raise StorageError(
                f"a SQLite file opened for reading must be readable, but got {format_values(path=str(self._file))}: "
                f"{why}; SQLite said {type(cause.orig).__name__}: {cause.orig}"
            ) from error

    def _init_schema(self, connection: sa.Connection) -> None:
        """Bring the schema to this treefarm's revision (:func:`.migrate.ensure_schema`),
        one opener at a time (SQLite's write lock; PostgreSQL's advisory lock)."""
        if connection.dialect.name == "postgresql":
            connection.execute(sa.select(sa.func.pg_advisory_xact_lock(_PG_SCHEMA_LOCK)))
        if ensure_schema(connection, read_only=self.url.read_only, shown=self.url.shown):
            self._dirty = True

    def _run(self, engine: sa.Engine, body: Callable[[sa.Connection], _T]) -> _T:
        """Run ``body`` in one transaction, retrying lock contention and lost connections
        (see :mod:`.resilience`)."""
        self._after_fork()
        clock = RetryClock(self.retry_deadline)
        while True:
            try:
                with sigint_deferred(), engine.connect() as connection, connection.begin():
                    result = body(connection)
                break
            except exc.DBAPIError as error:
                failure = classify(error)
                delay = clock.next_delay(failure)
                if delay is None:
                    raise self._wrap(error, failure, attempts=clock.attempts) from error
                if failure is Failure.CONNECTION:
                    self._engine.dispose()
                time.sleep(delay)
        return result

    def _wrap(self, error: exc.DBAPIError, failure: Failure, *, attempts: int) -> StorageError:
        if failure is Failure.FULL:
            return StorageFullError(
                f"the storage must have room to write, but got {format_values(url=self.url.shown)}: "
                f"{type(error.orig).__name__}: {error.orig}"
            )
        if failure is Failure.CONNECTION:
            values = format_values(url=self.url.shown, retry_deadline=self.retry_deadline, attempts=attempts)
            return StorageUnavailableError(
                f"the storage must answer within its retry deadline, but got {values}: "
                f"{type(error.orig).__name__}: {error.orig}"
            )
        return StorageError(
            f"the storage must open and answer, but got {format_values(url=self.url.shown, attempts=attempts)}: "
            f"{type(error.orig).__name__}: {error.orig}"
        )

    def write(self, body: Callable[[sa.Connection], _T]) -> _T:
        """Run ``body`` in one write transaction (``BEGIN IMMEDIATE`` on SQLite), retrying;
        refused through a read-only opening or into a replaced SQLite file."""
        if self.url.read_only:
            raise StorageError(
                f"a write needs a storage opened for writing, but got {format_values(url=self.url.shown)} "
                "opened read_only=True"
            )
        self._check_same_file()
        self._dirty = True
        return self._run(self._writer, body)

    def replaced(self) -> bool:
        """Whether the SQLite file this storage opened for writing was deleted or replaced
        since (one ``stat``; always False for PostgreSQL, a read-only or in-memory one)."""
        return self._identity is not None and self._file is not None and sqlite_file.file_identity(self._file) != self._identity

    def _check_same_file(self) -> None:
        """Refuse a write when the SQLite file was deleted or replaced since this storage
        opened it: its connections would write on into the old file, which no process can
        open again, and a run would end "complete" with every later trial lost."""
        if self.replaced():
            missing = self._file is None or not self._file.exists()
            raise StorageReplacedError(
                f"the SQLite file {self._file} was deleted or replaced while this process had it open "
                f"(it is {'missing' if missing else 'another file'} now): writing on would put "
                "results where no process can read them; reopen the study on the file there is now"
            )

    def read(self, body: Callable[[sa.Connection], _T]) -> _T:
        """Run ``body`` in one read transaction (one snapshot), retrying."""
        return self._run(self._engine, body)

    def close(self) -> None:
        """Release the connections. On a SQLite file this storage wrote, first copy the
        ``-wal`` file into the database file (``PRAGMA wal_checkpoint(TRUNCATE)``), so that
        the file alone holds every committed trial: see :mod:`.sqlite_file`. Never raises
        because other processes still use the file. The connection reconnects if used again."""
        self._after_fork()
        if self._dirty:
            self._dirty = False
            sqlite_file.checkpoint(self._engine, self._file)
        self._engine.dispose()

    def needs_checkpoint(self) -> bool:
        """Whether this process wrote since the last :meth:`close` (whose checkpoint is due)."""
        return self._dirty and self._pid == os.getpid()

    def _after_fork(self) -> None:
        """Drop the connections inherited through ``fork``: they stay the parent's."""
        if os.getpid() != self._pid:
            self._engine.dispose(close=False)
            self._pid = os.getpid()


_OPEN: weakref.WeakSet[SQLConnection] = weakref.WeakSet()
"""The SQLite connections of this process, closed (their ``-wal`` copied into the file) at exit."""


@atexit.register
def _close_at_exit() -> None:
    """Close every SQLite connection of this process that wrote since its last close, so that
    a program that never closes its storage (``Study.optimize`` and exit) leaves a
    database file that holds every trial."""
    for connection in list(_OPEN):
        if connection.needs_checkpoint():
            with contextlib.suppress(Exception):
                connection.close()
