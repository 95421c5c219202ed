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
from typing import TypeGuard

from .exceptions import ConfigError, TreefarmError, format_values

__all__ = [
    "check_bool",
    "check_callable",
    "check_int",
    "check_integral",
    "check_nonnegative",
    "check_positive",
    "check_range",
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
    name: str, value: object, *, error: type[TreefarmError] = ConfigError, or_none: bool = False
) -> None:
    """``value`` is ``True`` or ``False``, or None when ``or_none``."""
    if not isinstance(value, bool) and not (or_none and value is None):
        expected = "True, False or None" if or_none else "True or False"
        raise error(f"{name} must be {expected}, but got {format_values(**{name: value})}")


def check_callable(
    name: str, value: object, *, error: type[TreefarmError] = ConfigError, or_none: bool = False
) -> None:
    """``value`` can be called, or is None when ``or_none``."""
    if not callable(value) and not (or_none and value is None):
        expected = "callable or None" if or_none else "callable"
        raise error(f"{name} must be {expected}, but got {format_values(**{name: value})}")


def check_int(
    name: str,
    value: object,
    minimum: int = 1,
    *,
    error: type[TreefarmError] = ConfigError,
    or_none: bool = False,
    owner: str = "",
) -> None:
    """``value`` is an int (not a bool) of at least ``minimum``, or None when ``or_none``;
    ``owner`` (e.g. ``"Var"``) opens the message when the name alone would be ambiguous."""
    if (or_none and value is None) or (is_integer(value) and value >= minimum):
        return
    subject = f"{owner} {name}" if owner else name
    expected = f"an integer >= {minimum}" + (" or None" if or_none else "")
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
