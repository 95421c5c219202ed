"""The SQL storage's connection to its database: engine, transactions, retries, journal.

:class:`SQLConnection` opens the engine for a URL (``postgresql://`` means the
psycopg 3 driver; SQLite files get the pragmas and transaction handling of
:mod:`.sqlite_file`), brings the schema to this treefarm's revision
(:mod:`.migrate`), and runs each storage call as one transaction:

* lock contention and lost connections are retried as :mod:`.resilience`
  describes, reconnecting after a lost connection, until ``retry_deadline``;
  then StorageUnavailableError;
* after a successful call, finishes kept in the local journal
  (:mod:`.journal`) are replayed;
* a write into a SQLite file that was deleted or replaced since it was opened
  is refused (StorageReplacedError), and a write through a read-only opening
  is refused (StorageError).
"""

from __future__ import annotations

import abc
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
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
from . import journal as journal_file
from . import sqlite_file
from .interrupts import sigint_deferred
from .migrate import ensure_schema
from .records import TrialRecord
from .resilience import Failure, RetryClock, classify

__all__ = ["RETRY_DEADLINE", "SQLConnection"]

RETRY_DEADLINE = 60.0
"""Default seconds a call keeps reconnecting to a storage that went away before it gives up."""
_PG_SCHEMA_LOCK = 0x7472_6565  # pg_advisory_xact_lock key serializing schema creation ("tree")

_T = TypeVar("_T")


def _driver_url(url: str) -> sa.URL:
    """The SQLAlchemy URL for ``url``: plain ``postgresql`` means psycopg 3."""
    try:
        parsed = sa.make_url(url)
    except exc.ArgumentError as error:
        raise StorageError(f"a storage URL must parse, but got {format_values(url=url)} ({error})") from None
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:"):
        raise StorageError(
            "a SQLite URL must name a file (use ':memory:' for an in-memory storage), "
            f"but got {format_values(url=url)}"
        )
    return parsed


def _missing_driver(parsed: sa.URL, shown: str, error: ImportError) -> str:
    """The message for a URL whose database driver is not installed, naming the extra to install."""
    hint = " (pip install 'treefarm[postgres]')" if parsed.get_backend_name() == "postgresql" else ""
    return (
        f"the storage URL's database driver must be installed{hint}, but got {format_values(url=shown)} "
        f"({error})"
    )



