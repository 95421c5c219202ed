"""The argument checks every layer uses, so one rule reads the same everywhere.

Each check raises the error type of the layer that calls it (``error``, a
:class:`~treefarm.exceptions.TreefarmError` subclass: a space refuses with
:class:`~treefarm.exceptions.SpaceError`, an optimizer option with
:class:`~treefarm.exceptions.ConfigError`, the study with
:class:`~treefarm.exceptions.StudyError`) and a message in the library's one
format: the rule, then ``name=value``. A bool is never taken for a number
(``True`` would read as 1) and a string never for a bool (``"no"`` would read as true).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import TypeGuard

import numpy as np

from .exceptions import ConfigError, StudyError, TreefarmError, format_values

STUDY_NAME_MAX = 512
"""The longest study name, in characters: the storage's column holds no more."""
REFUSED_IN_NAMES = "NUL and the other control characters (U+0000-U+001F, U+007F)"
"""What a study name may not hold, as its error lists it."""

__all__ = [
    "REFUSED_IN_NAMES",
    "STUDY_NAME_MAX",
    "check_bool",
    "check_callable",
    "check_has_methods",
    "check_int",
    "check_integral",
    "check_nonnegative",
    "check_one_of",
    "check_positive",
    "check_range",
    "check_study_name",
    "check_type",
    "is_integer",
    "is_integral",
    "is_number",
]


