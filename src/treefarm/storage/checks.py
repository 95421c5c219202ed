"""Validation at the storage boundary, shared by every implementation.

Everything a storage keeps is JSON text (never pickle), so params and
attributes are checked by encoding them; the encoded text is what the
storage keeps, which also makes the stored value an independent copy.
Errors name the offending key or value in the library's message format.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import ConfigError, DuplicateParamsError, StorageError, TrialStateError, format_values
from ..objectives import Objectives
from .records import JSON, TrialState

__all__ = [
    "STALE_REASON",
    "CheckedFinish",
    "NotFoundError",
    "check_finish",
    "check_hint",
    "check_intermediate_length",
    "check_lengths",
    "check_owner",
    "check_params_owner",
    "check_seed",
    "check_state",
    "check_study",
    "check_unique_params",
    "decode",
    "encode_attrs",
    "encode_params",
    "encode_value",
    "intermediate_value",
    "json_floats",
    "owner_of",
    "stale_after",
    "state_error",
    "study_not_found",
    "trial_not_found",
    "vector",
    "vector_text",
]


class NotFoundError(StorageError, KeyError):
    """A study or trial that the storage does not hold (also a ``KeyError``)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def study_not_found(**names: object) -> NotFoundError:
    return NotFoundError(f"the study must exist in the storage, but got {format_values(**names)}")


def trial_not_found(study_id: int, number: int) -> NotFoundError:
    return NotFoundError(
        f"the trial must exist in the storage, but got {format_values(study_id=study_id, number=number)}"
    )


STALE_REASON = "stale heartbeat: worker presumed dead"
SEED_LIMIT = 2**63
"""Seeds are kept in a signed 64-bit column: |seed| < 2**63."""


def json_floats(values: Any) -> list[Any]:
    """A float array (any shape) as nested lists, a non-finite entry as None:
    JSON holds no NaN or infinity."""
    array = np.asarray(values, dtype=float)
    if array.ndim > 1:
        return [json_floats(row) for row in array]
    return [v if math.isfinite(v) else None for v in array.tolist()]


def encode_value(value: JSON, *, what: str) -> str:
    """The JSON text of ``value``; StorageError naming ``what`` if JSON cannot hold it."""
    try:
        return json.dumps(value, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise StorageError(
            f"{what} must be JSON-serializable (finite numbers, str, bool, None, lists, "
            f"dicts with str keys), but got {format_values(**{what: value})} ({exc})"
        ) from None


def _check_keys(mapping: Mapping[str, JSON], *, what: str) -> None:
    if not isinstance(mapping, Mapping):
        raise StorageError(f"{what} must be a mapping, but got {format_values(**{what: mapping})}")
    for key in mapping:
        if not isinstance(key, str):
            raise StorageError(f"{what} keys must be str, but got {format_values(key=key)}")


def encode_attrs(attrs: Mapping[str, JSON], *, what: str) -> str:
    """The JSON text of an attribute mapping, checked key by key so the error names the key."""
    _check_keys(attrs, what=what)
    for key, value in attrs.items():
        encode_value(value, what=f"{what}[{key!r}]")
    return encode_value(dict(attrs), what=what)


def check_unique_params(number: int, text: str, others: Iterable[str]) -> None:
    """The check of ``set_trial_params(..., unique_from=...)``: DuplicateParamsError
    if one of the ``others`` stored params texts holds the same configuration as
    ``text`` (equal as mappings: the key order of a stored text is not the space's
    order everywhere)."""
    params = decode(text)
    if any(decode(other) == params for other in others):
        raise DuplicateParamsError(
            f"trial {number}'s params must differ from every concurrent trial's, but another trial "
            f"already holds {format_values(params=text)}"
        )


def encode_params(params: Mapping[str, JSON]) -> str:
    """The JSON text of a configuration; ConfigError naming the first key JSON cannot hold."""
    try:
        return encode_attrs(params, what="params")
    except StorageError as exc:
        raise ConfigError(str(exc)) from None


_DECODER = json.JSONDecoder()


def decode(text: str | None) -> dict[str, JSON]:
    """A fresh dict from stored JSON text (an empty one for NULL).

    Stored text is compact (no surrounding whitespace), so ``raw_decode`` can
    skip ``json.loads``'s whitespace scans; empty mappings skip decoding.
    """
    if text is None or text == "{}":
        return {}
    return dict(_DECODER.raw_decode(text)[0])


def cost(value: object) -> float:
    """A trial's cost or a cost added to it: a finite number >= 0, else StorageError naming it."""
    if not _real(value) or not math.isfinite(float(value)) or float(value) < 0:  # type: ignore[arg-type]
        raise StorageError(f"a cost must be a finite number >= 0, but got cost={value!r}")
    return float(value)  # type: ignore[arg-type]


def refunded(number: int, cost: float, refund: float) -> float:
    """Trial ``number``'s cost once ``refund`` is taken back from ``cost``: never below
    zero (a rounding error of the cost function is forgiven), else StorageError naming both."""
    if refund > cost * (1 + 1e-9) + 1e-12:
        raise StorageError(
            f"a refund must be at most the trial's cost, but got (refund={refund!r}, cost={cost!r}) on trial {number}"
        )
    return max(0.0, cost - refund)


def check_seed(seed: int | None) -> None:
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, int) or not -SEED_LIMIT < seed < SEED_LIMIT:
        got = format_values(seed=seed)
        raise StorageError(f"seed must be None or an int with |seed| < 2**63, but got {got}")


