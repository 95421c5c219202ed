"""Where studies and trials are kept: the contract, in-memory and SQL backends.

``SQLStorage`` is loaded on first access (module ``__getattr__``), so that
importing this package does not import SQLAlchemy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import Storage
from .checks import NotFoundError
from .memory import InMemoryStorage
from .opening import open_storage
from .records import JSON, REQUEUED, HintRecord, NoteRecord, StudyRecord, TrialRecord, TrialState
from .url import StorageURL

if TYPE_CHECKING:
    from .sql import SQLStorage

__all__ = [
    "JSON",
    "REQUEUED",
    "HintRecord",
    "InMemoryStorage",
    "NotFoundError",
    "NoteRecord",
    "SQLStorage",
    "Storage",
    "StorageURL",
    "StudyRecord",
    "TrialRecord",
    "TrialState",
    "open_storage",
]


def __getattr__(name: str) -> Any:
    if name == "SQLStorage":
        from .sql import SQLStorage

        return SQLStorage
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
