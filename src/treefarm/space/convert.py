"""Python structures to spaces, and the thesis's interval sugar.

``convert`` turns a list into a positional family (built as a list), a tuple
into a positional family (built as a tuple), a dict into a keyword family
(built as a dict), nested to any depth; spaces stay as they are and every
other value becomes a :class:`Const`. This is the flat dict-of-parameters
style users know, and the thesis's ``convert([R[-10:10], R[-10:10]])``.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import SpaceError
from .nodes import Space, as_space
from .primitives import Int, Real

__all__ = ["I", "R", "convert"]


def convert(value: Any) -> Space:
    """The space a Python structure describes (see the module docstring)."""
    return as_space(value)


def _interval(cls: type[Real] | type[Int], item: object) -> Real | Int:
    if not isinstance(item, slice) or item.start is None or item.stop is None:
        raise SpaceError(
            f"{cls.__name__} sugar takes a slice [low:high] or [low:high:'log'], but got item={item!r}"
        )
    if item.step not in (None, "log"):
        raise SpaceError(f"the third slice field may only be 'log', but got step={item.step!r}")
    return cls(item.start, item.stop, log=item.step == "log")


class _RealSugar:
    """``R[low:high]`` is ``Real(low, high)``; ``R[low:high:"log"]`` a log real."""

    def __getitem__(self, item: slice) -> Real:
        return _interval(Real, item)  # type: ignore[return-value]

    def __repr__(self) -> str:
        return "R"


class _IntSugar:
    """``I[low:high]`` is ``Int(low, high)`` (both ends included); ``I[low:high:"log"]``."""

    def __getitem__(self, item: slice) -> Int:
        return _interval(Int, item)  # type: ignore[return-value]

    def __repr__(self) -> str:
        return "I"


R = _RealSugar()
I = _IntSugar()
