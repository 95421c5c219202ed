"""SIGTERM handled as Ctrl-C by the commands that run trials.

A terminated ``treefarm run`` or ``worker`` then fails its running trials as
``"interrupted"``, closes its storage (a SQLite file gets its ``-wal`` copied
in) and exits 130, instead of dying with its trials RUNNING. The signal goes
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

__all__ = ["sigterm_as_sigint"]


def _as_sigint(signum: int, frame: FrameType | None) -> None:
    signal.raise_signal(signal.SIGINT)


@contextlib.contextmanager
def sigterm_as_sigint() -> Iterator[None]:
    """Within the block, SIGTERM acts as SIGINT (KeyboardInterrupt by default)."""
    previous = signal.signal(signal.SIGTERM, _as_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
