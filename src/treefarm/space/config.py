"""Configurations: the decisions that pick one instance out of a space.

A :class:`Config` maps readable, stable addresses to primitive decisions:

- a keyword member is addressed by its key (``lr``), a positional one by its
  index (``0``), nested members by dotted paths (``model.layers.0``);
- a join records the label of its chosen option at its own address, and the
  option's decisions live under ``address.label`` (``model: "svm"``,
  ``model.svm.C: 1.0``), so a path through a recursion reads like the
  derivation (``G: "add"``, ``G.add.0: "leaf"``, ...);
- a shared sub-space keyed ``w`` lives under ``@w``;
- a decision made at the root of the space itself is addressed ``_``.

Configs are what optimizers and storage see (never the built Python values):
JSON-serializable, immutable, hashable, equal when their decisions are equal.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, KeysView, Mapping
from typing import Any

from ..exceptions import ConfigError, format_values
from .nodes import Join
from .primitives import Choice, Int, Real

__all__ = ["ROOT_ADDRESS", "Config", "Decision", "check_decision", "child_address"]

Scalar = None | bool | int | float | str
Decision = Real | Int | Choice | Join

ROOT_ADDRESS = "_"


def child_address(prefix: str, key: str) -> str:
    """The address of member ``key`` below ``prefix`` ("" is the root)."""
    return f"{prefix}.{key}" if prefix else key


def _native(value: Any) -> Scalar:
    """NumPy scalars become the Python scalars JSON knows; other values pass."""
    item = getattr(value, "item", None)
    if item is not None and not isinstance(value, (str, bytes)) and callable(item):
        value = item()
    return value


class Config(Mapping[str, Scalar]):
    """The decisions of one instance: an immutable ``address -> decision`` mapping."""

    __slots__ = ("_data", "_hash")

    def __init__(self, decisions: Mapping[str, Any] | None = None) -> None:
        data: dict[str, Scalar] = {}
        for key, value in (decisions or {}).items():
            if not isinstance(key, str) or not key:
                raise ConfigError(f"a config address must be a non-empty string, but got address={key!r}")
            value = _native(value)
            if not isinstance(value, (type(None), bool, int, float, str)):
                raise ConfigError(
                    "a config decision must be a JSON scalar (str, int, float, bool, None), "
                    f"but got {key}={value!r}"
                )
            data[key] = value
        self._data = data
        self._hash: int | None = None

    @classmethod
    def trusted(cls, decisions: dict[str, Scalar]) -> Config:
        """A config over a dict of already valid Python scalars, taken without copying."""
        config = cls.__new__(cls)
        config._data = decisions
        config._hash = None
        return config

    def __getitem__(self, key: str) -> Scalar:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def keys(self) -> KeysView[str]:
        """The addresses (a view of the underlying dict: fast set operations)."""
        return self._data.keys()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Config):
            return self._data == other._data and all(
                type(v) is type(other._data[k]) for k, v in self._data.items()
            )
        if isinstance(other, Mapping):
            return self == Config(other)
        return NotImplemented

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset((k, type(v).__name__, v) for k, v in self._data.items()))
        return self._hash

    def __repr__(self) -> str:
        return f"Config({self._data!r})"

    def to_dict(self) -> dict[str, Scalar]:
        """A plain ``dict`` copy."""
        return dict(self._data)

    def to_json(self) -> str:
        """JSON text; floats round-trip exactly."""
        return json.dumps(self._data, allow_nan=False)

    @classmethod
    def from_json(cls, text: str) -> Config:
        """Inverse of :meth:`to_json`."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ConfigError(f"a config in JSON must be an object, but got text={text[:80]!r}")
        return cls(data)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _whole(value: Any) -> bool:
    """Whether a number is an integer within float range (``10**400`` is not: no range holds it)."""
    try:
        return float(value).is_integer()
    except OverflowError:
        return False


def check_decision(address: str, node: Decision, value: object) -> Scalar:
    """Validate one recorded decision against its node; return it normalized
    (floats for reals, ints for integers). Errors name the address and value."""
    value = _native(value)
    if isinstance(node, Real):
        if not _is_number(value) or not math.isfinite(value):  # type: ignore[arg-type]
            raise ConfigError(
                f"{address} must be a finite number for {node!r}, but got {address}={value!r}", address=address
            )
        if not node.low <= value <= node.high:  # type: ignore[operator]
            raise ConfigError(
                f"{address} must lie in [{node.low:g}, {node.high:g}], but got {address}={value!r}",
                address=address,
            )
        return float(value)  # type: ignore[arg-type]
    if isinstance(node, Int):
        if not _is_number(value) or not _whole(value):
            raise ConfigError(
                f"{address} must be an integer for {node!r}, but got {address}={value!r}", address=address
            )
        if not node.low <= value <= node.high:  # type: ignore[operator]
            raise ConfigError(
                f"{address} must lie in [{node.low}, {node.high}], but got {address}={value!r}", address=address
            )
        return int(value)  # type: ignore[arg-type]
    if isinstance(node, Choice):
        if node.index_of(value) is None:
            raise ConfigError(
                f"{address} must be one of {list(node.decisions())!r}, but got {address}={value!r}",
                address=address,
            )
        return value
    if node.index_of(value) is None:
        raise ConfigError(
            f"{address} must be the label of an option, one of {list(node.labels)!r}, "
            f"but got " + format_values(**{address: value}),
            address=address,
        )
    return value
