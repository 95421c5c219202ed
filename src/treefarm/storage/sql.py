"""One SQL storage for SQLite files and PostgreSQL servers, on SQLAlchemy Core.

Every dialect quirk lives in this file:

* **SQLite.** The file runs in WAL journal mode (readers never block the
  writer), with ``synchronous=NORMAL`` by default (never corrupt, but the last
  commits before a power loss or OS crash may be lost; ``synchronous="FULL"``
  fsyncs every commit) and a 30 s ``busy_timeout``. pysqlite would otherwise issue its own
  deferred ``BEGIN`` lazily, and a deferred transaction that reads and then
  writes fails at once with "database is locked" when another process holds
  the write lock, whatever the timeout. So, as SQLAlchemy's pysqlite notes
  ("Serializable isolation / Savepoints / Transactional DDL") recommend, the
  driver's transaction handling is switched off on connect and the ``begin``
  event emits our own: ``BEGIN IMMEDIATE`` for writes (the write lock is taken
  up front, waiting up to the busy timeout) and a plain ``BEGIN`` for reads
  (one consistent snapshot). What still surfaces as "locked"/"busy" is retried
  with bounded exponential backoff.

  Commits land in the ``-wal`` file beside the database; SQLite copies them
  into the database file at a checkpoint (automatically every 1000 pages, and
  when the last connection to the file closes). So that the ``.db`` file alone
  holds every committed trial once treefarm is done with it (a copy or a backup
  of that one file), :meth:`SQLStorage.close`, and an ``atexit`` hook for every
  storage still open that wrote, runs ``PRAGMA wal_checkpoint(TRUNCATE)``
  before releasing the connections. Nothing is checkpointed per write (that
  would cost throughput with many workers). Closing while other processes use
  the file is safe: the checkpoint waits at most :data:`CLOSE_CHECKPOINT_MS`
  for their writer and readers, then copies what it can without waiting and
  leaves the rest to the last one to close.

  A read-only opening (``read_only=True``) uses ``mode=ro``, which reads the
  ``-wal`` file too; only a file that nobody can write (its folder or itself
  not writable) and that has no ``-wal`` with content beside it is opened as
  ``immutable`` (SQLite then ignores any ``-wal``), since in a read-only folder
  ``mode=ro`` cannot create the ``-shm`` file a WAL database needs. A file
  whose ``-wal`` holds data in a folder where no ``-shm`` can be made is
  refused with an error that says so.
* **PostgreSQL.** Number assignment and claims lock the study row
  (``SELECT ... FOR UPDATE``), finishing locks the trial row, so concurrent
  workers serialize exactly where they must; serialization failures and
  deadlocks are retried. ``postgresql://`` means the psycopg 3 driver.
  Connections are checked before use (``pool_pre_ping``).

**Outages.** Lock contention and lost connections are retried as
:mod:`treefarm.storage.resilience` describes, reconnecting after a lost
connection, until ``retry_deadline``; then StorageUnavailableError. Every
write is safe to retry after a commit whose acknowledgement was lost:
finishes are checked against the stored outcome, claims and trial creations
carry a per-call request id (``system_attrs["_request"]``, left out of
records) that a retry looks for first, and a study creation recognizes its
own row by its creation time. A finish that still cannot be written goes to
the local journal (:mod:`treefarm.storage.journal`) and is replayed by the
next successful call.

Schema (tables are prefixed ``treefarm_`` so that a database shared with other
tools, e.g. an Optuna file, never collides): ``treefarm_meta`` (key, value;
holds ``schema_version``), ``treefarm_studies``, ``treefarm_trials`` (unique
per study and number; params and attributes as JSON text) and
``treefarm_intermediate`` (study, number, step -> value, NULL for NaN).
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import secrets
import sys
import threading
import time
import weakref
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, unquote

import sqlalchemy as sa
from sqlalchemy import event, exc

from ..exceptions import StorageError, StorageReplacedError, StorageUnavailableError, format_values
from . import checks
from . import journal as journal_file
from .base import _NO_ATTRS, Storage
from .interrupts import sigint_deferred
from .pages import PageQuery, TrialSummary
from .records import JSON, REQUEUED, HintRecord, StudyRecord, TrialRecord, TrialState
from .resilience import Failure, RetryClock, classify

__all__ = ["SCHEMA_VERSION", "SQLStorage"]

SCHEMA_VERSION = 1
"""Bumped whenever the tables change; a database with another version is refused."""
BUSY_TIMEOUT_MS = 30_000
"""How long SQLite waits for the write lock before reporting "busy" (then we retry)."""
RETRY_DEADLINE = 60.0
"""Default seconds a call keeps reconnecting to a storage that went away before it gives up."""
REQUEST = "_request"
"""The ``system_attrs`` key of a claim's or creation's request id (hidden from records)."""
SYNCHRONOUS = ("NORMAL", "FULL")
"""SQLite ``synchronous`` settings offered: NORMAL (fast, may lose the last commits on power
loss) and FULL (every commit fsynced)."""
CLOSE_CHECKPOINT_MS = 250
"""How long the checkpoint of :meth:`SQLStorage.close` waits for other connections' writer and
readers before copying, without waiting, what it can (the last connection to close does the rest)."""
_PG_SCHEMA_LOCK = 0x7472_6565  # pg_advisory_xact_lock key serializing schema creation ("tree")

_T = TypeVar("_T")

metadata = sa.MetaData()
meta_table = sa.Table(
    "treefarm_meta",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)
studies = sa.Table(
    "treefarm_studies",
    metadata,
    sa.Column("study_id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(512), nullable=False, unique=True),
    sa.Column("direction", sa.String(16), nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=True),
    sa.Column("attrs", sa.Text, nullable=False),
    sa.Column("created", sa.Double, nullable=False),
)
trials = sa.Table(
    "treefarm_trials",
    metadata,
    sa.Column("trial_id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("study_id", sa.Integer, sa.ForeignKey("treefarm_studies.study_id"), nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("params", sa.Text, nullable=False),
    sa.Column("value", sa.Double, nullable=True),
    sa.Column("user_attrs", sa.Text, nullable=False),
    sa.Column("system_attrs", sa.Text, nullable=False),
    sa.Column("started", sa.Double, nullable=True),
    sa.Column("finished", sa.Double, nullable=True),
    sa.Column("heartbeat", sa.Double, nullable=True),
    sa.UniqueConstraint("study_id", "number", name="treefarm_trials_study_number"),
    sa.Index("treefarm_trials_study_state", "study_id", "state", "number"),
)
hints_table = sa.Table(
    "treefarm_hints",
    metadata,
    sa.Column("hint_id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("study_id", sa.Integer, sa.ForeignKey("treefarm_studies.study_id"), nullable=False, index=True),
    sa.Column("config", sa.Text, nullable=False),
    sa.Column("credibility", sa.Double, nullable=False),
    sa.Column("weight", sa.Integer, nullable=False),
    sa.Column("spread", sa.Double, nullable=False),
    sa.Column("author", sa.String(256), nullable=True),
    sa.Column("created", sa.Double, nullable=False),
    sqlite_autoincrement=True,  # a removed hint's id is never given to a new one
)
intermediate = sa.Table(
    "treefarm_intermediate",
    metadata,
    sa.Column("study_id", sa.Integer, sa.ForeignKey("treefarm_studies.study_id"), primary_key=True),
    sa.Column("number", sa.Integer, primary_key=True),
    sa.Column("step", sa.BigInteger, primary_key=True),
    sa.Column("value", sa.Double, nullable=True),
)


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


def _writable(path: Path) -> bool:
    """Whether this process may write ``path`` (a file or a folder)."""
    return os.access(path, os.W_OK)


def _wal_has_content(path: Path) -> bool:
    """Whether the ``-wal`` file beside the SQLite file ``path`` exists and is not empty (it may
    hold commits that are not in ``path`` yet; empty after a TRUNCATE checkpoint)."""
    try:
        return Path(f"{path}-wal").stat().st_size > 0
    except OSError:
        return False


def read_only_flags(path: Path) -> str:
    """The URI parameters of a read-only opening of the SQLite file ``path``.

    ``mode=ro``, which reads the ``-wal`` file too, unless nobody can write the
    file (neither it nor its folder is writable for us: WAL readers need a
    ``-shm`` file beside it, which ``mode=ro`` cannot create in a read-only folder)
    and no ``-wal`` file with content lies beside it: then ``mode=ro&immutable=1``,
    which reads the database file alone, correct only when that file holds
    everything (SQLite ignores a ``-wal`` file of an immutable database).
    """
    writable = _writable(path.parent) and _writable(path)
    if writable or _wal_has_content(path):
        return "mode=ro"
    return "mode=ro&immutable=1"


def _read_only(parsed: sa.URL, kwargs: dict[str, Any], *, shown: str) -> tuple[sa.URL, dict[str, Any]]:
    """The URL and engine arguments of a read-only opening; a SQLite file must exist.

    SQLite opens the file with :func:`read_only_flags`. PostgreSQL sessions
    default to read-only transactions.
    """
    if parsed.get_backend_name() != "sqlite":
        return parsed, {**kwargs, "connect_args": {"options": "-c default_transaction_read_only=on"}}
    path = Path(parsed.database or "")
    if not path.is_file():
        raise StorageError(
            f"a storage opened for reading must exist, but got {format_values(path=str(path))}"
        )
    uri = f"file:{quote(str(path.resolve()))}?{read_only_flags(path)}"
    return parsed.set(database=uri, query={"uri": "true"}), kwargs


def _unreadable_wal(path: Path) -> str | None:
    """Why a read-only opening of ``path`` failed, when the cause is its ``-wal`` file
    in a folder where the ``-shm`` file cannot be made; None otherwise."""
    shm = Path(f"{path}-shm")
    if not _wal_has_content(path) or _writable(path.parent) or shm.exists():
        return None
    return (
        f"{path.name}-wal beside it holds commits not yet copied into the file, and reading them "
        f"needs a {shm.name} file, which SQLite cannot create in the read-only folder {str(path.parent)!r} "
        "(copy the file with its -wal to a writable folder, or let the process that wrote it "
        "close it: treefarm copies the -wal into the file on close)"
    )


def _file_identity(path: Path) -> tuple[int, int] | None:
    """The (device, inode) of the file at ``path``, None if there is none."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    return found.st_dev, found.st_ino


