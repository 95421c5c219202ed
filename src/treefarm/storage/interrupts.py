"""Ctrl-C never lands inside a storage transaction.

Python raises KeyboardInterrupt in the main thread at whatever bytecode it
is running. Inside a transaction that can be a moment the connection's
cleanup does not cover, and a SQLite connection then keeps the write lock
(``BEGIN IMMEDIATE``) after the exception has left: the interrupted run's
own last writes, failing its running trials, wait for that lock (seen: a
``treefarm run --jobs 2`` interrupted under load, stuck in
``fail_running``). So while a transaction runs in the main thread, a SIGINT
is only noted, and KeyboardInterrupt is raised as soon as the transaction
has ended (committed, rolled back or failed). A handler other than Python's
default (the caller's own) is left alone.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

__all__ = ["sigint_deferred"]


@contextlib.contextmanager
def sigint_deferred() -> Iterator[None]:
    """Hold a SIGINT that arrives inside the block; raise KeyboardInterrupt when it ends."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    caught: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, _frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if caught:
            raise KeyboardInterrupt
