"""``treefarm studies STORAGE``: list the studies in a storage."""

from __future__ import annotations

import argparse

from ..storage import Storage, open_storage
from .arguments import storage_argument
from .command import Command
from .tidy import as_found

__all__ = ["COMMAND", "cmd_studies"]


def cmd_studies(args: argparse.Namespace) -> int:
    with as_found(args.storage) as location, open_storage(location) as storage:
        return _list_studies(storage, args)


def _list_studies(storage: Storage, args: argparse.Namespace) -> int:
    studies = storage.list_studies()
    if not studies:
        print(f"no studies in {args.storage}")
    for s in studies:
        n = storage.count_trials(s.study_id)
        print(f"{s.name}\t{s.objectives.describe()}\t{n} trials\tseed={s.seed}")
    return 0


def _arguments(studies: argparse.ArgumentParser) -> None:
    storage_argument(studies)


COMMAND = Command("studies", "list the studies in a storage", _arguments, cmd_studies)
