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
from ..storage import Storage, StorageURL, open_storage

__all__ = ["artifact_root", "open_for_writes", "open_read_only"]


def _sqlite_path(location: StorageURL) -> Path | None:
    """The file a plain path or ``sqlite:///`` URL names, None for other URLs."""
    return location.path if location.dialect == "sqlite" else None


def open_read_only(spec: str | os.PathLike[str]) -> Storage:
    """The storage ``spec`` names, opened read-only; StorageError naming it if it cannot be."""
    from ..storage.sql import SQLStorage

    text = os.fspath(spec)
    if text == ":memory:":
        raise StorageError(
            f"the dashboard needs a SQLite file or a PostgreSQL URL, but got {format_values(storage=text)}"
        )
    location = StorageURL.parse(text)
    path = _sqlite_path(location)
    if path is not None:
        if not path.is_file():
            raise StorageError(f"the SQLite file must exist, but got {format_values(storage=text)}")
        return SQLStorage(f"sqlite:///file:{quote(str(path))}?mode=ro&uri=true")
    options = {"connect_args": {"options": "-c default_transaction_read_only=on"}}
    return SQLStorage(location, engine_kwargs=options)


def open_for_writes(spec: str | os.PathLike[str]) -> Storage:
    """The storage ``spec`` names, opened for writing (``--allow-writes``): a SQLite file
    must exist, as for reading, so a mistyped path is refused rather than created."""
    text = os.fspath(spec)
    location = None if text == ":memory:" else StorageURL.parse(text)
    path = None if location is None else _sqlite_path(location)
    if location is None or (path is not None and not path.is_file()):
        open_read_only(text).close()  # raises the same StorageError naming it
    return open_storage(location or text)


def artifact_root(spec: str | os.PathLike[str]) -> str:
    """Where the studies of ``spec`` keep their artifacts by default, as a study finds it
    (:func:`treefarm.study.state.artifacts.default_root`): ``<file>.artifacts`` beside a SQLite
    file, else ``treefarm.artifacts`` in the working directory."""
    path = _sqlite_path(StorageURL.parse(spec))
    return f"{path}.artifacts" if path is not None else str(Path("treefarm.artifacts").resolve())