def check_study(
    direction: str | None, seed: int | None, attrs: Mapping[str, JSON], directions: object = None
) -> tuple[Objectives, str]:
    """A new study's arguments checked (errors name the bad one): its objectives
    (:meth:`Objectives.parse`'s one rule: ``direction`` or ``directions``, not both,
    one of them given), and its attrs as stored text."""
    checked = Objectives.parse(direction, directions, error=StorageError)
    if checked is None:
        raise StorageError("a study needs a direction or directions, but got neither")
    check_seed(seed)
    return checked, encode_attrs(attrs, what="attrs")


def check_state(state: TrialState | str, *, allowed: tuple[TrialState, ...], action: str) -> TrialState:
    """``state`` as a TrialState; TrialStateError naming it if ``action`` cannot reach it."""
    try:
        checked = TrialState(state)
    except ValueError:
        checked = None
    if checked not in allowed:
        names = ", ".join(s.value for s in allowed)
        raise TrialStateError(f"{action} needs a state among ({names}), but got {format_values(state=state)}")
    assert checked is not None
    return checked


@dataclass(frozen=True)
class CheckedFinish:
    """A finish as stored: state, first value, every value, constraints and feasibility."""

    state: TrialState
    value: float | None
    values: tuple[float, ...] | None
    constraints: tuple[float, ...] | None

    @property
    def feasible(self) -> bool | None:
        """Whether every constraint is ``<= 0``; None without constraints (the stored column)."""
        return None if self.constraints is None else all(c <= 0 for c in self.constraints)


def _real(value: object) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _floats(values: object, *, what: str, expected: str) -> tuple[float, ...]:
    """``values`` as a non-empty tuple of finite floats; StorageError naming ``what`` otherwise."""
    if (
        isinstance(values, (str, bytes, Mapping))
        or not isinstance(values, (Sequence, np.ndarray))
        or len(values) == 0
        or not all(_real(v) and math.isfinite(v) for v in values)
    ):
        shown = list(values) if isinstance(values, (Sequence, np.ndarray)) and not isinstance(values, str) else values
        raise StorageError(f"{what} must be {expected}, but got {format_values(**{what: shown})}")
    return tuple(float(v) for v in values)


