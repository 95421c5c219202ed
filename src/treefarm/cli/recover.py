"""``treefarm recover JOURNAL STORAGE``: write the results a worker kept in its journal.

A worker whose storage stayed unreachable past its retry deadline keeps each
finished result in a local journal (see :mod:`treefarm.storage.journal`); a
later successful call of any worker using that journal writes them, and this
command does it by hand (e.g. after the worker is gone). Replaying is
idempotent: a result already recorded is not recorded again. Only the entries
recorded for STORAGE (the URL each entry names) are written; the others stay in
the journal, listed by their storage. Exit status 0
when the journal is empty afterwards, 1 when entries remain (the storage did
not answer) or were refused (moved to ``JOURNAL.rejected``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..storage import open_storage
from ..storage.journal import finish_entry, replay
from ..storage.url import StorageURL
from .arguments import storage_argument
from .command import Command

__all__ = ["COMMAND", "cmd_recover"]


def cmd_recover(args: argparse.Namespace) -> int:
    path = Path(args.journal)
    if not path.is_file():
        print(
            f"treefarm: error: the journal must be an existing file, but got journal={args.journal!r}",
            file=sys.stderr,
        )
        return 2
    location = StorageURL.parse(args.storage)
    database = location.path
    if database is not None and not database.exists():  # a mistyped path: refused, not created
        print(f"treefarm: error: the storage must exist, but got path={str(database)!r}", file=sys.stderr)
        return 2
    storage = open_storage(location, journal=None)
    url = None if location.memory else location.shown  # as the journal's entries name their storage

    def finish(item: Mapping[str, Any]) -> object:
        return finish_entry(storage.finish_trial, item)

    lines = _numbered_lines(path)
    try:
        done = replay(path, finish, url=url)
    finally:
        storage.close()
    for item in done.refused:
        print(f"refused {_which(item, lines)}: {_why(item)}")
    elsewhere = sorted({str(item["url"]) for item in done.kept if item.get("url", url) != url})
    for other in elsewhere:
        count = sum(item.get("url") == other for item in done.kept)
        print(f"left {count} for another storage: {other} (recover them with that storage)")
    rejected = f" (kept in {path}.rejected)" if done.refused else ""
    print(
        f"{len(done.recorded)} recorded, {len(done.refused)} refused{rejected}, {len(done.kept)} left in {path}"
    )
    return 0 if not (done.refused or done.kept) else 1


#: The fields of a journal entry (see :func:`treefarm.storage.journal.entry`).
FIELDS = ("study_id", "number", "state", "value", "user_attrs", "system_attrs", "owner")


def _numbered_lines(path: Path) -> list[tuple[int, str]]:
    """The journal's non-blank lines with their numbers (from 1), read before the replay
    empties it, so that a refused entry is named by its line."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [(i, line) for i, line in enumerate(text.splitlines(), 1) if line.strip()]


def _which(item: Mapping[str, Any], lines: list[tuple[int, str]]) -> str:
    """A refused entry named by its trial when it has one, else by its line of the journal."""
    if "line" in item:
        text = item["line"]
        number = next((i for i, line in lines if line[:10_000] == text), None)
    else:
        entry = {k: v for k, v in item.items() if k != "refused"}
        number = next((i for i, line in lines if _loads(line) == entry), None)
        text = json.dumps(entry)
    where = f"line {number}" if number is not None else "a line"
    if isinstance(item.get("number"), int) and "study_id" in item:
        return f"trial {item['number']} (study id {item.get('study_id')}, {where})"
    return f"{where} ({text[:120]})"


def _why(item: Mapping[str, Any]) -> str:
    missing = [f for f in FIELDS if f not in item] if "line" not in item else []
    if missing:
        return f"an entry needs the fields {', '.join(FIELDS)}, but it lacks {', '.join(missing)}"
    return str(item["refused"])


def _loads(line: str) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        return None


def _arguments(recover: argparse.ArgumentParser) -> None:
    recover.add_argument("journal", metavar="JOURNAL", help="the journal file (JSON lines)")
    storage_argument(recover)


COMMAND = Command(
    "recover", "write the results kept in a worker's journal to a storage", _arguments, cmd_recover
)
