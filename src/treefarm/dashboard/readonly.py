"""Opening a storage for reading only: the dashboard never changes a study.

A SQLite file is opened through SQLite's own read-only mode
(``file:PATH?mode=ro``), so even a bug could not write to it; it must exist.
A PostgreSQL database is opened with ``default_transaction_read_only``, so
the server refuses any write. Anything else (``:memory:``) is refused: there
would be nothing to show.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

from ..exceptions import StorageError, format_values
from ..storage import Storage, open_storage

__all__ = ["open_for_writes", "open_read_only"]


def _sqlite_path(spec: str) -> Path | None:
    """The file a plain path or ``sqlite:///`` URL names, None for other URLs."""
    if spec.startswith("sqlite:///"):
        return Path(spec[len("sqlite:///") :].split("?", 1)[0])
    if "://" in spec:
        return None
    return Path(spec).expanduser()


def open_read_only(spec: str | os.PathLike[str]) -> Storage:
    """The storage ``spec`` names, opened read-only; StorageError naming it if it cannot be."""
    from ..storage.sql import SQLStorage

    text = os.fspath(spec)
    path = _sqlite_path(text)
    if text == ":memory:":
        raise StorageError(
            f"the dashboard needs a SQLite file or a PostgreSQL URL, but got {format_values(storage=text)}"
        )
    if path is not None:
        if not path.is_file():
            raise StorageError(f"the SQLite file must exist, but got {format_values(storage=text)}")
        return SQLStorage(f"sqlite:///file:{quote(str(path.resolve()))}?mode=ro&uri=true")
    if text.split(":", 1)[0].split("+", 1)[0] == "postgresql":
        options = {"connect_args": {"options": "-c default_transaction_read_only=on"}}
        return SQLStorage(text, engine_kwargs=options)
    return open_storage(text)


def open_for_writes(spec: str | os.PathLike[str]) -> Storage:
    """The storage ``spec`` names, opened for writing (``--allow-writes``): a SQLite file
    must exist, as for reading, so a mistyped path is refused rather than created."""
    text = os.fspath(spec)
    path = _sqlite_path(text)
    if text == ":memory:" or (path is not None and not path.is_file()):
        open_read_only(text).close()  # raises the same StorageError naming it
    return open_storage(text)
