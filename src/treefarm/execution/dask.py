"""Dask clusters as executors of a study's evaluations (:class:`DaskExecutor`).

    from treefarm.execution.dask import connect

    with connect("local", n_workers=4) as client:       # or "tcp://scheduler:8786", or a Client
        study.optimize(objective, 200, executor=client)

The study stays in the calling process: it asks (so a seeded run suggests
the same trials for the same completion order), records every outcome, and
sends Dask only ``objective(value)``. Each trial is one impure task submitted
with ``retries=0``, and only the study's process records its result, so a
task Dask re-runs can never complete a trial twice (the storage's owner check
refuses any finish that is not the trial's worker's, see
:class:`~treefarm.storage.Storage`).

A worker dying mid-trial: the scheduler gives up on its task at once when
``distributed.scheduler.allowed-failures`` is 0, which :func:`connect` sets
for the local cluster it starts; the trial is then FAILED with the reason
(``KilledWorker``) and its configuration queued again (``requeue_lost``
times, default once). A scheduler of your own with the default of 3 re-runs
the task on another worker instead: the trial then completes once, later.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterator
from typing import Any

from ..exceptions import StudyError, import_optional
from ..validation import check_int
from .base import Pending
from .by_value import ByValue

__all__ = ["LOCAL", "ByValue", "DaskExecutor", "connect"]

LOCAL = "local"
"""The address that starts a ``LocalCluster`` of worker processes on this machine."""
CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a scheduler at a given address before saying it did not answer."""


def _distributed() -> Any:
    return import_optional("distributed", needed="a Dask executor needs Dask's distributed", extra="dask")


@contextlib.contextmanager
def connect(
    address: Any = LOCAL, *, n_workers: int | None = None, threads_per_worker: int = 1
) -> Iterator[Any]:
    """A ``distributed.Client`` for ``address``: ``"local"`` starts a ``LocalCluster``
    of ``n_workers`` processes (default: one per core) and stops it on exit; a
    scheduler address (``"tcp://host:8786"``) connects, and disconnects on exit; a
    ``Client`` is used as it is (and left open)."""
    distributed = _distributed()
    if isinstance(address, distributed.Client):
        yield address
        return
    if not isinstance(address, str) or not address.strip():
        raise StudyError(
            f"a Dask address must be 'local', a scheduler address or a Client, but got address={address!r}"
        )
    check_int("n_workers", n_workers, error=StudyError, or_none=True)
    if address != LOCAL:
        with _connected(distributed, address) as client:
            yield client
        return
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        cluster = distributed.LocalCluster(
            n_workers=n_workers,
            threads_per_worker=threads_per_worker,
            processes=True,
            dashboard_address=None,
        )
    try:
        with distributed.Client(cluster) as client:
            yield client
    finally:
        cluster.close()


def _connected(distributed: Any, address: str) -> Any:
    """A client of the scheduler at ``address``; StudyError naming it when none answers
    within :data:`CONNECT_TIMEOUT` seconds (Dask's own wait is 30 s, then a traceback)."""
    try:
        return distributed.Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise StudyError(
            f"a Dask scheduler must answer at its address within {CONNECT_TIMEOUT:g} s, but got "
            f"address={address!r}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        ) from exc


class DaskExecutor:
    """A ``distributed.Client`` as an :class:`~treefarm.execution.base.Executor`. Each
    evaluation is submitted impure (two equal values are two tasks) and without Dask's
    own retries (see the module docstring); the client is the caller's and stays open."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def capacity(self) -> int:
        """The worker threads of the cluster now (at least 1)."""
        return max(1, sum(self.client.nthreads().values()))

    def submit(self, function: Callable[..., Any], /, *args: Any) -> Pending:
        future: Pending = self.client.submit(function, *args, pure=False, retries=0)
        return future

    def first_completed(self, pending: Collection[Pending]) -> set[Pending]:
        wait = _distributed().wait
        return set(wait(list(pending), return_when="FIRST_COMPLETED").done)
