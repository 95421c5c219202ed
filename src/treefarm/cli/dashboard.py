"""``treefarm dashboard``: serve the studies of a storage in the browser, read-only.

    treefarm dashboard treefarm.db            # http://127.0.0.1:8080/
    treefarm dashboard runs.db --port 9000

Needs ``pip install treefarm[dashboard]`` (Starlette and uvicorn).
"""

from __future__ import annotations

import argparse
import importlib.util

from .command import Command, UsageError

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

    serve(args.storage, host=args.host, port=args.port)
    return 0


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("storage", help="SQLite file or PostgreSQL URL")
    p.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)"
    )
    p.add_argument("--port", type=int, default=8080)


COMMAND = Command("dashboard", "serve the studies of a storage in the browser (read-only)", _arguments, cmd_dashboard)
