"""``treefarm``: run an objective from a file, list and inspect studies, export trials.

    treefarm run examples/quickstart.py --n-trials 50 --algo tpe
    treefarm studies treefarm.db
    treefarm show treefarm.db --study quickstart
    treefarm export treefarm.db --study quickstart --format csv --output trials.csv
    treefarm hint treefarm.db --study quickstart --config '{"layers": 3}' --credibility 0.8
    treefarm plot treefarm.db --study quickstart --kind convergence -o convergence.png
    treefarm dashboard treefarm.db
    treefarm worker postgresql://user@host/db --study quickstart --file examples/quickstart.py
    treefarm recover treefarm-journal.jsonl treefarm.db
    treefarm create runs.db --study sim --space space.json --n-trials 40
    treefarm ask runs.db --study sim --json
    treefarm tell runs.db --study sim --trial 3 --value 0.25
    treefarm import-optuna sqlite:///optuna.db --study resnet --to treefarm.db

A file given to ``run`` defines the objective (``objective`` unless
``FILE.py:NAME`` says otherwise) and its space (``space`` unless ``--space``
says otherwise). The files given to ``run``, ``worker`` and ``hint --space`` are
executed as Python (``worker`` without ``--file`` runs ``./STUDY.py``): run only
files you trust. Errors in arguments exit with status 2 and a message that
names the argument.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence

from .. import __version__
from ..exceptions import TreefarmError
from . import asktell, dashboard, export, hint, import_optuna, plot, recover, run, show, studies, worker
from .command import Command, UsageError

__all__ = ["COMMANDS", "main", "parser"]

#: Every command, in the order ``treefarm --help`` lists them: the one place a command is added.
COMMANDS: tuple[Command, ...] = (
    run.COMMAND,
    studies.COMMAND,
    show.COMMAND,
    export.COMMAND,
    hint.COMMAND,
    plot.COMMAND,
    dashboard.COMMAND,
    recover.COMMAND,
    worker.COMMAND,
    asktell.CREATE,
    asktell.ASK,
    asktell.TELL,
    import_optuna.COMMAND,
)


TRACEBACK_ENV = "TREEFARM_TRACEBACK"
"""Set to 1 to see the traceback of an unexpected error (as ``--traceback`` does)."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="treefarm", description=__doc__.split("\n")[0])
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    p.add_argument(
        "--traceback",
        action="store_true",
        help=f"show the traceback of an unexpected error (anywhere on the line; or {TRACEBACK_ENV}=1)",
    )
    sub = p.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``treefarm`` command; returns the exit status."""
    given = list(sys.argv[1:] if argv is None else argv)
    shown = "--traceback" in given or os.environ.get(TRACEBACK_ENV, "") not in ("", "0")
    p = parser()
    args = p.parse_args([a for a in given if a != "--traceback"])
    try:
        return int(args.func(args))
    except UsageError as exc:
        p.error(str(exc))
    except TreefarmError as exc:
        print(f"treefarm: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `treefarm show ... | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:  # a bug, or a failure no check foresaw: one line unless asked
        if shown:
            traceback.print_exc()
        print(f"treefarm: error: {_one_line(exc)}", file=sys.stderr)
        if not shown:
            print(f"treefarm: (run with --traceback or {TRACEBACK_ENV}=1 to see where)", file=sys.stderr)
        return 1
    return 1


def _one_line(exc: BaseException) -> str:
    """An unexpected error as one line: its type and first line (an OSError's own words)."""
    if isinstance(exc, OSError) and exc.strerror:
        where = f": {exc.filename!r}" if exc.filename else ""
        return f"{exc.strerror}{where}"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300]}" if text else type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())
