"""Turning what a user wrote (a path, a URL, a storage, nothing) into a storage.

``None`` and ``":memory:"`` give an :class:`InMemoryStorage`; a plain path
(``"runs.db"``, a ``pathlib.Path``) a SQLite file; ``sqlite:///...`` and
``postgresql://...`` (any ``postgresql+driver://``) URLs a :class:`SQLStorage`.
Anything that looks like a URL of another kind is refused by name, so a typo
(``"sqlit://x"``) never silently creates a file called ``sqlit:``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from ..exceptions import StorageError, StorageUnavailableError, format_values
from .base import Storage
from .memory import InMemoryStorage

__all__ = ["FIRST_OPEN_DEADLINE", "SQL_SCHEMES", "check_sqlite_path", "open_storage", "sqlite_file"]

SQL_SCHEMES = ("sqlite", "postgresql")
"""URL dialects served by SQLStorage (``sqlite+pysqlite``, ``postgresql+psycopg`` included)."""
_SCHEME = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]+):")
_EXPECTED = (
    "None or ':memory:', a file path such as 'runs.db', "
    "or a URL 'sqlite:///runs.db' or 'postgresql+psycopg://user@host/db'"
)


def _refuse(spec: object, why: str) -> StorageError:
    return StorageError(f"a storage must be {_EXPECTED} ({why}), but got {format_values(storage=spec)}")


def open_storage(
    spec: str | os.PathLike[str] | Storage | None, *, read_only: bool = False, **sql_options: Any
) -> Storage:
    """The storage ``spec`` names; StorageError naming it and what is expected if none.

    ``read_only=True`` is for commands that only look (``show``, ``export``, a
    dashboard): a SQLite file that does not exist is refused, naming the path,
    instead of being created, and every write raises a StorageError.
    ``sql_options`` (``retry_deadline``, ``journal``, ``synchronous``,
    ``engine_kwargs``) go to :class:`~treefarm.storage.SQLStorage` and are
    ignored by the in-memory storage.
    """

    def _sql(url: str) -> Storage:
        from .sql import SQLStorage

        path = sqlite_file(url)
        if path is None and not url.lower().startswith("sqlite"):
            return _open_server(url, read_only, sql_options)
        if path is not None:
            check_sqlite_path(path, read_only=read_only)
        return SQLStorage(url, read_only=read_only, **sql_options)

    if spec is None or isinstance(spec, Storage):
        return spec if spec is not None else InMemoryStorage()
    if isinstance(spec, os.PathLike):
        return _sql(f"sqlite:///{Path(spec).expanduser().resolve()}")
    if not isinstance(spec, str):
        raise _refuse(spec, f"not a {type(spec).__name__}")
    if spec == ":memory:":
        return InMemoryStorage()
    if not spec.strip():
        raise _refuse(spec, "the name is empty")
    match = _SCHEME.match(spec)
    if match is None:
        return _sql(f"sqlite:///{Path(spec).expanduser().resolve()}")
    dialect = match["scheme"].split("+", 1)[0].lower()
    if dialect not in SQL_SCHEMES:
        raise _refuse(spec, f"unsupported scheme {match['scheme']!r}")
    if not spec[match.end() :].startswith("//"):
        raise _refuse(spec, "a URL needs '://' after its scheme")
    return _sql(_absolute_sqlite(spec) if dialect == "sqlite" else spec)


def check_sqlite_path(path: Path, *, read_only: bool = False) -> None:
    """StorageError naming the cause when SQLite could not open ``path`` and would only
    say "unable to open database file": a missing folder, a folder in the file's place,
    a folder or a file this process may not write (SQLite writes the file and, beside
    it, its ``-wal`` and ``-shm`` files). A read-only opening needs no write access."""
    folder = path.parent
    if path.is_dir():
        raise StorageError(f"a SQLite storage must be a file, but got {format_values(path=str(path))}, a directory")
    if not folder.is_dir():
        what = "a file" if folder.exists() else "missing"
        raise StorageError(
            f"the folder of a SQLite file must exist, but got {format_values(path=str(path))}, "
            f"whose folder {str(folder)!r} is {what}"
        )
    if read_only:
        return
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StorageError(
            "the folder of a SQLite file must be writable (SQLite keeps its -wal and -shm files beside "
            f"the file), but got {format_values(path=str(path))} in the read-only folder {str(folder)!r}"
        )
    if path.exists() and not os.access(path, os.W_OK):
        raise StorageError(
            "a SQLite file opened for writing must be writable (open it read-only to look), "
            f"but got {format_values(path=str(path))}, which is read-only"
        )


FIRST_OPEN_DEADLINE = 5.0
"""Seconds a database server gets to answer a storage's first opening. Retrying until
the storage's ``retry_deadline`` is for a server that answered once and went away; one
never reached is most often a wrong address, which should not cost a minute of silence."""


def _open_server(url: str, read_only: bool, sql_options: dict[str, Any]) -> Storage:
    """A SQLStorage on a database server, opened within :data:`FIRST_OPEN_DEADLINE`
    (or its own ``retry_deadline`` if shorter), then keeping its own deadline."""
    from .sql import RETRY_DEADLINE, SQLStorage

    deadline = sql_options.get("retry_deadline", RETRY_DEADLINE)
    if isinstance(deadline, bool) or not isinstance(deadline, (int, float)) or not deadline >= 0:
        return SQLStorage(url, read_only=read_only, **sql_options)  # which names the bad value
    first = min(float(deadline), FIRST_OPEN_DEADLINE)
    try:
        storage = SQLStorage(url, read_only=read_only, **{**sql_options, "retry_deadline": first})
    except StorageUnavailableError as error:
        raise StorageUnavailableError(
            f"the database server must answer when a storage is first opened (within {first:g} s; "
            f"the retry deadline of {float(deadline):g} s applies once it has answered), but: {error}"
        ) from error
    storage.retry_deadline = float(deadline)
    return storage


def _absolute_sqlite(spec: str) -> str:
    """A SQLite URL with its file path made absolute (``sqlite:///runs.db`` is
    relative to the working directory): one file has one URL, so two handles on
    it, one opened as ``runs.db`` and one as ``sqlite:///runs.db``, are one storage."""
    from sqlalchemy.engine import make_url

    path = sqlite_file(spec)
    return spec if path is None else make_url(spec).set(database=str(path)).render_as_string(hide_password=False)


def sqlite_file(spec: str | os.PathLike[str] | Storage | None) -> Path | None:
    """The SQLite file a storage spec names (a path, or a ``sqlite://`` URL with a
    file), made absolute; None for memory, another database or a storage object."""
    if isinstance(spec, os.PathLike):
        return Path(spec).expanduser().resolve()
    if not isinstance(spec, str) or spec == ":memory:" or not spec.strip():
        return None
    match = _SCHEME.match(spec)
    if match is None:
        return Path(spec).expanduser().resolve()
    if match["scheme"].split("+", 1)[0].lower() != "sqlite":
        return None
    from sqlalchemy.engine import make_url

    database = make_url(spec).database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).expanduser().resolve()
