"""SQLite file handling of the SQL storage: pragmas, read-only openings, the file's
identity and the checkpoint on close.

The file runs in WAL journal mode (readers never block the writer), with
``synchronous=NORMAL`` by default (never corrupt, but the last commits before a
power loss or OS crash may be lost; ``synchronous="FULL"`` fsyncs every commit)
and a 30 s ``busy_timeout``. pysqlite would otherwise issue its own deferred
``BEGIN`` lazily, and a deferred transaction that reads and then writes fails at
once with "database is locked" when another process holds the write lock,
whatever the timeout. So, as SQLAlchemy's pysqlite notes ("Serializable
isolation / Savepoints / Transactional DDL") recommend, the driver's
transaction handling is switched off on connect and the ``begin`` event emits
our own: ``BEGIN IMMEDIATE`` for writes (the write lock is taken up front,
waiting up to the busy timeout) and a plain ``BEGIN`` for reads (one
consistent snapshot).

Commits land in the ``-wal`` file beside the database; SQLite copies them into
the database file at a checkpoint (automatically every 1000 pages, and when the
last connection to the file closes). So that the ``.db`` file alone holds every
committed trial once treefarm is done with it (a copy or a backup of that one
file), the storage's ``close``, and an ``atexit`` hook for every storage still
open that wrote, runs :func:`checkpoint` (``PRAGMA wal_checkpoint(TRUNCATE)``)
before releasing the connections. Nothing is checkpointed per write (that would
cost throughput with many workers). Closing while other processes use the file
is safe: the checkpoint waits at most :data:`CLOSE_CHECKPOINT_MS` for their
writer and readers, then copies what it can without waiting and leaves the rest
to the last one to close.

A read-only opening uses ``mode=ro``, which reads the ``-wal`` file too; only a
file that nobody can write (its folder or itself not writable) and that has no
``-wal`` with content beside it is opened as ``immutable`` (SQLite then ignores
any ``-wal``), since in a read-only folder ``mode=ro`` cannot create the
``-shm`` file a WAL database needs. A file whose ``-wal`` holds data in a
folder where no ``-shm`` can be made is refused with an error that says so
(:func:`unreadable_wal`).

A file deleted or replaced while a storage has it open is detected by its
(device, inode) identity (:func:`file_identity`): the storage refuses to write
on into a file no process can open again.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

import sqlalchemy as sa
from sqlalchemy import event, exc

from ..exceptions import StorageError, format_values

__all__ = [
    "BUSY_TIMEOUT_MS",
    "CLOSE_CHECKPOINT_MS",
    "SYNCHRONOUS",
    "checkpoint",
    "file_identity",
    "install_hooks",
    "read_only_flags",
    "read_only_url",
    "unreadable_wal",
]

BUSY_TIMEOUT_MS = 30_000
"""How long SQLite waits for the write lock before reporting "busy" (then the storage retries)."""
SYNCHRONOUS = ("NORMAL", "FULL")
"""SQLite ``synchronous`` settings offered: NORMAL (fast, may lose the last commits on power
loss) and FULL (every commit fsynced)."""
CLOSE_CHECKPOINT_MS = 250
"""How long the checkpoint of a storage's ``close`` waits for other connections' writer and
readers before copying, without waiting, what it can (the last connection to close does the rest)."""


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


def read_only_url(parsed: sa.URL, kwargs: dict[str, Any]) -> tuple[sa.URL, dict[str, Any]]:
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


def unreadable_wal(path: Path) -> str | None:
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


def file_identity(path: Path) -> tuple[int, int] | None:
    """The (device, inode) of the file at ``path``, None if there is none."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    return found.st_dev, found.st_ino


def install_hooks(engine: sa.Engine, *, read_only: bool, synchronous: str) -> None:
    """WAL, busy timeout and our own BEGIN / BEGIN IMMEDIATE (see the module docstring); a
    connection of ``engine.execution_options(treefarm_write=True)`` begins IMMEDIATE."""

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



def checkpoint(engine: sa.Engine, path: Path | None) -> None:
    """Copy the ``-wal`` file into the SQLite file ``path`` and empty it, waiting at most
    :data:`CLOSE_CHECKPOINT_MS` for other connections (then copying what it can)."""
    if path is None or not path.is_file():  # never create a file that was removed
        return
    try:
        raw = engine.raw_connection()
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
    except engine.dialect.loaded_dbapi.Error:
        pass  # e.g. a file opened through a read-only URI: nothing of ours to copy
    finally:
        raw.close()
