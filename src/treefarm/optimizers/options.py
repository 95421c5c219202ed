"""Validation of optimizer options at construction: the error names the option and its value."""

from __future__ import annotations

from ..exceptions import ConfigError

__all__ = ["check_bool", "check_int", "check_positive", "check_range"]


def check_bool(name: str, value: object) -> None:
    """``value`` is ``True`` or ``False`` (a string such as ``"no"`` would read as true)."""
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be True or False, but got {name}={value!r}")


def check_int(name: str, value: object, minimum: int = 1) -> None:
    """``value`` is an integer (not a bool) of at least ``minimum``."""
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise ConfigError(f"{name} must be an integer >= {minimum}, but got {name}={value!r}")


def check_positive(name: str, value: object) -> None:
    """``value`` is a number > 0."""
    if not (isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0):
        raise ConfigError(f"{name} must be a number > 0, but got {name}={value!r}")


def check_range(name: str, value: object, low: float, high: float) -> None:
    """``value`` is a number in ``[low, high]``."""
    if not (isinstance(value, (int, float)) and not isinstance(value, bool) and low <= value <= high):
        raise ConfigError(f"{name} must lie in [{low:g}, {high:g}], but got {name}={value!r}")
