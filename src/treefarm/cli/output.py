"""The one place a command checks a file it is about to write (``export --output``,
``plot -o``), before any work, so that a wrong path is refused with its cause
instead of destroying something or failing with a traceback after the work.

Refused: the storage the command reads (or its ``-wal``, ``-shm`` and
``-journal`` companions), any SQLite database or result journal (overwriting one
loses studies or results no other copy holds), a folder, a file in a folder that
does not exist, and a file or folder this process may not write.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..exceptions import StorageError
from ..storage.journal import DEFAULT_JOURNAL
from ..storage.url import StorageURL
from .command import UsageError

__all__ = ["SQLITE_HEADER", "output_file"]

SQLITE_HEADER = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""
_COMPANIONS = ("", "-wal", "-shm", "-journal")


def output_file(text: str, *, option: str, storages: Iterable[str] = ()) -> Path:
    """The file ``text`` (given as ``option``) checked for writing; UsageError naming the cause."""
    target = Path(text).expanduser()
    why = _refusal(target, [p for spec in storages if (p := _database(spec)) is not None])
    if why is not None:
        raise UsageError(f"{option} must be a new or writable file in an existing folder, but got {option}={text!r}: {why}")
    return target


def _database(spec: str) -> Path | None:
    """The SQLite file ``spec`` names, or None (memory, a server, or no storage at all:
    the command refuses that one itself)."""
    try:
        return StorageURL.parse(spec).path
    except StorageError:
        return None


def _refusal(target: Path, databases: list[Path]) -> str | None:
    """Why ``target`` must not be written, or None."""
    resolved = target.resolve()
    guarded = {Path(f"{db.resolve()}{suffix}") for db in databases for suffix in _COMPANIONS}
    if resolved in guarded:
        return "it is the storage this command reads (writing it would destroy the studies)"
    if target.is_dir():
        return "it is a folder (name a file in it)"
    parent = resolved.parent
    if not parent.is_dir():
        return f"the folder {str(parent)!r} does not exist"
    if target.exists():
        return _existing(target)
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"the folder {str(parent)!r} is not writable"
    return None


def _existing(target: Path) -> str | None:
    """Why an existing file must not be overwritten, or None."""
    if not target.is_file():
        return "it exists and is not a regular file"
    if not os.access(target, os.W_OK):
        return "the file is not writable"
    try:
        with open(target, "rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except OSError as error:
        return f"it cannot be read ({error.strerror})"
    if head == SQLITE_HEADER:
        return "it is a SQLite database (writing it would destroy its studies)"
    if target.name == DEFAULT_JOURNAL or target.name.endswith(".jsonl.rejected"):
        return "it is a journal of results (writing it would lose them)"
    return None
