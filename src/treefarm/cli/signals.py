"""SIGTERM and SIGHUP handled as Ctrl-C by the commands that run trials or hold them.

A terminated (``kill``, ``docker stop``, systemd) or hung-up (its terminal
closed) ``treefarm run`` or ``worker`` then fails its running trials as
``"interrupted"``, closes its storage (a SQLite file gets its ``-wal`` copied
in) and exits 130, instead of dying with its trials RUNNING; a dashboard fails
the trials asked from its page. (uvicorn stops on SIGTERM and then raises it
again once it has restored the handler it found: this one, so the dashboard's
own clean-up runs.) The signal goes
through SIGINT's handler, so that inside a storage transaction it is held
until the transaction ends (:mod:`treefarm.storage.interrupts`): raised
there, it left the write lock held and the process's own last writes
waiting on it.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType

__all__ = ["TERMINATIONS", "sigterm_as_sigint"]

TERMINATIONS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
"""The signals that end a command as Ctrl-C does (SIGHUP does not exist on Windows)."""


def _as_sigint(signum: int, frame: FrameType | None) -> None:
    signal.raise_signal(signal.SIGINT)


@contextlib.contextmanager
def sigterm_as_sigint() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP act as SIGINT (KeyboardInterrupt by default)."""
    previous = {signum: signal.signal(signum, _as_sigint) for signum in TERMINATIONS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
