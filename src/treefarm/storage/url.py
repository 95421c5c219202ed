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

from ..exceptions import StorageError, format_values
from .base import Storage
from .memory import InMemoryStorage

__all__ = ["SQL_SCHEMES", "open_storage", "sqlite_file"]

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
