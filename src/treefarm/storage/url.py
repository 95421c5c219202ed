"""Where a storage is: a :class:`StorageURL`, parsed once from what a user wrote.

``":memory:"`` names the in-memory storage; a plain path (``"runs.db"``, a
``pathlib.Path``) a SQLite file; ``sqlite:///...`` and ``postgresql://...`` (any
``postgresql+driver://``) URLs a SQLite file or a PostgreSQL database. Anything
that looks like a URL of another kind is refused by name, so a typo
(``"sqlit://x"``) never silently creates a file called ``sqlit:``. A SQLite file
is named by its absolute path (``sqlite:///runs.db`` is relative to the working
directory), so one file has one URL: two handles on it, one opened as
``runs.db`` and one as ``sqlite:///runs.db``, are one storage. The value never
shows a password (:attr:`StorageURL.shown`, its ``repr``).

SQLAlchemy parses the URLs (``sqlalchemy.engine.make_url``), imported only when a
URL or a path is parsed, so that importing the storage package stays light.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from urllib.parse import unquote

from ..exceptions import StorageError, format_values

if TYPE_CHECKING:
    import sqlalchemy as sa

__all__ = ["MEMORY", "SQL_SCHEMES", "Dialect", "StorageURL"]

MEMORY = ":memory:"
"""What names the in-memory storage."""
SQL_SCHEMES = ("sqlite", "postgresql")
"""URL dialects served by SQLStorage (``sqlite+pysqlite``, ``postgresql+psycopg`` included)."""
Dialect = Literal["memory", "sqlite", "postgresql"]
_SCHEME = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]+):")
_EXPECTED = (
    "None or ':memory:', a file path such as 'runs.db', "
    "or a URL 'sqlite:///runs.db' or 'postgresql+psycopg://user@host/db'"
)


@dataclass(frozen=True, repr=False)
class StorageURL:
    """A storage's location, parsed and checked once (:meth:`parse`).

    ``url`` is the normalized URL (a SQLite file's absolute path in it; ``":memory:"``
    for memory), ``dialect`` one of ``"memory"``, ``"sqlite"``, ``"postgresql"``,
    ``path`` the SQLite file it names, absolute (None for memory or a database
    server), ``uri`` whether SQLite opens that file through a ``file:`` URI whose
    options the URL keeps, ``read_only`` whether the storage is opened only to look,
    and ``shown`` the URL with its password hidden (the ``repr`` and ``str`` too).
    """

    url: str
    dialect: Dialect
    path: Path | None
    shown: str
    read_only: bool = False
    uri: bool = False

    @classmethod
    def parse(cls, spec: str | os.PathLike[str] | StorageURL, *, read_only: bool = False) -> StorageURL:
        """The location ``spec`` names; StorageError naming it and what is expected if none.
        ``read_only=True`` marks it opened only to look (a parsed location keeps its own
        mark as well)."""
        if isinstance(spec, StorageURL):
            return replace(spec, read_only=True) if read_only else spec
        if isinstance(spec, os.PathLike):
            return _file(Path(spec), read_only)
        if not isinstance(spec, str):
            raise _refuse(spec, f"not a {type(spec).__name__}")
        if spec == MEMORY:
            return cls(MEMORY, "memory", None, MEMORY, read_only)
        if not spec.strip():
            raise _refuse(spec, "the name is empty")
        match = _SCHEME.match(spec)
        if match is None:
            return _file(Path(spec), read_only)
        dialect = match["scheme"].split("+", 1)[0].lower()
        if dialect not in SQL_SCHEMES:
            raise _refuse(spec, f"unsupported scheme {match['scheme']!r}")
        if not spec[match.end() :].startswith("//"):
            raise _refuse(spec, "a URL needs '://' after its scheme")
        return _sqlite(spec, read_only) if dialect == "sqlite" else _server(spec, read_only)

    @property
    def memory(self) -> bool:
        """Whether this names the in-memory storage."""
        return self.dialect == "memory"

    def driver_url(self) -> sa.URL:
        """The SQLAlchemy URL to connect with: plain ``postgresql`` means psycopg 3."""
        return _driver_url(self.url)

    def __repr__(self) -> str:
        return f"StorageURL({self.shown!r}{', read_only=True' if self.read_only else ''})"

    def __str__(self) -> str:
        return self.shown


def _refuse(spec: object, why: str) -> StorageError:
    return StorageError(f"a storage must be {_EXPECTED} ({why}), but got {format_values(storage=spec)}")


def _file(path: Path, read_only: bool) -> StorageURL:
    """A plain path: the SQLite file, made absolute."""
    import sqlalchemy as sa

    absolute = path.expanduser().resolve()
    url = sa.URL.create("sqlite", database=str(absolute))
    return StorageURL(url.render_as_string(hide_password=False), "sqlite", absolute, _shown(url), read_only)


def _sqlite(spec: str, read_only: bool) -> StorageURL:
    """A ``sqlite://`` URL: a file (made absolute), or a ``file:`` URI (kept as written)."""
    parsed = _driver_url(spec)
    database = parsed.database or ""
    if database.startswith("file:"):
        path = Path(unquote(database[len("file:") :].split("?", 1)[0])).expanduser().resolve()
        return StorageURL(spec, "sqlite", path, _shown(parsed), read_only, uri=True)
    path = Path(database).expanduser().resolve()
    absolute = parsed.set(database=str(path))
    return StorageURL(absolute.render_as_string(hide_password=False), "sqlite", path, _shown(absolute), read_only)


def _server(spec: str, read_only: bool) -> StorageURL:
    """A ``postgresql://`` URL, kept as written."""
    return StorageURL(spec, "postgresql", None, _shown(_driver_url(spec)), read_only)


def _shown(url: sa.URL) -> str:
    return url.render_as_string(hide_password=True)


def _driver_url(url: str) -> sa.URL:
    """The SQLAlchemy URL for ``url`` (``postgresql`` means psycopg 3); StorageError
    when it does not parse or, for SQLite, names no file."""
    import sqlalchemy as sa

    try:
        parsed = sa.make_url(url)
    except sa.exc.ArgumentError as error:
        raise StorageError(f"a storage URL must parse, but got {format_values(url=url)} ({error})") from None
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", MEMORY):
        raise StorageError(
            "a SQLite URL must name a file (use ':memory:' for an in-memory storage), "
            f"but got {format_values(url=url)}"
        )
    return parsed
