"""The library's error types.

Every message follows one format: the rule that was broken, then the
offending ``name=value`` pairs, e.g.
``"low < high must hold, but got low=3.0, high=1.0"``.
Each error derives from :class:`TreefarmError` and from the built-in error a
Python user would expect (``ValueError``, ``TypeError``, ``KeyError``), so
generic ``except ValueError`` handlers keep working.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = [
    "ConfigError",
    "SpaceError",
    "StorageError",
    "StorageFullError",
    "StorageUnavailableError",
    "StudyError",
    "TreefarmError",
    "TrialPruned",
    "TrialStateError",
    "format_values",
    "import_optional",
]


def format_values(**values: object) -> str:
    """Render ``name=value`` pairs for an error message, in the given order."""
    return ", ".join(f"{name}={value!r}" for name, value in values.items())


class TreefarmError(Exception):
    """Base class of every error raised by treefarm."""


class SpaceError(TreefarmError, ValueError):
    """A search space is malformed: bad bounds, empty choice, recursion with no way out."""


class ConfigError(TreefarmError, ValueError):
    """A configuration does not fit its space: unknown or missing address, bad value.

    ``address`` is the offending decision's address where one decision is at
    fault (a caller may drop it and try again: a warm start's projection)."""

    def __init__(self, message: str, *, address: str | None = None) -> None:
        super().__init__(message)
        self.address = address


class StorageError(TreefarmError, RuntimeError):
    """A storage cannot be opened or used: malformed URL, schema mismatch, lost connection."""


class StorageUnavailableError(StorageError):
    """The storage did not answer within its retry deadline (server down, network lost).

    ``journal`` is the path of the local journal that kept the result the failed
    call was recording, or None when the call recorded no result (see
    :mod:`treefarm.storage.journal`).
    """

    def __init__(self, message: str, *, journal: str | None = None) -> None:
        super().__init__(message)
        self.journal = journal


class StorageFullError(StorageUnavailableError):
    """The storage's disk (or its quota) is full: SQLite's "database or disk is full",
    PostgreSQL's ``disk_full``. Not retried; a finished trial's result is kept in the
    local journal like any other result the storage could not take (``journal``)."""


class StorageReplacedError(StorageError):
    """The SQLite file was deleted or replaced while this process had it open: a
    write is refused (it would go into a file no process can open again). A
    finished trial's result is kept in the local journal first, when there is
    one (``journal`` names it)."""

    def __init__(self, message: str, *, journal: str | None = None) -> None:
        super().__init__(message)
        self.journal = journal


class DuplicateParamsError(StorageError):
    """A configuration is refused because a concurrent trial already holds it
    (``Storage.set_trial_params(..., unique_from=...)``); nothing was written."""


class StudyError(TreefarmError, RuntimeError):
    """A study is used against its contract, e.g. asking for a best trial before any completed."""


class SuggestionError(StudyError):
    """The optimizer (or the choosing around it: hint draws, the dedupe) raised
    while suggesting a trial's configuration. The trial claimed for it is
    FAILED with this message and the error propagates whatever ``catch`` holds
    (``catch`` is the objective's): an optimizer that raises is a bug or a
    missing dependency, which the next trials would meet again. The original
    exception is the ``__cause__``."""


class TrialStateError(StudyError):
    """A trial is moved to a state it cannot reach, e.g. ``tell()`` twice on one trial."""


class TrialPruned(TreefarmError):  # noqa: N818 (a signal, not an error; the name Optuna users know)
    """Raised by an objective to stop its trial early (after ``trial.should_prune()``
    said so); the study records the trial PRUNED with its last reported value.
    Not an error: the run goes on whatever ``catch`` holds."""


def import_optional(module: str, *, needed: str, extra: str) -> ModuleType:
    """``module`` (an optional dependency, imported when first needed), or a StudyError
    saying what ``needed`` it and the extra that installs it:
    ``"<needed>: pip install 'treefarm[<extra>]'"``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise StudyError(f"{needed}: pip install 'treefarm[{extra}]'") from exc
