"""A ``concurrent.futures`` executor (a process or thread pool of the caller's) as an
:class:`~treefarm.execution.base.Executor`."""

from __future__ import annotations

from collections.abc import Callable, Collection
from concurrent.futures import FIRST_COMPLETED, Future
from concurrent.futures import wait as futures_wait
from typing import Any

from .base import Pending

__all__ = ["FuturesExecutor"]


class FuturesExecutor:
    """Runs evaluations on ``pool`` (anything with a ``concurrent.futures``-like ``submit``);
    never shuts it down: the caller owns it."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool

    def capacity(self) -> int:
        """The pool's ``max_workers``, else 1."""
        workers = getattr(self.pool, "_max_workers", 1)
        return workers if isinstance(workers, int) and workers >= 1 else 1

    def submit(self, function: Callable[..., Any], /, *args: Any) -> Pending:
        future: Future[Any] = self.pool.submit(function, *args)
        return future

    def first_completed(self, pending: Collection[Pending]) -> set[Pending]:
        futures: list[Any] = list(pending)
        return set(futures_wait(futures, return_when=FIRST_COMPLETED).done)
