"""Turning what an objective returned (or raised) into a trial outcome.

An objective returns a number (the loss, or the score of a maximization), a
sequence of numbers (one per objective, for a study with several
``directions``), or a mapping with either under ``"loss"`` and extra JSON
fields recorded as user attributes. Two extra fields have a meaning:
``"loss_variance"``, the variance of the loss as an estimate (a finite number
>= 0; see :class:`treefarm.optimizers.Observation`), which the GP takes as
that trial's own noise, and ``"constraints"``, a number or a sequence of
numbers the trial satisfies when each is <= 0. Anything else (NaN, infinity,
a string, a mapping without ``"loss"``, a constraint that is not a finite
number) fails the trial with a reason that says what came back; the study
goes on. Whether the count of values fits the study's directions is the
study's check (:meth:`treefarm.Study.finish`).
"""

from __future__ import annotations

import json
import math
import numbers
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ...exceptions import StudyError, TrialPruned, format_values
from ...storage import TrialState

__all__ = [
    "LOSS_VARIANCE_KEY",
    "Outcome",
    "failure",
    "from_exception",
    "from_result",
    "loss_variance",
    "told",
    "with_constraints",
]

LOSS_KEY = "loss"
LOSS_VARIANCE_KEY = "loss_variance"
CONSTRAINTS_KEY = "constraints"


@dataclass(frozen=True)
class Outcome:
    """The state, value and attributes a finished trial is recorded with."""

    state: TrialState
    value: float | None = None
    user_attrs: Mapping[str, Any] = field(default_factory=dict)
    system_attrs: Mapping[str, Any] = field(default_factory=dict)
    values: tuple[float, ...] | None = None
    constraints: tuple[float, ...] | None = None
    malformed: bool = False
    """The trial fails because what came back is no result at all (a string, None, a
    mapping without ``"loss"``, another count of values): an objective's run fails it,
    but ``tell`` refuses it and leaves the trial running, so that a typo can be mended.
    Never stored."""


def failure(reason: str, *, state: TrialState = TrialState.FAILED) -> Outcome:
    """A trial ended (failed, or pruned) for ``reason``, with no value."""
    return Outcome(state, system_attrs={"fail_reason": reason})


def _failed(reason: str, **extra: Any) -> Outcome:
    return Outcome(TrialState.FAILED, system_attrs={"fail_reason": reason, **extra})


def _malformed(reason: str) -> Outcome:
    return Outcome(TrialState.FAILED, system_attrs={"fail_reason": reason}, malformed=True)


def _as_float(result: object) -> float | None:
    if isinstance(result, bool) or not isinstance(result, numbers.Real):
        return None
    try:
        return float(result)
    except OverflowError:  # an int beyond float range: non-finite, so the trial fails with that reason
        return math.inf if result > 0 else -math.inf  # type: ignore[operator]


def _json_attrs(attrs: Mapping[str, Any]) -> dict[str, Any] | str:
    """The extra fields if JSON can hold them, else the reason it cannot."""
    out: dict[str, Any] = {}
    for key, value in attrs.items():
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            return f"the extra field {key!r} is not JSON-serializable, but got {key}={value!r:.80}"
        out[str(key)] = value
    return out


def loss_variance(attrs: Mapping[str, Any]) -> float | None:
    """The ``"loss_variance"`` of a trial's attributes: 0 when absent, None when
    it is not a finite number >= 0."""
    if LOSS_VARIANCE_KEY not in attrs:
        return 0.0
    value = _as_float(attrs[LOSS_VARIANCE_KEY])
    return value if value is not None and math.isfinite(value) and value >= 0.0 else None


def _is_sequence(result: object) -> bool:
    """A list, tuple or one-dimensional array (not a string or a mapping)."""
    if isinstance(result, (list, tuple)):
        return True
    ndim = getattr(result, "ndim", None)
    return ndim == 1 and hasattr(result, "__len__")


def _numbers(result: object) -> tuple[float, ...] | None:
    """``result`` as a tuple of floats (a number is a tuple of one), or None."""
    if _is_sequence(result):
        items = [_as_float(x) for x in result]  # type: ignore[attr-defined]
        if not items or any(x is None for x in items):
            return None
        return tuple(x for x in items if x is not None)
    value = _as_float(result)
    return None if value is None else (value,)