def check_finish(
    state: TrialState | str,
    value: float | None,
    user_attrs: Mapping[str, JSON],
    system_attrs: Mapping[str, JSON],
    *,
    values: Sequence[float] | None = None,
    constraints: Sequence[float] | None = None,
) -> CheckedFinish:
    """What to store for a finished trial; an error naming the value if not allowed.

    COMPLETE needs finite floats; FAILED and PRUNED take None or finite floats.
    ``values`` (one per objective) stands for ``value`` (its first, which must
    agree when both are given); ``value`` alone means ``values=(value,)``.
    ``constraints`` are finite floats (a trial is feasible when every one is
    ``<= 0``); both attribute mappings must be JSON. Every backend calls this
    before it touches anything, so a refused finish leaves the storage
    unchanged; the length of ``values`` is checked against the study's
    directions by :func:`check_lengths`.
    """
    encode_attrs(user_attrs, what="user_attrs")
    encode_attrs(system_attrs, what="system_attrs")
    finished = (TrialState.COMPLETE, TrialState.FAILED, TrialState.PRUNED)
    state = check_state(state, allowed=finished, action="finishing a trial")
    limits = None if constraints is None else _floats(
        constraints, what="constraints", expected="a non-empty list of finite floats (feasible when every one is <= 0)"
    )
    if values is not None:
        vector = _floats(values, what="values", expected=f"a non-empty list of finite floats for a {state.value} trial")
        if value is not None and value != vector[0]:
            raise StorageError(
                f"value must be the first of values, but got {format_values(value=value, values=list(vector))}"
            )
        return CheckedFinish(state, vector[0], vector, limits)
    if value is None and state is not TrialState.COMPLETE:
        return CheckedFinish(state, None, None, limits)
    if not _real(value) or not math.isfinite(value):  # type: ignore[arg-type]
        raise StorageError(
            f"the value of a {state.value} trial must be a finite float, but got {format_values(value=value)}"
        )
    first = float(value)  # type: ignore[arg-type]
    return CheckedFinish(state, first, (first,), limits)


def check_lengths(number: int, values: Sequence[float] | None, directions: Sequence[str]) -> None:
    """Refuse (StorageError) ``values`` that do not hold one entry per objective of the study."""
    if values is not None and len(values) != len(directions):
        raise StorageError(
            f"the values of trial {number} must hold one float per objective ({len(directions)}: "
            f"{list(directions)}), but got {format_values(values=list(values))} of length {len(values)}"
        )


def check_intermediate_length(number: int, step: int, values: Sequence[float], directions: Sequence[str]) -> None:
    """Refuse (StorageError) an intermediate vector without one entry per objective."""
    if len(values) != len(directions):
        raise StorageError(
            f"the intermediate vector of trial {number} at step {step} must hold one float per objective "
            f"({len(directions)}: {list(directions)}), but got {format_values(value=list(values))} "
            f"of length {len(values)}"
        )


def vector_text(values: Sequence[float] | None) -> str | None:
    """The JSON text of a vector of floats (NaN and infinities kept, as Python's JSON
    writes them: intermediate vectors may hold them); None for None."""
    return None if values is None else json.dumps([float(v) for v in values], separators=(",", ":"))


def vector(text: str | None) -> tuple[float, ...] | None:
    """The floats of a stored vector (see :func:`vector_text`); None for NULL. A vector of
    one (every single-objective trial) is parsed without the JSON decoder: history reads
    decode one per trial."""
    if text is None:
        return None
    if "," not in text:
        return (float(text[1:-1]),)
    return tuple(float(v) for v in json.loads(text))


def intermediate_value(step: int, value: float | Sequence[float]) -> tuple[float, tuple[float, ...] | None]:
    """What to store for an intermediate report: its first float, and every float when a
    vector (one per objective) was reported (NaN and infinities allowed: a diverging run
    is news)."""
    if isinstance(step, bool) or not isinstance(step, int):
        raise StorageError(f"step must be an int, but got {format_values(step=step)}")
    if isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes)):
        if len(value) == 0 or not all(_real(v) for v in value):
            raise StorageError(
                "an intermediate vector must be a non-empty list of floats, but got "
                f"{format_values(value=list(value))}"
            )
        floats = tuple(float(v) for v in value)
        return floats[0], floats
    if not _real(value):
        raise StorageError(f"an intermediate value must be a float, but got {format_values(value=value)}")
    return float(value), None