class SQLConnection(abc.ABC):
    """The engine and transactions of a SQL storage; see the module docstring and
    :class:`~treefarm.storage.sql.SQLStorage` for the arguments."""

    def __init__(
        self,
        url: str,
        *,
        engine_kwargs: Mapping[str, Any] | None = None,
        read_only: bool = False,
        retry_deadline: float = RETRY_DEADLINE,
        journal: str | os.PathLike[str] | None = journal_file.DEFAULT_JOURNAL,
        synchronous: str = "NORMAL",
    ) -> None:
        if (
            isinstance(retry_deadline, bool)
            or not isinstance(retry_deadline, (int, float))
            or not retry_deadline >= 0
        ):
            raise StorageError(
                f"retry_deadline must be a number >= 0, but got {format_values(retry_deadline=retry_deadline)}"
            )
        if synchronous not in sqlite_file.SYNCHRONOUS:
            raise StorageError(
                f"synchronous must be one of {list(sqlite_file.SYNCHRONOUS)}, but got "
                f"{format_values(synchronous=synchronous)}"
            )
        self.url = url
        self.read_only = read_only
        self.retry_deadline = float(retry_deadline)
        self.journal = None if journal is None or read_only else Path(journal).expanduser().resolve()
        self._journal_seen: tuple[float, int] | None = None
        self._replaying = threading.Lock()
        parsed = _driver_url(url)
        self._shown = parsed.render_as_string(hide_password=True)
        self._sqlite = parsed.get_backend_name() == "sqlite"
        self._file = sqlite_file.sqlite_file(parsed) if self._sqlite else None
        self._identity: tuple[int, int] | None = None  # the file's, once opened (_check_same_file)
        self._dirty = False  # written since the last checkpoint of close()
        kwargs: dict[str, Any] = (
            {"connect_args": {"timeout": sqlite_file.BUSY_TIMEOUT_MS / 1000}}
            if self._sqlite
            else {"pool_pre_ping": True}
        )
        if read_only:
            parsed, kwargs = sqlite_file.read_only_url(parsed, kwargs, shown=self._shown)
        kwargs.update(engine_kwargs or {})
        try:
            self._engine = sa.create_engine(parsed, **kwargs)
        except ImportError as error:
            raise StorageError(_missing_driver(parsed, self._shown, error)) from None
        except exc.ArgumentError as error:
            raise StorageError(
                f"the storage URL must be usable, but got {format_values(url=self._shown)} ({error})"
            ) from None
        if self._sqlite:
            sqlite_file.install_hooks(self._engine, read_only=read_only, synchronous=synchronous)
        self._writer = self._engine.execution_options(treefarm_write=True)
        self._pid = os.getpid()
        try:
            self._run(self._engine if read_only else self._writer, self._init_schema)
        except BaseException as error:
            self._engine.dispose()
            cause = error.__cause__
            why = (
                sqlite_file.unreadable_wal(self._file)
                if read_only and self._file is not None and isinstance(cause, exc.DBAPIError)
                else None
            )
            if why is None:
                raise
            assert isinstance(cause, exc.DBAPIError)
            raise StorageError(
                f"a SQLite file opened for reading must be readable, but got {format_values(path=str(self._file))}: "
                f"{why}; SQLite said {type(cause.orig).__name__}: {cause.orig}"
            ) from error
        self._identity = (
            sqlite_file.file_identity(self._file) if self._file is not None and not read_only else None
        )

    @property
    def shown_url(self) -> str:
        """The storage's URL without its password, as its messages and journal entries name it."""
        return self._shown

    def _init_schema(self, connection: sa.Connection) -> None:
        """Bring the schema to this treefarm's revision (:func:`.migrate.ensure_schema`),
        one opener at a time (SQLite's write lock; PostgreSQL's advisory lock)."""
        if connection.dialect.name == "postgresql":
            connection.execute(sa.select(sa.func.pg_advisory_xact_lock(_PG_SCHEMA_LOCK)))
        if ensure_schema(connection, read_only=self.read_only, shown=self._shown):
            self._dirty = True

    @abc.abstractmethod
    def _finish_entry(self, item: Mapping[str, Any]) -> TrialRecord:
        """Write one journal entry's finish (see :func:`.journal.finish_entry`)."""

    def _run(self, engine: sa.Engine, body: Callable[[sa.Connection], _T]) -> _T:
        """Run ``body`` in one transaction, retrying lock contention and lost connections
        (see :mod:`.resilience`); then replay the journal if it holds anything."""
        if os.getpid() != self._pid:
            self._engine.dispose(close=False)
            self._pid = os.getpid()
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
        self._replay_journal()
        return result

    def _wrap(self, error: exc.DBAPIError, failure: Failure, *, attempts: int) -> StorageError:
        if failure is Failure.FULL:
            return StorageFullError(
                f"the storage must have room to write, but got {format_values(url=self._shown)}: "
                f"{type(error.orig).__name__}: {error.orig}"
            )
        if failure is Failure.CONNECTION:
            values = format_values(url=self._shown, retry_deadline=self.retry_deadline, attempts=attempts)
            return StorageUnavailableError(
                f"the storage must answer within its retry deadline, but got {values}: "
                f"{type(error.orig).__name__}: {error.orig}"
            )
        return StorageError(
            f"the storage must open and answer, but got {format_values(url=self._shown, attempts=attempts)}: "
            f"{type(error.orig).__name__}: {error.orig}"
        )

    def _replay_journal(self) -> None:
        """Write the journal's results for this storage, when the file changed since the
        last look (one ``stat`` per call otherwise); one thread at a time."""
        if self.journal is None or journal_file.replaying() or self._replaced():
            return  # a replaced file takes no result: the journal keeps them for `treefarm recover`
        try:
            stat = self.journal.stat()
        except OSError:
            return
        seen = (stat.st_mtime, stat.st_size)
        if stat.st_size == 0 or seen == self._journal_seen or not self._replaying.acquire(blocking=False):
            return
        try:
            done = journal_file.replay(self.journal, self._finish_entry, url=self._shown)
            for item in done.recorded:
                print(
                    f"treefarm: recorded trial {item['number']} from the journal {self.journal}",
                    file=sys.stderr,
                )
            for item in done.refused:
                what = f"trial {item['number']}" if "number" in item else "an entry"
                print(
                    f"treefarm: the storage refused {what} from the journal "
                    f"{self.journal} ({item['refused']}); kept in {self.journal}.rejected",
                    file=sys.stderr,
                )
            if not done.stopped:  # else tried again at the next call (a disk full takes reads)
                stat = self.journal.stat()
                self._journal_seen = (stat.st_mtime, stat.st_size)
        except OSError:
            return
        except StorageError as error:  # not a journal: said once, never in the way of the storage
            print(f"treefarm: the journal was not replayed: {error}", file=sys.stderr)
            self._journal_seen = seen
        finally:
            self._replaying.release()

    def _journaled(
        self, error: StorageUnavailableError | StorageReplacedError, number: int, item: Mapping[str, Any]
    ) -> StorageError:
        """Keep a finish the storage could not take in the journal (flushed and fsynced);
        the error to raise, saying where the result went."""
        assert self.journal is not None
        journal_file.append(self.journal, item)
        message = (
            f"the result of trial {number} was kept in the journal {self.journal}: it is written when "
            f"the storage answers again, or by `treefarm recover {self.journal} STORAGE` ({error})"
            if isinstance(error, StorageUnavailableError)
            else f"the result of trial {number} was kept in the journal {self.journal}, since {error}"
        )
        print(f"treefarm: {message}", file=sys.stderr)
        return type(error)(message, journal=str(self.journal))

    def _write(self, body: Callable[[sa.Connection], _T]) -> _T:
        if self.read_only:
            raise StorageError(
                f"a write needs a storage opened for writing, but got {format_values(url=self._shown)} "
                "opened read_only=True"
            )
        self._check_same_file()
        self._dirty = True
        return self._run(self._writer, body)

    def _replaced(self) -> bool:
        """Whether the SQLite file this storage opened for writing was deleted or replaced
        since (one ``stat``; always False for PostgreSQL, a read-only or in-memory one)."""
        return self._identity is not None and self._file is not None and sqlite_file.file_identity(self._file) != self._identity

    def _check_same_file(self) -> None:
        """Refuse a write when the SQLite file was deleted or replaced since this storage
        opened it: its connections would write on into the old file, which no process can
        open again, and a run would end "complete" with every later trial lost."""
        if self._replaced():
            missing = self._file is None or not self._file.exists()
            raise StorageReplacedError(
                f"the SQLite file {self._file} was deleted or replaced while this process had it open "
                f"(it is {'missing' if missing else 'another file'} now): writing on would put "
                "results where no process can read them; reopen the study on the file there is now"
            )

    def _read(self, body: Callable[[sa.Connection], _T]) -> _T:
        return self._run(self._engine, body)

    def close(self) -> None:
        """Release the connections. On a SQLite file this storage wrote, first copy the
        ``-wal`` file into the database file (``PRAGMA wal_checkpoint(TRUNCATE)``), so that
        the file alone holds every committed trial: see :mod:`.sqlite_file`. Never raises
        because other processes still use the file. The storage reconnects if used again."""
        if os.getpid() != self._pid:  # inherited through fork: the parent's connections stay the parent's
            self._engine.dispose(close=False)
            self._pid = os.getpid()
        if self._dirty:
            self._dirty = False
            sqlite_file.checkpoint(self._engine, self._file)
        self._engine.dispose()