def _constraints(given: object) -> tuple[float, ...] | str:
    """The constraint values of a result, or the reason they are refused."""
    values = _numbers(given)
    if values is None:
        return f"{CONSTRAINTS_KEY} must be a number or a sequence of numbers, but got {CONSTRAINTS_KEY}={given!r:.80}"
    if not all(math.isfinite(c) for c in values):
        return f"{CONSTRAINTS_KEY} must be finite numbers, but got {CONSTRAINTS_KEY}={list(values)!r:.80}"
    return values


def from_result(result: object) -> Outcome:
    """The outcome of an objective that returned ``result``."""
    attrs: dict[str, Any] = {}
    constraints: tuple[float, ...] | None = None
    if isinstance(result, Mapping):
        if LOSS_KEY not in result:
            keys = sorted(map(repr, result))[:20]
            return _malformed(f"the objective returned a mapping without {LOSS_KEY!r}: keys=[{', '.join(keys)}]")
        if CONSTRAINTS_KEY in result:
            checked = _constraints(result[CONSTRAINTS_KEY])
            if isinstance(checked, str):
                return _malformed(checked)
            constraints = checked
        extra = _json_attrs({k: v for k, v in result.items() if k not in (LOSS_KEY, CONSTRAINTS_KEY)})
        if isinstance(extra, str):
            return _malformed(extra)
        if loss_variance(extra) is None:
            given = extra[LOSS_VARIANCE_KEY]
            return _malformed(
                f"{LOSS_VARIANCE_KEY} must be a finite number >= 0, but got {LOSS_VARIANCE_KEY}={given!r:.80}"
            )
        attrs, result = extra, result[LOSS_KEY]
    values = _numbers(result)
    if values is None:
        return _malformed(
            f"the objective must return a number, a sequence of numbers or a mapping with {LOSS_KEY!r}, "
            f"but returned a {type(result).__name__}: {result!r:.80}"
        )
    for i, value in enumerate(values):
        if not math.isfinite(value):
            where = "" if len(values) == 1 else f" for objective {i} of {list(values)!r:.80}"
            return _failed(f"the objective returned a non-finite value{where}: {value!r}")
    return Outcome(TrialState.COMPLETE, values[0], user_attrs=attrs, values=values, constraints=constraints)


def with_constraints(outcome: Outcome, constraints: object) -> Outcome:
    """``outcome`` with the constraint values a user gave to ``tell`` (None: as it
    is); values that are not finite numbers fail the trial, saying so."""
    if constraints is None or outcome.state is not TrialState.COMPLETE:
        return outcome
    checked = _constraints(constraints)
    if isinstance(checked, str):
        return _malformed(checked)
    return replace(outcome, constraints=checked)


def from_exception(exc: BaseException) -> Outcome:
    """The outcome of an objective that raised ``exc`` (the traceback is kept as text);
    :class:`~treefarm.TrialPruned` makes it PRUNED, not FAILED."""
    if isinstance(exc, TrialPruned):
        return Outcome(TrialState.PRUNED)
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    reason = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"{type(exc).__name__}: {exc}"
    return _failed(reason, traceback=text[-20_000:])


def told(value: object, *, state: TrialState | str | None, exception: BaseException | None) -> Outcome:
    """The outcome a user's ``tell`` gives: an exception, an explicit state that is
    not COMPLETE (``"failed"``, ``"pruned"``; a pruned trial keeps a number it is
    told, the loss it was stopped at), else the value as an objective's result."""
    if exception is not None:
        return from_exception(exception)
    if state is not None:
        told_states = [s.value for s in TrialState if s not in (TrialState.WAITING, TrialState.RUNNING)]
        if not isinstance(state, str) or state not in told_states:
            raise StudyError(f"state must be one of {told_states!r}, but got {format_values(state=state)}")
        if TrialState(state) is TrialState.PRUNED and value is not None:
            reported = from_result(value)  # the value it was stopped at, as a pruner's report would be
            if reported.state is TrialState.COMPLETE:
                return replace(reported, state=TrialState.PRUNED, system_attrs={"fail_reason": "told pruned"})
        if TrialState(state) is not TrialState.COMPLETE:
            return failure(f"told {TrialState(state).value}", state=TrialState(state))
    return from_result(value)