def check_hint(config: Mapping[str, JSON], credibility: float, weight: int, spread: float) -> str:
    """A hint's fields checked (errors name the bad one); its config as stored text."""
    if not isinstance(credibility, (int, float)) or isinstance(credibility, bool) or not 0 <= credibility <= 1:
        raise StorageError(f"credibility must be a number in [0, 1], but got {format_values(credibility=credibility)}")
    if weight not in (1, -1) or isinstance(weight, bool):
        raise StorageError(f"weight must be +1 (a good region) or -1 (a bad one), but got {format_values(weight=weight)}")
    if not isinstance(spread, (int, float)) or isinstance(spread, bool) or not 0 < spread <= 1:
        raise StorageError(f"spread must be a number in (0, 1], but got {format_values(spread=spread)}")
    if not config:
        raise StorageError(f"a hint needs at least one decision, but got {format_values(config=config)}")
    return encode_params(config)


MAX_NOTE = 10_000
"""The longest note, in characters."""
MAX_AUTHOR = 256
"""The longest author of a note or a hint, in characters (the column's size)."""


def check_note(text: object, author: object, trial: object) -> None:
    """A note's fields checked (errors name the bad one)."""
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_NOTE:
        raise StorageError(f"a note must be a text of 1 to {MAX_NOTE} characters, but got {format_values(text=str(text)[:100])}")
    if author is not None and (not isinstance(author, str) or len(author) > MAX_AUTHOR):
        raise StorageError(f"author must be None or a text of at most {MAX_AUTHOR} characters, but got {format_values(author=str(author)[:100])}")
    if trial is not None and (not isinstance(trial, int) or isinstance(trial, bool)):
        raise StorageError(f"trial must be a trial number or None, but got {format_values(trial=trial)}")


def stale_after(system_attrs: Mapping[str, JSON], grace: float) -> float:
    """How long the trial's own worker said its heartbeat may pause (``grace`` if it said nothing)."""
    own = system_attrs.get("stale_after")
    if isinstance(own, (int, float)) and not isinstance(own, bool) and own > 0:
        return float(own)
    return grace


def owner_of(system_attrs: Mapping[str, JSON]) -> str | None:
    """The token of the worker that claimed a trial (None for an unclaimed or older trial)."""
    worker = system_attrs.get("worker")
    token = worker.get("token") if isinstance(worker, dict) else None
    return token if isinstance(token, str) else None


def check_owner(number: int, state: TrialState, system_attrs: Mapping[str, JSON], owner: str | None) -> bool:
    """Whether a finish by ``owner`` may proceed on a trial in ``state``: True if it
    is RUNNING for that owner (or no owner was given and it is RUNNING), False if it is
    already finished for that owner (a repeated finish, answered with the stored
    record); TrialStateError otherwise."""
    mine = owner is None or owner_of(system_attrs) == owner
    if state is TrialState.RUNNING and mine:
        return True
    if state.is_finished and mine and owner is not None:
        return False
    if not mine:
        raise TrialStateError(
            "finishing a trial needs it to be running for the worker finishing it (another worker "
            "or a recovery took it over), but got "
            f"{format_values(number=number, state=state.value, owner=owner, holder=owner_of(system_attrs))}"
        )
    reason = system_attrs.get("fail_reason")
    if state is TrialState.FAILED and isinstance(reason, str):  # say who failed it: a recovery, an interrupt
        raise TrialStateError(
            "finishing a trial needs a running trial, but got "
            f"{format_values(number=number, state=state.value, fail_reason=reason)}"
        )
    raise state_error(number, state, action="finishing a trial", allowed="running")


def check_params_owner(number: int, state: TrialState, system_attrs: Mapping[str, JSON], owner: str | None) -> None:
    """Refuse (TrialStateError) setting params unless the trial is WAITING or RUNNING,
    and, when ``owner`` is given, RUNNING for that owner."""
    if state.is_finished:
        raise state_error(number, state, action="setting params", allowed="waiting or running")
    if owner is not None and (state is not TrialState.RUNNING or owner_of(system_attrs) != owner):
        raise TrialStateError(
            "setting params needs the trial to be running for the worker setting them (its claim was "
            "lost, or another worker or a recovery took it over), but got "
            f"{format_values(number=number, state=state.value, owner=owner, holder=owner_of(system_attrs))}"
        )


def state_error(number: int, state: TrialState, *, action: str, allowed: str) -> TrialStateError:
    """The error for ``action`` on trial ``number`` in a state that does not allow it."""
    return TrialStateError(
        f"{action} needs a {allowed} trial, but got {format_values(number=number, state=state.value)}"
    )