def is_integer(value: object) -> TypeGuard[int]:
    """``value`` is a Python int and not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_integral(value: object) -> TypeGuard[numbers.Integral]:
    """``value`` is an integer (a NumPy integer too) and not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_number(value: object) -> TypeGuard[numbers.Real]:
    """``value`` is a real number (a NumPy scalar too) and not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_bool(
    name: str, value: object, *, error: type[TreefarmError] = ConfigError, or_none: bool = False, owner: str = ""
) -> None:
    """``value`` is ``True`` or ``False`` (a NumPy bool too), or None when ``or_none``:
    a string, a number or another truthy value is refused, never read as a flag;
    ``owner`` (e.g. ``"Real"``) opens the message."""
    if isinstance(value, (bool, np.bool_)) or (or_none and value is None):
        return
    expected = "True, False or None" if or_none else "True or False"
    subject = f"{owner} {name}" if owner else name
    raise error(f"{subject} must be {expected}, but got {format_values(**{name: value})}")


def check_callable(
    name: str, value: object, *, error: type[TreefarmError] = ConfigError, or_none: bool = False
) -> None:
    """``value`` can be called, or is None when ``or_none``."""
    if not callable(value) and not (or_none and value is None):
        expected = "callable or None" if or_none else "callable"
        raise error(f"{name} must be {expected}, but got {format_values(**{name: value})}")


def check_type(
    name: str, value: object, kinds: tuple[type, ...], what: str, *, error: type[TreefarmError] = ConfigError
) -> None:
    """``value`` is an instance of one of ``kinds`` (``what`` names them in the message);
    a bool is taken for a number only when ``bool`` is among ``kinds``."""
    is_flag = isinstance(value, (bool, np.bool_))
    if (is_flag and bool in kinds) or (not is_flag and isinstance(value, kinds)):
        return
    raise error(f"{name} must be {what}, but got {format_values(**{name: value})}")


def check_one_of(
    name: str, value: object, options: Sequence[str], *, error: type[TreefarmError] = ConfigError, also: str = ""
) -> None:
    """``value`` is one of the names ``options`` (``also`` says what else the caller
    accepts and has already ruled out, e.g. ``" or an Optimizer"``)."""
    if not (isinstance(value, str) and value in options):
        raise error(f"{name} must be one of {list(options)}{also}, but got {format_values(**{name: value})}")


def check_has_methods(
    name: str, value: object, methods: Sequence[str], *, error: type[TreefarmError] = ConfigError
) -> None:
    """``value`` has each of ``methods`` (e.g. an estimator's ``fit``), callable."""
    missing = [m for m in methods if not callable(getattr(value, m, None))]
    if missing:
        raise error(
            f"{name} must be an object with the methods {list(methods)}, but got "
            f"{format_values(**{name: value})} (without {missing})"
        )


def check_int(
    name: str,
    value: object,
    minimum: int = 1,
    *,
    error: type[TreefarmError] = ConfigError,
    or_none: bool = False,
    owner: str = "",
    maximum: int | None = None,
    why: str = "",
) -> None:
    """``value`` is an int (not a bool) of at least ``minimum`` (and at most ``maximum``;
    ``why`` says why in the message), or None when ``or_none``; ``owner`` (e.g. ``"Var"``)
    opens the message when the name alone would be ambiguous."""
    if (or_none and value is None) or (
        is_integer(value) and value >= minimum and (maximum is None or value <= maximum)
    ):
        return
    subject = f"{owner} {name}" if owner else name
    bounds = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
    expected = f"an integer {bounds}" + (" or None" if or_none else "") + (f" ({why})" if why else "")
    raise error(f"{subject} must be {expected}, but got {format_values(**{name: value})}")


def check_integral(
    name: str, value: object, minimum: int = 1, *, error: type[TreefarmError] = ConfigError
) -> int:
    """``value`` as an int when it is an integer of at least ``minimum``, a NumPy
    integer too (a step or a count computed with NumPy), but not a bool."""
    if not (is_integral(value) and int(value) >= minimum):
        raise error(f"{name} must be an integer >= {minimum}, but got {format_values(**{name: value})}")
    return int(value)


def check_positive(name: str, value: object, *, error: type[TreefarmError] = ConfigError) -> None:
    """``value`` is a Python number > 0 (an int or a float, not a bool)."""
    if not (isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0):
        raise error(f"{name} must be a number > 0, but got {format_values(**{name: value})}")


def check_nonnegative(
    name: str, value: object, *, error: type[TreefarmError] = ConfigError, finite: bool = False
) -> None:
    """``value`` is a Python number >= 0 (an int or a float, not a bool; NaN is refused),
    and not infinite when ``finite``."""
    if not (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and value >= 0
        and (not finite or math.isfinite(value))
    ):
        expected = "a finite number >= 0" if finite else "a number >= 0"
        raise error(f"{name} must be {expected}, but got {format_values(**{name: value})}")


def check_range(
    name: str, value: object, low: float, high: float, *, error: type[TreefarmError] = ConfigError
) -> None:
    """``value`` is a Python number in ``[low, high]`` (an int or a float, not a bool)."""
    if not (isinstance(value, (int, float)) and not isinstance(value, bool) and low <= value <= high):
        raise error(f"{name} must lie in [{low:g}, {high:g}], but got {format_values(**{name: value})}")


def check_study_name(name: object, *, error: type[TreefarmError] = StudyError) -> str:
    """``name`` is a study name: a str of 1 to :data:`STUDY_NAME_MAX` characters, not
    blank, without control characters (a name is shown in terminals and logs, and is
    a folder of the artifact store through :func:`treefarm.study.state.names.path_segment`)."""
    rule = (
        f"a study name must be a string of 1 to {STUDY_NAME_MAX} characters, not blank, "
        f"without {REFUSED_IN_NAMES}"
    )
    if not isinstance(name, str):
        raise error(f"{rule}, but got {format_values(name=name)} (a {type(name).__name__})")
    if not name.strip() or len(name) > STUDY_NAME_MAX:
        shown = name if len(name) <= 80 else f"{name[:40]}...{name[-10:]}"
        raise error(f"{rule}, but got {format_values(name=shown)} ({len(name)} characters)")
    bad = sorted({c for c in name if ord(c) < 32 or ord(c) == 127})
    if bad:
        raise error(f"{rule}, but got {format_values(name=name)} (it holds {', '.join(f'U+{ord(c):04X}' for c in bad)})")
    return name
