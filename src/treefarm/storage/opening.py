"""Turning what a user wrote (a path, a URL, a storage, nothing) into a storage.

``None`` and ``":memory:"`` give an :class:`InMemoryStorage`; a plain path
(``"runs.db"``, a ``pathlib.Path``) a SQLite file; ``sqlite:///...`` and
``postgresql://...`` URLs a :class:`SQLStorage`: what they name is parsed once, as a
:class:`~treefarm.storage.url.StorageURL`, which refuses a URL of another kind by name.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..exceptions import StorageError, StorageUnavailableError, format_values
from .base import Storage
from .memory import InMemoryStorage
from .url import StorageURL

__all__ = ["FIRST_OPEN_DEADLINE", "check_sqlite_path", "open_storage"]


def open_storage(
    spec: str | os.PathLike[str] | StorageURL | Storage | None, *, read_only: bool = False, **sql_options: Any
) -> Storage:
    """The storage ``spec`` names; StorageError naming it and what is expected if none
    (see :meth:`StorageURL.parse <treefarm.storage.url.StorageURL.parse>`).

    ``read_only=True`` (or a location parsed read-only) is for commands that only look
    (``show``, ``export``, a dashboard): a SQLite file that does not exist is refused,
    naming the path, instead of being created, and every write raises a StorageError.
    ``sql_options`` (``retry_deadline``, ``journal``, ``synchronous``,
    ``engine_kwargs``) go to :class:`~treefarm.storage.SQLStorage` and are
    ignored by the in-memory storage.
    """
    if spec is None or isinstance(spec, Storage):
        return spec if spec is not None else InMemoryStorage()
    location = StorageURL.parse(spec, read_only=read_only)
    if location.memory:
        return InMemoryStorage()
    if location.dialect != "sqlite":
        return _open_server(location, sql_options)
    if location.path is not None and not location.uri:
        check_sqlite_path(location.path, read_only=location.read_only)
    from .sql import SQLStorage

    return SQLStorage(location, **sql_options)


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


def _open_server(location: StorageURL, sql_options: dict[str, Any]) -> Storage:
    """A SQLStorage on a database server, opened within :data:`FIRST_OPEN_DEADLINE`
    (or its own ``retry_deadline`` if shorter), then keeping its own deadline."""
    from .sql import RETRY_DEADLINE, SQLStorage

    deadline = sql_options.get("retry_deadline", RETRY_DEADLINE)
    if isinstance(deadline, bool) or not isinstance(deadline, (int, float)) or not deadline >= 0:
        return SQLStorage(location, **sql_options)  # which names the bad value
    first = min(float(deadline), FIRST_OPEN_DEADLINE)
    try:
        storage = SQLStorage(location, **{**sql_options, "retry_deadline": first})
    except StorageUnavailableError as error:
        raise StorageUnavailableError(
            f"the database server must answer when a storage is first opened (within {first:g} s; "
            f"the retry deadline of {float(deadline):g} s applies once it has answered), but: {error}"
        ) from error
    storage.retry_deadline = float(deadline)
    return storage
