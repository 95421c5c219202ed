"""``treefarm dashboard``: serve the studies of a storage in the browser.

    treefarm dashboard treefarm.db            # http://127.0.0.1:8080/, read-only
    treefarm dashboard runs.db --port 9000
    treefarm dashboard runs.db --allow-writes --space svm.py   # hints, notes, ask/tell from the page

With ``--allow-writes`` it prints a URL with a token; only a page opened
with it can write. ``--space FILE.py[:NAME]`` (repeatable) gives the spaces
that hints, enqueued configurations and told results are checked against:
each study uses the one of its stored fingerprint.

Needs ``pip install treefarm[dashboard]`` (Starlette and uvicorn).
"""

from __future__ import annotations

import argparse
import importlib.util

from .arguments import storage_argument
from .command import Command, UsageError
from .loading import space_from
from .signals import sigterm_as_sigint

__all__ = ["COMMAND", "cmd_dashboard"]


def cmd_dashboard(args: argparse.Namespace) -> int:
    missing = [m for m in ("starlette", "uvicorn") if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(
            f"the dashboard needs {' and '.join(missing)}, but they are not installed: "
            "pip install 'treefarm[dashboard]'"
        )
    if not 0 < args.port < 65536:
        raise UsageError(f"--port must lie in [1, 65535], but got --port={args.port}")
    from ..dashboard import serve

    if args.space and not args.allow_writes:
        raise UsageError("--space is used by writes only: give --allow-writes too")
    spaces = [space_from(target) for target in args.space]
    try:
        with sigterm_as_sigint():  # a terminated dashboard fails the trials asked from its page
            serve(
                args.storage,
                host=args.host,
                port=args.port,
                allow_writes=args.allow_writes,
                spaces=spaces,
                artifacts=args.artifacts,
            )
    except KeyboardInterrupt:
        return 130
    return 0


def _arguments(p: argparse.ArgumentParser) -> None:
    storage_argument(p, "SQLite file or PostgreSQL URL")
    p.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)"
    )
    p.add_argument("--port", type=int, default=8080)
    p.add_argument(
        "--allow-writes",
        action="store_true",
        help="let a person add hints, notes, enqueued configurations and told results from the page "
        "(needs the token printed at start-up)",
    )
    p.add_argument(
        "--space",
        action="append",
        default=[],
        metavar="FILE.py[:NAME]",
        help="a space to check writes against (repeatable; each study uses the one of its fingerprint)",
    )
    p.add_argument(
        "--artifacts",
        default=None,
        metavar="DIR_OR_URL",
        help="the artifact store the trials saved to (default: <file>.artifacts beside a SQLite file)",
    )


COMMAND = Command("dashboard", "serve the studies of a storage in the browser", _arguments, cmd_dashboard)