def _sqlite_file(parsed: sa.URL) -> Path | None:
    """The file a SQLite URL names (also as a ``file:`` URI), made absolute; None without one."""
    database = parsed.database or ""
    if database.startswith("file:"):
        database = unquote(database[len("file:") :].split("?", 1)[0])
    if not database or database == ":memory:":
        return None
    return Path(database).expanduser().resolve()


def _install_sqlite_hooks(engine: sa.Engine, *, read_only: bool, synchronous: str) -> None:
    """WAL, busy timeout and our own BEGIN / BEGIN IMMEDIATE (see the module docstring)."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not read_only:
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute(f"PRAGMA synchronous = {synchronous}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: sa.Connection) -> None:
        write = connection.get_execution_options().get("treefarm_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def _record(row: Sequence[Any], steps: Mapping[int, float]) -> TrialRecord:
    """The record of a ``trials`` row, given as a tuple in the table's column order
    (unpacked by position: attribute access on rows dominates a long history read)."""
    _, study_id, number, state, params, value, user_attrs, system_attrs, started, finished, beat = row
    return TrialRecord(
        study_id=study_id,
        number=number,
        state=TrialState(state),
        params=checks.decode(params),
        value=value,
        intermediate=dict(steps),
        user_attrs=checks.decode(user_attrs),
        system_attrs=_public(checks.decode(system_attrs)),
        started=started,
        finished=finished,
        heartbeat=beat,
    )


def _public(system_attrs: dict[str, JSON]) -> dict[str, JSON]:
    """System attributes as callers see them: without the storage's own request id."""
    system_attrs.pop(REQUEST, None)
    return system_attrs


