"""An objective carried to a cluster's workers by value, for workers that cannot import its module."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import ModuleType
from typing import Any

from ..exceptions import StudyError

__all__ = ["ByValue"]


def _cloudpickle() -> Any:
    """cloudpickle, as Dask brings it, else the copy inside Ray."""
    try:
        import cloudpickle
    except ImportError:
        try:
            from ray import cloudpickle
        except ImportError as exc:
            raise StudyError(
                "carrying an objective to a cluster needs cloudpickle (Dask and Ray bring it): "
                "pip install 'treefarm[dask]' or 'treefarm[ray]'"
            ) from exc
    return cloudpickle


class ByValue:
    """A callable carried to the workers as cloudpickle bytes of ``function`` with its
    module's code included, so workers that cannot import that module (a file
    ``treefarm run`` executed) still run it. (Dask pickles a task with the standard
    pickle first, which would send the function by reference, so the bytes are made here.)"""

    def __init__(self, function: Callable[..., Any], module: ModuleType) -> None:
        cloudpickle = _cloudpickle()
        cloudpickle.register_pickle_by_value(module)
        try:
            self._payload: bytes = cloudpickle.dumps(function)
        finally:
            cloudpickle.unregister_pickle_by_value(module)
        self._function: Callable[..., Any] | None = None
        self.__signature__: inspect.Signature | None = inspect.signature(function)

    def __getstate__(self) -> dict[str, bytes]:
        return {"payload": self._payload}

    def __setstate__(self, state: dict[str, bytes]) -> None:
        self._payload = state["payload"]
        self._function = None
        self.__signature__ = None  # the workers call it; the study read its signature

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._function is None:
            self._function = _cloudpickle().loads(self._payload)
        return self._function(*args, **kwargs)
