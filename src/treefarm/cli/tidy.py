"""Read-only commands leave a SQLite file as they found it.

A read-only SQLite connection to a file in WAL mode creates the ``-wal`` and
``-shm`` files beside it and, being read-only, cannot remove them when it
closes. When a command that only looks (``show``, ``studies``, ``export``)
made them, one ordinary connection is opened and closed after it: SQLite
removes both files when the last connection to the file closes, under its
own locks, so nothing is removed while another process uses the file.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from ..storage.url import StorageURL

__all__ = ["as_found"]


def _companions(path: Path) -> list[Path]:
    return [Path(f"{path}-wal"), Path(f"{path}-shm")]


@contextlib.contextmanager
def as_found(spec: str) -> Iterator[StorageURL]:
    """Run a read-only command on the storage ``spec``, parsed once and given to the
    ``with`` block (opened read-only); see the module docstring."""
    location = StorageURL.parse(spec, read_only=True)
    path = None if location.uri else location.path
    before = path is not None and any(p.exists() for p in _companions(path))
    try:
        yield location
    finally:
        if path is not None and not before and any(p.exists() for p in _companions(path)):
            _close_last(path)


def _close_last(path: Path) -> None:
    if not (path.is_file() and os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        return
    with contextlib.suppress(sqlite3.Error), contextlib.closing(sqlite3.connect(path, timeout=0.1)) as db:
        db.execute("PRAGMA schema_version").fetchall()
