"""``treefarm hint``: add, list or remove a study's search hints, also while it runs.

    treefarm hint runs.db --study svm --config '{"C": 10.0}' --credibility 0.8
    treefarm hint runs.db --study svm --config '{"kernel": "poly"}' --bad --space svm.py
    treefarm hint runs.db --study svm --list
    treefarm hint runs.db --study svm --remove 2

With ``--space FILE.py[:NAME]`` the configuration is checked against the
study's space now, naming a bad address or value; without it the study
checks it when it reads it, and leaves out (and logs) a hint that does not
fit its space.
"""

from __future__ import annotations

import argparse
import getpass
import json
import time
from typing import Any

from ..exceptions import StorageError, format_values
from ..space import convert
from ..storage import Storage, open_storage
from ..storage.url import StorageURL
from ..study.hinting import checked_hint
from .arguments import storage_argument, unit
from .command import Command
from .loading import space_from

__all__ = ["COMMAND", "cmd_hint"]


def _config(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"expected a JSON object, but got {text!r} ({exc})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object of address to decision, but got {text!r}")
    return value


def cmd_hint(args: argparse.Namespace) -> int:
    location = StorageURL.parse(args.storage)
    path = location.path
    if path is not None and not path.exists():  # a mistyped path: refused, not created
        raise StorageError(f"the storage of a study to hint must exist, but got {format_values(path=str(path))}")
    if args.list or args.remove is not None:
        with open_storage(location, read_only=args.list) as storage:
            _list_or_remove(storage, args)
        return 0
    config = args.config
    if args.space is not None:
        config = checked_hint(convert(space_from(args.space)), config, bad=args.bad)
    with open_storage(location) as storage:  # closing copies a SQLite file's -wal into it
        study = storage.get_study(args.study)
        record = storage.add_hint(
            study.study_id,
            config=config,
            credibility=args.credibility,
            weight=-1 if args.bad else 1,
            spread=args.spread,
            author=args.author,
        )
    print(f"hint {record.hint_id} added to study {args.study!r}")
    return 0


def _list_or_remove(storage: Storage, args: argparse.Namespace) -> None:
    study = storage.get_study(args.study)
    if args.remove is not None:
        storage.remove_hint(study.study_id, args.remove)
        print(f"removed hint {args.remove} of study {args.study!r}")
        return
    for h in storage.get_hints(study.study_id):
        kind = "bad" if h.weight < 0 else "good"
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(h.created))
        print(
            f"{h.hint_id}\t{kind}\tcredibility={h.credibility:g}\tspread={h.spread:g}\t{h.author or ''}\t{when}\t"
            f"{json.dumps(dict(h.config))}"
        )


def _arguments(p: argparse.ArgumentParser) -> None:
    storage_argument(p)
    p.add_argument("--study", required=True)
    action = p.add_mutually_exclusive_group(required=True)
    action.add_argument(
        "--config", type=_config, help="a JSON object of address to decision (full or partial)"
    )
    action.add_argument("--list", action="store_true", help="list the study's hints")
    action.add_argument("--remove", type=int, metavar="ID", help="remove the hint with this id")
    p.add_argument(
        "--credibility", type=unit, default=1.0, help="how far to trust the hint, in [0, 1] (default 1)"
    )
    p.add_argument("--bad", action="store_true", help="the region is bad: steer away from it")
    p.add_argument(
        "--spread", type=float, default=0.1, help="width of the hint's window in the unit cube (default 0.1)"
    )
    p.add_argument(
        "--space", default=None, metavar="FILE.py[:NAME]", help="check the config against the space of this Python file (executed) now"
    )
    p.add_argument("--author", default=getpass.getuser(), help="who gives the hint (default: the user)")


COMMAND = Command(
    "hint", "add, list or remove search hints of a study (also while it runs)", _arguments, cmd_hint
)
