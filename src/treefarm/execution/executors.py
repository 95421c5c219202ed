"""The executor a caller passes, behind the one :class:`~treefarm.execution.base.Executor` interface."""

from __future__ import annotations

from ..exceptions import StudyError
from .base import Executor, is_dask
from .dask import DaskExecutor
from .futures import FuturesExecutor

__all__ = ["as_executor"]


def as_executor(executor: object) -> Executor:
    """``executor`` behind the :class:`Executor` interface (``"ray"``: the Ray this process
    is connected to, see :mod:`treefarm.execution.ray`); a StudyError naming it when it
    has no ``concurrent.futures``-like ``submit``."""
    if isinstance(executor, Executor):
        return executor
    if executor == "ray":
        from .ray import RayExecutor

        return RayExecutor()
    if is_dask(executor):
        return DaskExecutor(executor)
    if callable(getattr(executor, "submit", None)):
        return FuturesExecutor(executor)
    raise StudyError(
        "executor must have a concurrent.futures-like submit (a distributed.Client, a "
        "concurrent.futures executor; treefarm.execution.dask.connect turns an address into a "
        f"Client) or be 'ray', but got executor={executor!r}"
    )
