"""The one interface a study's evaluations run behind when they run elsewhere.

An :class:`Executor` takes one evaluation at a time (:meth:`Executor.submit`),
says how many it runs at once (:meth:`Executor.capacity`) and waits for the
first of several to finish (:meth:`Executor.first_completed`). The study asks,
records and decides in its own process; only ``objective(value)`` crosses over.
:func:`as_executor` wraps what a caller passes: a ``concurrent.futures``
executor (:class:`~treefarm.execution.futures.FuturesExecutor`) or a Dask
``Client`` (:class:`~treefarm.execution.dask.DaskExecutor`), told apart without
importing Dask.

Call order and concurrency: ``submit`` and ``first_completed`` are called from
the study's thread only; a pending evaluation is read once with ``result()``
after ``first_completed`` returned it, or dropped with ``cancel()``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = ["Executor", "ExecutorLike", "Pending", "Submitter", "is_dask"]


class Pending(Protocol):
    """One submitted evaluation (a ``concurrent.futures.Future``, a Dask future)."""

    def result(self) -> Any:
        """The function's return value; raises what kept it from returning (a dead worker)."""
        ...

    def cancel(self) -> object:
        """Drop the evaluation if it has not run (its result is no longer wanted)."""
        ...


@runtime_checkable
class Executor(Protocol):
    """Where single evaluations run: a pool of processes, a cluster."""

    def capacity(self) -> int:
        """How many evaluations run at once now (a cluster grows and shrinks)."""
        ...

    def submit(self, function: Callable[..., Any], /, *args: Any) -> Pending:
        """Start ``function(*args)``, each call a task of its own (two equal calls run twice)."""
        ...

    def first_completed(self, pending: Collection[Pending]) -> set[Pending]:
        """The evaluations of ``pending`` that are done, waiting until at least one is."""
        ...


class Submitter(Protocol):
    """What a caller may pass instead: anything with a ``concurrent.futures``-like
    ``submit`` (a ``concurrent.futures`` executor, a ``distributed.Client``)."""

    def submit(self, function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any: ...


ExecutorLike = Executor | Submitter | Literal["ray"]
"""An executor as a caller may pass one: see :func:`~treefarm.execution.executors.as_executor`."""


def is_dask(executor: object) -> bool:
    """Whether ``executor`` is a ``distributed.Client`` (told apart without importing Dask)."""
    return type(executor).__module__.split(".")[0] == "distributed"
