"""Ray clusters as executors of a study's evaluations (:class:`RayExecutor`).

    from treefarm.execution.ray import connect

    with connect("local", num_cpus=4) as ray_executor:     # or "ray://head:10001", "auto"
        study.optimize(objective, 200, executor=ray_executor)

    study.optimize(objective, 200, executor="ray")          # the Ray this process is connected to

The contract is Dask's (:mod:`treefarm.execution.dask`): the study stays in
the calling process, asks (so a seeded run suggests the same trials for the
same completion order) and records every outcome; Ray runs only
``objective(value)``, one task per trial. Tasks are submitted with
``max_retries=0``: a worker process that dies mid-trial fails its task at
once (Ray's ``WorkerCrashedError``), and the study fails the trial with that
reason and queues its configuration again (``requeue_lost`` times, default
once), so nothing is lost and no trial is recorded twice; the budget counts
the failed trial and its re-run as the storage counts any two trials.

``executor="ray"`` uses the Ray this process is connected to, or starts one
as Ray itself does on first use (``ray.init()``: a local cluster, or the one
``RAY_ADDRESS`` names), left running for the process.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterator
from typing import Any

from ..exceptions import StudyError, import_optional
from ..validation import check_int
from .base import Pending

__all__ = ["LOCAL", "RayExecutor", "connect"]

LOCAL = "local"
"""The address that starts a Ray cluster on this machine (and stops it on exit)."""


def _ray() -> Any:
    return import_optional("ray", needed="a Ray executor needs Ray", extra="ray")


def _call(function: Callable[..., Any], *args: Any) -> Any:
    return function(*args)


class _Task:
    """One trial's Ray task: its ``ObjectRef`` behind the :class:`Pending` interface."""

    def __init__(self, ref: Any) -> None:
        self.ref = ref

    def result(self) -> Any:
        return _ray().get(self.ref)

    def cancel(self) -> object:
        return _ray().cancel(self.ref)


class RayExecutor:
    """The Ray cluster this process is connected to, as an
    :class:`~treefarm.execution.base.Executor`; each evaluation is one task
    without Ray's retries (see the module docstring)."""

    def __init__(self) -> None:
        ray = _ray()
        if not ray.is_initialized():
            ray.init(include_dashboard=False)
        self._remote = ray.remote(max_retries=0, retry_exceptions=False)(_call)

    def capacity(self) -> int:
        """The cluster's CPUs now (at least 1): one task each."""
        return max(1, int(_ray().cluster_resources().get("CPU", 1)))

    def submit(self, function: Callable[..., Any], /, *args: Any) -> Pending:
        return _Task(self._remote.remote(function, *args))

    def first_completed(self, pending: Collection[Pending]) -> set[Pending]:
        ray = _ray()
        tasks = {task.ref: task for task in pending if isinstance(task, _Task)}
        refs = list(tasks)
        ready, rest = ray.wait(refs, num_returns=1)
        if rest:  # every other one already done, without waiting
            ready += ray.wait(rest, num_returns=len(rest), timeout=0)[0]
        return {tasks[ref] for ref in ready}


@contextlib.contextmanager
def connect(address: str = LOCAL, *, num_cpus: int | None = None) -> Iterator[RayExecutor]:
    """A :class:`RayExecutor` on ``address``: ``"local"`` starts a Ray cluster of
    ``num_cpus`` CPUs (default: every core) on this machine and stops it on exit;
    any other address (``"auto"``, ``"ray://head:10001"``) connects, and disconnects
    on exit. A process already connected to Ray keeps its connection (and
    ``address`` must not name another)."""
    ray = _ray()
    if not isinstance(address, str) or not address.strip():
        raise StudyError(f"a Ray address must be 'local' or a cluster's address, but got address={address!r}")
    check_int("num_cpus", num_cpus, error=StudyError, or_none=True)
    if ray.is_initialized():
        yield RayExecutor()
        return
    options: dict[str, Any] = {"include_dashboard": False}
    if address == LOCAL:
        options["num_cpus"] = num_cpus
    else:
        options["address"] = address
    ray.init(**options)
    try:
        yield RayExecutor()
    finally:
        ray.shutdown()
