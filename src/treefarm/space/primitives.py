"""The primitives of the search-space language: each makes one decision.

- :class:`Real` — an interval of the reals, optionally on a log scale;
- :class:`Int` — an interval of the integers, optionally on a log scale;
- :class:`Choice` — a categorical over plain values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..exceptions import SpaceError, format_values
from ..validation import check_bool
from .nodes import Space, check_not_set, check_weights
from .priors import Normal, Prior, Uniform

__all__ = ["Choice", "Int", "Real"]

Scalar = None | bool | int | float | str
_JSON_SCALARS = (type(None), bool, int, float, str)
_FLOAT_MAX = 1.7976931348623157e308
INT_MAX = 2**53
"""The largest bound of an :class:`Int`: every integer up to it is exact as a float."""


def _plain(value: Any) -> Any:
    """A NumPy scalar (``np.float64(0.1)``, ``np.str_("relu")``) as the Python value
    it holds, so that it survives a JSON round trip as itself; other values as given."""
    item = getattr(value, "item", None)
    if callable(item) and type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        return item()
    return value


def _check_bounds(cls: str, low: float, high: float, log: bool) -> None:
    if not (math.isfinite(low) and math.isfinite(high)):
        raise SpaceError(f"{cls} bounds must be finite, but got " + format_values(low=low, high=high))
    if not math.isfinite(high - low):
        raise SpaceError(f"{cls}: high - low must be a finite number, but got " + format_values(low=low, high=high))
    if not low < high:
        raise SpaceError(f"{cls}: low < high must hold, but got " + format_values(low=low, high=high))
    if log and low <= 0:
        raise SpaceError(f"{cls} with log=True needs low > 0, but got " + format_values(low=low, log=log))


def _check_number(cls: str, name: str, value: object, kind: type) -> None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if ok and isinstance(value, int) and abs(value) > _FLOAT_MAX:
        raise SpaceError(f"{cls}: {name} must fit in a float, but got {name}={value!r:.80}")
    if ok and kind is int and abs(value) > INT_MAX:  # type: ignore[arg-type]
        raise SpaceError(
            f"{cls}: {name} must lie in [-2**53, 2**53] (the optimizers count integers in floats, "
            f"exact up to 2**53), but got {name}={value!r:.80}"
        )
    if kind is int:
        ok = ok and float(value).is_integer()  # type: ignore[arg-type]
    if not ok:
        expected = "an integer" if kind is int else "a number"
        raise SpaceError(f"{cls}: {name} must be {expected}, but got {name}={value!r}")


class _Numeric(Space):
    """Shared behaviour of :class:`Real` and :class:`Int`."""

    __slots__ = ("high", "log", "low", "prior")
    low: float
    high: float
    log: bool
    prior: Prior

    def _init(self, low: Any, high: Any, log: bool, prior: Prior | None, cast: type) -> None:
        """Validate and set the bounds, scale and prior (errors name the class)."""
        kind = type(self).__name__
        check_bool("log", log, error=SpaceError, owner=kind)
        low, high = _plain(low), _plain(high)
        _check_number(kind, "low", low, cast)
        _check_number(kind, "high", high, cast)
        _check_bounds(kind, float(low), float(high), log)
        object.__setattr__(self, "low", cast(low))
        object.__setattr__(self, "high", cast(high))
        object.__setattr__(self, "log", bool(log))
        if prior is not None and not isinstance(prior, (Uniform, Normal)):
            raise SpaceError(
                f"{type(self).__name__}: prior must be Uniform() or Normal(mu, sigma), "
                f"but got prior={prior!r}"
            )
        object.__setattr__(self, "prior", prior if prior is not None else Uniform())

    def scale_bounds(self) -> tuple[float, float]:
        """Bounds on the sampling scale (the logarithm for log primitives)."""
        if self.log:
            return math.log(self.low), math.log(self.high)
        return float(self.low), float(self.high)

    def _suffix(self) -> str:
        prior = "" if isinstance(self.prior, Uniform) else f", prior={self.prior!r}"
        return (":log" if self.log else "") + prior


class Real(_Numeric):
    """The reals in ``[low, high]``; ``log=True`` searches the logarithm uniformly.

    Thesis sugar: ``R[-10:10]``, ``R[1e-5:1e-1:"log"]``.
    """

    __slots__ = ()

    def __init__(self, low: float, high: float, *, log: bool = False, prior: Prior | None = None) -> None:
        self._init(low, high, log, prior, float)

    def __repr__(self) -> str:
        suffix = self._suffix()
        if suffix.startswith(":log") or not suffix:
            return f"R[{self.low:g}:{self.high:g}{suffix}]"
        return f"Real({self.low:g}, {self.high:g}{suffix})"


class Int(_Numeric):
    """The integers ``low, low + 1, ..., high`` (both included); ``log=True`` for
    ranges spanning orders of magnitude (sampled log-uniformly, then rounded).

    Thesis-style sugar: ``I[1:10]``, ``I[16:1024:"log"]``.
    """

    __slots__ = ()
    low: int
    high: int

    def __init__(self, low: int, high: int, *, log: bool = False, prior: Prior | None = None) -> None:
        self._init(low, high, log, prior, int)

    def scale_bounds(self) -> tuple[float, float]:
        """Bounds on the sampling scale, widened by half a step so that rounding a
        uniform draw gives every integer its fair share."""
        if self.log:
            return math.log(self.low - 0.5), math.log(self.high + 0.5)
        return self.low - 0.5, self.high + 0.5

    @property
    def size(self) -> int:
        """Number of integers in the range."""
        return self.high - self.low + 1

    def __repr__(self) -> str:
        suffix = self._suffix()
        if suffix.startswith(":log") or not suffix:
            return f"I[{self.low}:{self.high}{suffix}]"
        return f"Int({self.low}, {self.high}{suffix})"


class Choice(Space):
    """A categorical over plain values: ``Choice("relu", "tanh", weights=[3, 1])``.

    The decision recorded in a configuration is the value itself when every
    value is a JSON scalar (str, int, float, bool, None), else the value's
    index; ``build`` always returns the value, never the index.
    """

    __slots__ = ("by_index", "values", "weights")
    values: tuple[Any, ...]
    weights: tuple[float, ...] | None
    by_index: bool

    def __init__(self, *values: Any, weights: Sequence[float] | None = None) -> None:
        if not values:
            raise SpaceError("Choice needs at least one value, but got values=()")
        values = tuple(_plain(v) for v in values)
        for value in values:
            check_not_set(value)
        if any(isinstance(v, float) and math.isnan(v) for v in values):
            raise SpaceError(f"Choice values must equal themselves (NaN does not), but got values={values!r}")
        keys = [(type(v), v) if isinstance(v, _JSON_SCALARS) else ("id", id(v)) for v in values]
        if len(set(keys)) != len(keys):
            dup = next(v for i, v in enumerate(values) if keys[i] in keys[:i])
            raise SpaceError(f"Choice values must be distinct, but got a repeated value={dup!r}")
        object.__setattr__(self, "values", tuple(values))
        object.__setattr__(self, "weights", check_weights("Choice", weights, len(values)))
        object.__setattr__(self, "by_index", not all(isinstance(v, _JSON_SCALARS) for v in values))

    def decisions(self) -> tuple[Scalar, ...]:
        """What a configuration may record for this choice, in option order."""
        if self.by_index:
            return tuple(range(len(self.values)))
        return self.values

    def index_of(self, decision: object) -> int | None:
        """Index of a recorded decision, or None if it is not one (type-exact: ``True != 1``)."""
        for i, d in enumerate(self.decisions()):
            if type(d) is type(decision) and d == decision:
                return i
        return None

    def __repr__(self) -> str:
        w = "" if self.weights is None else f", weights={list(self.weights)!r}"
        return f"Choice({', '.join(map(repr, self.values))}{w})"
