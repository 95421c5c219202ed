"""``treefarm recover JOURNAL STORAGE``: write the results a worker kept in its journal.

A worker whose storage stayed unreachable past its retry deadline keeps each
finished result in a local journal (see :mod:`treefarm.storage.journal`); a
later successful call of any worker using that journal writes them, and this
command does it by hand (e.g. after the worker is gone). Replaying is
idempotent: a result already recorded is not recorded again. Exit status 0
when the journal is empty afterwards, 1 when entries remain (the storage did
not answer) or were refused (moved to ``JOURNAL.rejected``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..storage import open_storage
from ..storage.journal import finish_entry, replay
from ..storage.url import sqlite_file
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
    database = sqlite_file(args.storage)
    if database is not None and not database.exists():  # a mistyped path: refused, not created
        print(f"treefarm: error: the storage must exist, but got path={str(database)!r}", file=sys.stderr)
        return 2
    storage = open_storage(args.storage, journal=None)

    def finish(item: Mapping[str, Any]) -> object:
        return finish_entry(storage.finish_trial, item)

    try:
        done = replay(path, finish)
    finally:
        storage.close()
    for item in done.refused:
        what = f"trial {item['number']} (study id {item.get('study_id')})" if "number" in item else "an entry"
        print(f"refused {what}: {item['refused']}")
    print(
        f"{len(done.recorded)} recorded, {len(done.refused)} refused (kept in {path}.rejected), "
        f"{len(done.kept)} left in {path}"
    )
    return 0 if not (done.refused or done.kept) else 1


def _arguments(recover: argparse.ArgumentParser) -> None:
    recover.add_argument("journal", metavar="JOURNAL", help="the journal file (JSON lines)")
    recover.add_argument("storage", metavar="STORAGE", help="path or URL of the storage")


COMMAND = Command("recover", "write the results kept in a worker's journal to a storage", _arguments, cmd_recover)