def _as_row(values: Mapping[str, Any]) -> tuple[Any, ...]:
    """Values just written, as a tuple in the column order of ``trials``."""
    return tuple(values.get(column.name) for column in trials.columns)


def _study_record(row: Any) -> StudyRecord:
    return StudyRecord(row.study_id, row.name, row.direction, row.seed, checks.decode(row.attrs), row.created)


def _states(states: Collection[TrialState] | None) -> list[str] | None:
    return None if states is None else [TrialState(s).value for s in states]


def _merged(text: str, attrs: Mapping[str, JSON], *, what: str) -> str:
    return checks.encode_value({**checks.decode(text), **attrs}, what=what) if attrs else text


class SQLStorage(Storage):
    """A storage in a SQLite file or a PostgreSQL database; see :class:`Storage`.

    ``url`` is a SQLAlchemy URL (``sqlite:///runs.db``, ``postgresql://user@host/db``);
    ``engine_kwargs`` are passed to :func:`sqlalchemy.create_engine`. The tables
    are created on first open; a database written by a newer treefarm (another
    ``schema_version``) is refused with a StorageError. Each process should open
    its own ``SQLStorage``; one that is inherited through ``fork`` drops the
    parent's connections on first use.

    ``retry_deadline`` is how many seconds a call keeps reconnecting to a server
    that went away before raising StorageUnavailableError; ``journal`` the file
    that keeps a finished result the storage could not take in that time (default
    ``treefarm-journal.jsonl`` in the working directory; None to raise instead);
    ``synchronous`` SQLite's ``"NORMAL"`` or ``"FULL"`` (see the module docstring).
    """

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
        if synchronous not in SYNCHRONOUS:
            raise StorageError(
                f"synchronous must be one of {list(SYNCHRONOUS)}, but got {format_values(synchronous=synchronous)}"
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
        self._file = _sqlite_file(parsed) if self._sqlite else None
        self._identity: tuple[int, int] | None = None  # the file's, once opened (_check_same_file)
        self._dirty = False  # written since the last checkpoint of close()
        kwargs: dict[str, Any] = (
            {"connect_args": {"timeout": BUSY_TIMEOUT_MS / 1000}} if self._sqlite else {"pool_pre_ping": True}
        )
        if read_only:
            parsed, kwargs = _read_only(parsed, kwargs, shown=self._shown)
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
            _install_sqlite_hooks(self._engine, read_only=read_only, synchronous=synchronous)
        self._writer = self._engine.execution_options(treefarm_write=True)
        self._pid = os.getpid()
        try:
            self._run(self._engine if read_only else self._writer, self._init_schema)
        except BaseException as error:
            self._engine.dispose()
            cause = error.__cause__
            why = (
                _unreadable_wal(self._file)
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
        if self._sqlite:
            _OPEN.add(self)
        self._identity = _file_identity(self._file) if self._file is not None and not read_only else None

    # ------------------------------------------------------------ transactions
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
            stat = self.journal.stat()
            self._journal_seen = (stat.st_mtime, stat.st_size)
        except OSError:
            return
        finally:
            self._replaying.release()

    def _finish_entry(self, item: Mapping[str, Any]) -> TrialRecord:
        return journal_file.finish_entry(self._finish, item)

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
        return self._identity is not None and self._file is not None and _file_identity(self._file) != self._identity

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

    def _init_schema(self, connection: sa.Connection) -> None:
        if connection.dialect.name == "postgresql":
            connection.execute(sa.select(sa.func.pg_advisory_xact_lock(_PG_SCHEMA_LOCK)))
        if not sa.inspect(connection).has_table(meta_table.name):
            if self.read_only:
                raise StorageError(
                    "a storage opened for reading must hold treefarm's tables, but got "
                    f"{format_values(url=self._shown)} (no treefarm_meta table)"
                )
            metadata.create_all(connection)
            self._dirty = True
            self._has_hints = True
            connection.execute(sa.insert(meta_table).values(key="schema_version", value=str(SCHEMA_VERSION)))
            return
        if not self.read_only and not sa.inspect(connection).has_table(hints_table.name):
            hints_table.create(connection)  # a table added since the database was made
            self._dirty = True
        self._has_hints = self.read_only is False or sa.inspect(connection).has_table(hints_table.name)
        query = sa.select(meta_table.c.value).where(meta_table.c.key == "schema_version")
        found = connection.execute(query).scalar()
        if found != str(SCHEMA_VERSION):
            raise StorageError(
                f"the database schema_version must be {SCHEMA_VERSION} (this treefarm's); a newer "
                "treefarm wrote it, or it is not a treefarm database, but got "
                f"{format_values(schema_version=found, url=self._shown)}"
            )

    # ----------------------------------------------------------------- studies
    def create_study(
        self,
        name: str,
        *,
        direction: str,
        seed: int | None,
        attrs: Mapping[str, JSON],
        load_if_exists: bool = False,
    ) -> StudyRecord:
        text = checks.check_study(direction, seed, attrs)
        exists = StorageError(f"the study name must be new, but got {format_values(name=name)}")

        created = time.time()

        def body(connection: sa.Connection) -> StudyRecord:
            row = connection.execute(sa.select(studies).where(studies.c.name == name)).first()
            if row is not None:
                if load_if_exists or row.created == created:  # ours, from an attempt whose reply was lost
                    return _study_record(row)
                raise exists
            values = {"name": name, "direction": direction, "seed": seed, "attrs": text, "created": created}
            insert = sa.insert(studies).values(**values).returning(studies.c.study_id)
            study_id = int(connection.execute(insert).scalar_one())
            return StudyRecord(study_id, name, direction, seed, checks.decode(text), created)

        try:
            return self._write(body)
        except StorageError as error:
            if not isinstance(error.__cause__, exc.IntegrityError):
                raise
            if load_if_exists:  # another process created it between our read and our insert
                return self.get_study(name)
            raise exists from None

    def get_study(self, name: str) -> StudyRecord:
        def body(connection: sa.Connection) -> StudyRecord:
            row = connection.execute(sa.select(studies).where(studies.c.name == name)).first()
            if row is None:
                raise checks.study_not_found(name=name)
            return _study_record(row)

        return self._read(body)

    def list_studies(self) -> list[StudyRecord]:
        def body(connection: sa.Connection) -> list[StudyRecord]:
            rows = connection.execute(sa.select(studies).order_by(studies.c.study_id))
            return [_study_record(row) for row in rows]

        return self._read(body)

    def delete_study(self, name: str) -> None:
        attempts = 0

        def body(connection: sa.Connection) -> None:
            nonlocal attempts
            attempts += 1
            query = sa.select(studies.c.study_id).where(studies.c.name == name)
            study_id = connection.execute(query).scalar()
            if study_id is None:
                if attempts > 1:  # an earlier attempt deleted it, and its reply was lost
                    return
                raise checks.study_not_found(name=name)
            for table in (hints_table, intermediate, trials, studies):
                connection.execute(sa.delete(table).where(table.c.study_id == study_id))

        self._write(body)

    def set_study_attr(self, study_id: int, key: str, value: JSON) -> None:
        checks.encode_attrs({key: value}, what="attrs")

        def body(connection: sa.Connection) -> None:
            text = _merged(_lock_study(connection, study_id).attrs, {key: value}, what="attrs")
            connection.execute(sa.update(studies).where(studies.c.study_id == study_id).values(attrs=text))

        self._write(body)

    # ------------------------------------------------------------------ trials
    def create_trial(
        self,
        study_id: int,
        *,
        params: Mapping[str, JSON],
        state: TrialState = TrialState.RUNNING,
        system_attrs: Mapping[str, JSON] = _NO_ATTRS,
        user_attrs: Mapping[str, JSON] = _NO_ATTRS,
    ) -> TrialRecord:
        state = checks.check_state(
            state, allowed=(TrialState.RUNNING, TrialState.WAITING), action="creating a trial"
        )
        request = _request_id()
        values: dict[str, Any] = {
            "study_id": study_id,
            "state": state.value,
            "params": checks.encode_params(params),
            "value": None,
            "user_attrs": checks.encode_attrs(user_attrs, what="user_attrs"),
            "system_attrs": checks.encode_attrs({**system_attrs, REQUEST: request}, what="system_attrs"),
            "finished": None,
        }
        attempts = 0

        def body(connection: sa.Connection) -> TrialRecord:
            nonlocal attempts
            attempts += 1
            earlier, last = _numbering(connection, study_id, request, retried=attempts > 1)
            if earlier is not None:
                return earlier
            now = time.time() if state is TrialState.RUNNING else None
            row = {**values, "number": 0 if last is None else last + 1, "started": now, "heartbeat": now}
            connection.execute(sa.insert(trials).values(**row))
            return _record(_as_row(row), {})

        return self._write(body)

    def claim_trial(
        self,
        study_id: int,
        *,
        system_attrs: Mapping[str, JSON] = _NO_ATTRS,
        budget: int | None = None,
    ) -> TrialRecord | None:
        request = _request_id()
        system_attrs = {**system_attrs, REQUEST: request}
        attrs_text = checks.encode_attrs(system_attrs, what="system_attrs")
        attempts = 0

        def body(connection: sa.Connection) -> TrialRecord | None:
            nonlocal attempts
            attempts += 1
            earlier, last = _numbering(connection, study_id, request, retried=attempts > 1)
            if earlier is not None:
                return earlier
            if budget is not None and _claimed(connection, study_id, last) >= budget:
                return _claim_waiting(connection, study_id, system_attrs, requeued_only=True)
            waiting = _claim_waiting(connection, study_id, system_attrs)
            if waiting is not None:
                return waiting
            _commit_without_flush(connection)
            now = time.time()
            row = {
                "study_id": study_id,
                "number": 0 if last is None else last + 1,
                "state": TrialState.RUNNING.value,
                "params": "{}",
                "value": None,
                "user_attrs": "{}",
                "system_attrs": attrs_text,
                "started": now,
                "finished": None,
                "heartbeat": now,
            }
            connection.execute(sa.insert(trials).values(**row))
            return _record(_as_row(row), {})

        return self._write(body)

    def claim_waiting_trial(
        self, study_id: int, *, system_attrs: Mapping[str, JSON] = _NO_ATTRS
    ) -> TrialRecord | None:
        checks.encode_attrs(system_attrs, what="system_attrs")

        def body(connection: sa.Connection) -> TrialRecord | None:
            _lock_study(connection, study_id)
            return _claim_waiting(connection, study_id, system_attrs)

        return self._write(body)

    def set_trial_params(
        self,
        study_id: int,
        number: int,
        params: Mapping[str, JSON],
        *,
        owner: str | None = None,
        unique_from: int | None = None,
    ) -> None:
        text = checks.encode_params(params)

        def body(connection: sa.Connection) -> None:
            if unique_from is not None:  # one checked write at a time, as claims are numbered
                _lock_study(connection, study_id)
            row = _lock_trial(connection, study_id, number)
            checks.check_params_owner(number, TrialState(row.state), checks.decode(row.system_attrs), owner)
            if unique_from is not None:
                c = trials.c
                since = sa.select(c.params).where(c.study_id == study_id, c.number >= unique_from, c.number != number)
                checks.check_unique_params(number, text, connection.execute(since).scalars())
            _update_trial(connection, row.trial_id, params=text)

        self._write(body)

    def finish_trial(
        self,
        study_id: int,
        number: int,
        *,
        state: TrialState,
        value: float | None = None,
        user_attrs: Mapping[str, JSON] = _NO_ATTRS,
        system_attrs: Mapping[str, JSON] = _NO_ATTRS,
        owner: str | None = None,
    ) -> TrialRecord:
        state, value = checks.check_finish(state, value, user_attrs, system_attrs)
        try:
            return self._finish(
                study_id,
                number,
                state=state,
                value=value,
                user_attrs=user_attrs,
                system_attrs=system_attrs,
                owner=owner,
            )
        except (StorageUnavailableError, StorageReplacedError) as error:
            if self.journal is None:
                raise
            item = journal_file.entry(
                url=self._shown,
                study_id=study_id,
                number=number,
                state=state.value,
                value=value,
                user_attrs=user_attrs,
                system_attrs=system_attrs,
                owner=owner,
            )
            journal_file.append(self.journal, item)
            message = (
                f"the result of trial {number} was kept in the journal {self.journal}: it is written when "
                f"the storage answers again, or by `treefarm recover {self.journal} STORAGE` ({error})"
                if isinstance(error, StorageUnavailableError)
                else f"the result of trial {number} was kept in the journal {self.journal}, since {error}"
            )
            print(f"treefarm: {message}", file=sys.stderr)
            raise type(error)(message, journal=str(self.journal)) from error

    def _finish(
        self,
        study_id: int,
        number: int,
        *,
        state: TrialState,
        value: float | None,
        user_attrs: Mapping[str, JSON],
        system_attrs: Mapping[str, JSON],
        owner: str | None,
    ) -> TrialRecord:
        state, value = checks.check_finish(state, value, user_attrs, system_attrs)

        def body(connection: sa.Connection) -> TrialRecord:
            row = _lock_trial(connection, study_id, number)
            stored = TrialState(row.state)
            if not checks.check_owner(number, stored, checks.decode(row.system_attrs), owner):
                if (stored, row.value) != (state, value):
                    raise checks.state_error(number, stored, action="finishing a trial", allowed="running")
                return _record(row, _steps(connection, study_id, [number]))
            changes = {
                "state": state.value,
                "value": value,
                "finished": time.time(),
                "user_attrs": _merged(row.user_attrs, user_attrs, what="user_attrs"),
                "system_attrs": _merged(row.system_attrs, system_attrs, what="system_attrs"),
            }
            _update_trial(connection, row.trial_id, **changes)
            return _record(_as_row({**row._asdict(), **changes}), _steps(connection, study_id, [number]))

        return self._write(body)

    def report_intermediate(self, study_id: int, number: int, step: int, value: float) -> None:
        value = checks.intermediate_value(step, value)
        stored = None if math.isnan(value) else value

        def body(connection: sa.Connection) -> None:
            _running_trial(connection, study_id, number, action="reporting an intermediate value")
            c = intermediate.c
            connection.execute(
                sa.delete(intermediate).where(c.study_id == study_id, c.number == number, c.step == step)
            )
            connection.execute(
                sa.insert(intermediate).values(study_id=study_id, number=number, step=step, value=stored)
            )

        self._write(body)

    def set_trial_user_attr(self, study_id: int, number: int, key: str, value: JSON) -> None:
        checks.encode_attrs({key: value}, what="user_attrs")

        def body(connection: sa.Connection) -> None:
            row = _lock_trial(connection, study_id, number)
            text = _merged(row.user_attrs, {key: value}, what="user_attrs")
            _update_trial(connection, row.trial_id, user_attrs=text)

        self._write(body)

    def heartbeat(self, study_id: int, number: int) -> None:
        def body(connection: sa.Connection) -> None:
            _commit_without_flush(connection)
            where = _trial_key(study_id, number)
            running = trials.c.state == TrialState.RUNNING.value
            done = connection.execute(sa.update(trials).where(*where, running).values(heartbeat=time.time()))
            if done.rowcount == 0:
                _lock_trial(connection, study_id, number)

        self._write(body)

    def fail_stale_trials(self, study_id: int, *, grace: float) -> list[int]:
        now = time.time()

        def body(connection: sa.Connection) -> list[int]:
            _lock_study(connection, study_id)
            query = (
                sa.select(trials)
                .where(trials.c.study_id == study_id, trials.c.state == TrialState.RUNNING.value)
                .order_by(trials.c.number)
                .with_for_update()
            )
            rows = [
                row
                for row in connection.execute(query).all()
                if (row.heartbeat or 0.0) < now - checks.stale_after(checks.decode(row.system_attrs), grace)
            ]
            for row in rows:
                text = _merged(row.system_attrs, {"fail_reason": checks.STALE_REASON}, what="system_attrs")
                changes = {"state": TrialState.FAILED.value, "finished": now, "system_attrs": text}
                _update_trial(connection, row.trial_id, **changes)
            # trials this call failed in an attempt whose reply was lost carry its time
            earlier = sa.select(trials.c.number).where(
                trials.c.study_id == study_id,
                trials.c.state == TrialState.FAILED.value,
                trials.c.finished == now,
            )
            return sorted({row.number for row in rows} | set(connection.execute(earlier).scalars()))

        return self._write(body)

    def get_trial(self, study_id: int, number: int) -> TrialRecord:
        def body(connection: sa.Connection) -> TrialRecord:
            row = connection.execute(sa.select(trials).where(*_trial_key(study_id, number))).first()
            if row is None:
                raise checks.trial_not_found(study_id, number)
            return _record(row, _steps(connection, study_id, [number]))

        return self._read(body)

    def get_trials(
        self,
        study_id: int,
        *,
        states: Collection[TrialState] | None = None,
        min_number: int = 0,
    ) -> list[TrialRecord]:
        wanted = _states(states)

        def body(connection: sa.Connection) -> list[TrialRecord]:
            _study_row(connection, study_id)
            query = sa.select(trials).where(trials.c.study_id == study_id, trials.c.number >= min_number)
            if wanted is not None:
                query = query.where(trials.c.state.in_(wanted))
            rows = connection.execute(query.order_by(trials.c.number)).all()
            steps = _steps_from(connection, study_id, min_number) if rows else {}
            return [_record(row, steps.get(row.number, {})) for row in rows]

        return self._read(body)

    def count_trials(self, study_id: int, *, states: Collection[TrialState] | None = None) -> int:
        wanted = _states(states)

        def body(connection: sa.Connection) -> int:
            _study_row(connection, study_id)
            query = sa.select(sa.func.count()).select_from(trials).where(trials.c.study_id == study_id)
            if wanted is not None:
                query = query.where(trials.c.state.in_(wanted))
            return int(connection.execute(query).scalar_one())

        return self._read(body)

    def add_hint(
        self,
        study_id: int,
        *,
        config: Mapping[str, JSON],
        credibility: float,
        weight: int = 1,
        spread: float = 0.1,
        author: str | None = None,
    ) -> HintRecord:
        text = checks.check_hint(config, credibility, weight, spread)
        values = {
            "study_id": study_id,
            "config": text,
            "credibility": float(credibility),
            "weight": weight,
            "spread": float(spread),
            "author": author,
            "created": time.time(),
        }

        def body(connection: sa.Connection) -> HintRecord:
            _study_row(connection, study_id)
            insert = sa.insert(hints_table).values(**values).returning(hints_table.c.hint_id)
            hint_id = int(connection.execute(insert).scalar_one())
            return _hint_record({**values, "hint_id": hint_id})

        return self._write(body)

    def get_hints(self, study_id: int) -> list[HintRecord]:
        def body(connection: sa.Connection) -> list[HintRecord]:
            _study_row(connection, study_id)
            if not self._has_hints:  # a read-only open of a file older than hints
                return []
            query = sa.select(hints_table).where(hints_table.c.study_id == study_id).order_by(hints_table.c.hint_id)
            return [_hint_record(row._asdict()) for row in connection.execute(query)]

        return self._read(body)

    def remove_hint(self, study_id: int, hint_id: int) -> None:
        def body(connection: sa.Connection) -> None:
            c = hints_table.c
            done = connection.execute(sa.delete(hints_table).where(c.study_id == study_id, c.hint_id == hint_id))
            if done.rowcount == 0:
                raise checks.NotFoundError(
                    f"the hint must exist in the study, but got {format_values(study_id=study_id, hint_id=hint_id)}"
                )

        self._write(body)

    def close(self) -> None:
        """Release the connections. On a SQLite file this storage wrote, first copy the
        ``-wal`` file into the database file (``PRAGMA wal_checkpoint(TRUNCATE)``), so that
        the file alone holds every committed trial: see the module docstring. Never raises
        because other processes still use the file. The storage reconnects if used again."""
        if os.getpid() != self._pid:  # inherited through fork: the parent's connections stay the parent's
            self._engine.dispose(close=False)
            self._pid = os.getpid()
        if self._dirty:
            self._dirty = False
            self._checkpoint()
        self._engine.dispose()

    def _checkpoint(self) -> None:
        """Copy the ``-wal`` file into the SQLite file and empty it, waiting at most
        :data:`CLOSE_CHECKPOINT_MS` for other connections (then copying what it can)."""
        if self._file is None or not self._file.is_file():  # never create a file that was removed
            return
        try:
            raw = self._engine.raw_connection()
        except exc.DBAPIError:
            return
        try:
            driver = raw.driver_connection
            assert driver is not None
            driver.execute(f"PRAGMA busy_timeout = {CLOSE_CHECKPOINT_MS}")
            try:
                driver.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            finally:
                driver.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        except self._engine.dialect.loaded_dbapi.Error:
            pass  # e.g. a file opened through a read-only URI: nothing of ours to copy
        finally:
            raw.close()

    # ------------------------------------------------------- pages (read-only)
    def trial_page(
        self,
        study_id: int,
        *,
        offset: int = 0,
        limit: int = 50,
        order_by: str = "number",
        descending: bool = False,
        states: Collection[TrialState | str] | None = None,
        value_min: float | None = None,
        value_max: float | None = None,
    ) -> tuple[int, list[TrialRecord]]:
        """See :meth:`Storage.trial_page`: one ``COUNT`` and one ``ORDER BY ... LIMIT
        ... OFFSET`` reading only the page's rows and their intermediate values."""
        query = PageQuery.checked(
            offset=offset,
            limit=limit,
            order_by=order_by,
            descending=descending,
            states=states,
            value_min=value_min,
            value_max=value_max,
        )

        def body(connection: sa.Connection) -> tuple[int, list[TrialRecord]]:
            _study_row(connection, study_id)
            where = _page_filter(study_id, query)
            total = connection.execute(
                sa.select(sa.func.count()).select_from(trials).where(*where)
            ).scalar_one()
            ids = (
                connection.execute(
                    sa.select(trials.c.trial_id)
                    .where(*where)
                    .order_by(*_page_order(query))
                    .limit(query.limit)
                    .offset(query.offset)
                )
                .scalars()
                .all()
            )
            found = {
                row.trial_id: row
                for row in connection.execute(sa.select(trials).where(trials.c.trial_id.in_(ids)))
            }
            rows = [found[i] for i in ids]
            steps = _steps_of(connection, study_id, [row.number for row in rows]) if rows else {}
            return int(total), [_record(row, steps.get(row.number, {})) for row in rows]

        return self._read(body)

    def trial_summary(self, study_id: int) -> TrialSummary:
        """See :meth:`Storage.trial_summary`: one ``GROUP BY state`` query."""

        def body(connection: sa.Connection) -> TrialSummary:
            _study_row(connection, study_id)
            c = trials.c
            query = (
                sa.select(
                    c.state,
                    sa.func.count(),
                    sa.func.min(c.value),
                    sa.func.max(c.value),
                    sa.func.max(c.finished),
                )
                .where(c.study_id == study_id)
                .group_by(c.state)
            )
            rows = connection.execute(query).all()
            complete = [row for row in rows if row[0] == TrialState.COMPLETE.value]
            finished = [row[4] for row in rows if row[4] is not None]
            return TrialSummary(
                {row[0]: int(row[1]) for row in rows},
                complete[0][2] if complete else None,
                complete[0][3] if complete else None,
                max(finished) if finished else None,
            )

        return self._read(body)


_OPEN: weakref.WeakSet[SQLStorage] = weakref.WeakSet()
"""The SQLite storages of this process, closed (their ``-wal`` copied into the file) at exit."""


@atexit.register
def _close_at_exit() -> None:
    """Close every SQLite storage of this process that wrote since its last close, so that
    a program that never closes its storage (``Study.optimize`` and exit) leaves a
    database file that holds every trial."""
    for storage in list(_OPEN):
        if storage._dirty and storage._pid == os.getpid():
            with contextlib.suppress(Exception):
                storage.close()


def _claim_waiting(
    connection: sa.Connection, study_id: int, system_attrs: Mapping[str, JSON], *, requeued_only: bool = False
) -> TrialRecord | None:
    """Move the lowest-numbered WAITING trial (``requeued_only``: re-queued by a
    recovery, :data:`REQUEUED` in its system attrs) to RUNNING (the study row is
    locked by the caller)."""
    query = sa.select(trials).where(trials.c.study_id == study_id, trials.c.state == TrialState.WAITING.value)
    if requeued_only:
        query = query.where(trials.c.system_attrs.like(f'%"{REQUEUED}"%'))
    query = query.order_by(trials.c.number).limit(1)
    row = connection.execute(query).first()
    if row is None:
        return None
    now = time.time()
    changes = {
        "state": TrialState.RUNNING.value,
        "started": now,
        "heartbeat": now,
        "system_attrs": _merged(row.system_attrs, system_attrs, what="system_attrs"),
    }
    _update_trial(connection, row.trial_id, **changes)
    return _record(_as_row({**row._asdict(), **changes}), _steps(connection, study_id, [row.number]))


def _hint_record(row: Mapping[str, Any]) -> HintRecord:
    return HintRecord(
        row["hint_id"],
        row["study_id"],
        checks.decode(row["config"]),
        row["credibility"],
        row["weight"],
        row["spread"],
        row["author"],
        row["created"],
    )


def _request_id() -> str:
    """A random id for one claim or creation call, kept in the trial's ``system_attrs``."""
    return secrets.token_hex(8)


def _by_request(connection: sa.Connection, study_id: int, request: str) -> TrialRecord | None:
    """The trial an earlier attempt of the call ``request`` committed, if any (a retry after
    a lost acknowledgement must return it rather than make a second one)."""
    query = sa.select(trials).where(trials.c.study_id == study_id, trials.c.system_attrs.contains(request))
    for row in connection.execute(query.order_by(trials.c.number)):
        if checks.decode(row.system_attrs).get(REQUEST) == request:
            return _record(row, _steps(connection, study_id, [row.number]))
    return None


def _update_trial(connection: sa.Connection, trial_id: int, **changes: Any) -> None:
    connection.execute(sa.update(trials).where(trials.c.trial_id == trial_id).values(**changes))


def _trial_key(study_id: int, number: int) -> tuple[sa.ColumnElement[bool], ...]:
    return trials.c.study_id == study_id, trials.c.number == number


def _study_row(connection: sa.Connection, study_id: int, *, lock: bool = False) -> Any:
    query = sa.select(studies).where(studies.c.study_id == study_id)
    row = connection.execute(query.with_for_update() if lock else query).first()
    if row is None:
        raise checks.study_not_found(study_id=study_id)
    return row


def _lock_study(connection: sa.Connection, study_id: int) -> Any:
    """The study row, locked until the transaction ends (PostgreSQL; SQLite's writer lock covers it)."""
    return _study_row(connection, study_id, lock=True)


def _numbering(
    connection: sa.Connection, study_id: int, request: str, *, retried: bool
) -> tuple[TrialRecord | None, int | None]:
    """Lock the study for numbering a new trial; return the trial an earlier attempt of
    this ``request`` already wrote (a retry after a lost acknowledgement), if any, and
    the study's last trial number (None before the first)."""
    _lock_study(connection, study_id)
    earlier = _by_request(connection, study_id, request) if retried else None
    last = connection.execute(sa.select(sa.func.max(trials.c.number)).where(trials.c.study_id == study_id)).scalar()
    return earlier, last


def _claimed(connection: sa.Connection, study_id: int, last: int | None) -> int:
    """The study's claimed (non-WAITING) trials: numbers are dense, so all of them
    (``last + 1``) less the WAITING ones, two lookups in the (study, state, number)
    index whatever the length of the history (counting the claimed rows would read
    them all)."""
    waiting = (
        sa.select(sa.func.count())
        .select_from(trials)
        .where(trials.c.study_id == study_id, trials.c.state == TrialState.WAITING.value)
    )
    return (0 if last is None else last + 1) - int(connection.execute(waiting).scalar_one())


def _commit_without_flush(connection: sa.Connection) -> None:
    """On PostgreSQL, let this transaction's commit return before its WAL reaches the
    disk (``SET LOCAL synchronous_commit = off``, this transaction only).

    Used where losing the commit in a server crash loses nothing a worker relies on:
    a new claim (the next write of its worker, the params, is a normal commit, whose
    flush covers every earlier WAL record; if the server crashes first, the params are
    refused for a trial that is gone or held by another worker, and the worker claims
    again, see :meth:`SQLStorage.set_trial_params`) and a heartbeat (the next beat
    repeats it). It saves one disk flush per trial. SQLite's durability is the
    ``synchronous`` setting alone."""
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql("SET LOCAL synchronous_commit = off")


def _lock_trial(connection: sa.Connection, study_id: int, number: int) -> Any:
    row = connection.execute(sa.select(trials).where(*_trial_key(study_id, number)).with_for_update()).first()
    if row is None:
        _study_row(connection, study_id)
        raise checks.trial_not_found(study_id, number)
    return row


def _running_trial(connection: sa.Connection, study_id: int, number: int, *, action: str) -> Any:
    row = _lock_trial(connection, study_id, number)
    if row.state != TrialState.RUNNING.value:
        raise checks.state_error(number, TrialState(row.state), action=action, allowed="running")
    return row


def _float(value: float | None) -> float:
    return math.nan if value is None else float(value)


def _steps(connection: sa.Connection, study_id: int, numbers: Sequence[int]) -> dict[int, float]:
    """The intermediate values of one trial, step -> value."""
    query = sa.select(intermediate.c.step, intermediate.c.value).where(
        intermediate.c.study_id == study_id, intermediate.c.number.in_(numbers)
    )
    return {row.step: _float(row.value) for row in connection.execute(query.order_by(intermediate.c.step))}


def _steps_from(connection: sa.Connection, study_id: int, min_number: int) -> dict[int, dict[int, float]]:
    """The intermediate values of every trial numbered ``min_number`` or more: number -> step -> value."""
    c = intermediate.c
    query = sa.select(intermediate).where(c.study_id == study_id, c.number >= min_number)
    out: dict[int, dict[int, float]] = {}
    for row in connection.execute(query.order_by(intermediate.c.number, intermediate.c.step)):
        out.setdefault(row.number, {})[row.step] = _float(row.value)
    return out


def _page_filter(study_id: int, query: PageQuery) -> list[sa.ColumnElement[bool]]:
    """The WHERE clauses of a page query."""
    where = [trials.c.study_id == study_id]
    if query.states is not None:
        where.append(trials.c.state.in_([s.value for s in query.states]))
    if query.value_min is not None:
        where.append(trials.c.value >= query.value_min)
    if query.value_max is not None:
        where.append(trials.c.value <= query.value_max)
    return where


def _page_order(query: PageQuery) -> list[sa.ColumnElement[Any]]:
    """The ORDER BY of a page query: rows without the key last, ties by number. Only the
    trial ids are sorted (a deferred join): the page's full rows are read afterwards, and
    ordering by number alone walks the (study_id, number) index without sorting."""
    number = trials.c.number.desc() if query.descending else trials.c.number.asc()
    if query.order_by == "number":
        return [number]
    if query.order_by == "state":
        return [trials.c.state.desc() if query.descending else trials.c.state.asc(), number]
    column = (
        trials.c.finished - trials.c.started if query.order_by == "duration" else trials.c[query.order_by]
    )
    return [column.is_(None), column.desc() if query.descending else column.asc(), number]


def _steps_of(
    connection: sa.Connection, study_id: int, numbers: Sequence[int]
) -> dict[int, dict[int, float]]:
    """The intermediate values of the trials ``numbers``: number -> step -> value."""
    c = intermediate.c
    query = sa.select(intermediate).where(c.study_id == study_id, c.number.in_(numbers))
    out: dict[int, dict[int, float]] = {}
    for row in connection.execute(query.order_by(c.number, c.step)):
        out.setdefault(row.number, {})[row.step] = _float(row.value)
    return out
