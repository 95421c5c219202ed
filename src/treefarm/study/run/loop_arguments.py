"""The arguments of ``Study.optimize``, checked before any trial runs: each error
names the argument and what was expected (see :mod:`treefarm.study.run.loop`)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ...exceptions import StudyError
from ...validation import check_callable, check_int

__all__ = ["check_arguments", "check_total", "checked_catch"]


def check_arguments(objective: Callable[..., Any], n_jobs: int, backend: str, executor: object, requeue_lost: int) -> bool:
    """The arguments checked; whether the objective takes the trial (on an executor or in
    worker processes, a detached copy of it: :mod:`.remote_trial`)."""
    check_int("n_jobs", n_jobs, error=StudyError)
    if backend not in ("process", "thread"):
        raise StudyError(f"backend must be 'process' or 'thread', but got backend={backend!r}")
    check_callable("objective", objective, error=StudyError)
    if isinstance(executor, str) and executor != "ray":
        raise StudyError(
            "executor must be 'ray' or an object with submit; turn an address into a Dask client with "
            f"treefarm.execution.dask.connect({executor!r}), but got executor={executor!r}"
        )
    check_int("requeue_lost", requeue_lost, 0, error=StudyError)
    signature = inspect.signature(objective)
    parameters = signature.parameters
    wants_trial = "trial" in parameters
    if wants_trial and len(parameters) == 1:
        raise StudyError(
            "an objective gets the configuration's value first (def objective(params, trial) to get "
            f"the trial too; Optuna's objective(trial) is one argument short), but got objective{signature}"
        )
    try:
        signature.bind(None, **({"trial": None} if wants_trial else {}))
    except TypeError:
        raise StudyError(
            "an objective is called objective(params), or objective(params, trial=trial) when it has a parameter "
            f"named trial, but objective{signature} needs other arguments (name the trial's "
            "parameter trial)"
        ) from None
    return wants_trial


def checked_catch(catch: object) -> tuple[type[BaseException], ...]:
    """``catch`` as a tuple of exception classes (one class alone is taken as one),
    or a StudyError naming it, before any trial runs."""
    classes = (catch,) if isinstance(catch, type) else catch
    if not isinstance(classes, (tuple, list)) or not all(
        isinstance(c, type) and issubclass(c, BaseException) for c in classes
    ):
        raise StudyError(f"catch must be exception classes, e.g. (ValueError,), but got catch={catch!r}")
    return tuple(classes)


def check_total(n_trials: int | None) -> None:
    """``n_trials``, the study's total, is an integer >= 1 or None."""
    check_int("n_trials", n_trials, error=StudyError, or_none=True)
