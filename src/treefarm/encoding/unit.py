"""The unit-cube encoding of a non-recursive (flat or conditional) space.

Notation (shapes):
    n   configurations, d columns
    X   (n, d) encoded configurations, active entries in [0, 1]
    A   (n, d) bool, True where the column's address is active in the config

Columns, one per decision of :func:`treefarm.space.addresses`:

- a real: ``(t - lo) / (hi - lo)`` with ``t`` the value on its sampling scale
  (the logarithm for ``log=True``);
- an integer: the same on the value (log scale for ``log=True``); a linear
  integer range of ``k`` values is marked with ``k`` levels so a kernel can
  round inside (Garrido-Merchán & Hernández-Lobato 2020), a log range is
  left continuous and rounded when decoded;
- a choice or a join of ``m > 1`` options: a one-hot group of ``m`` columns.

A column whose address is inactive in a configuration (a branch not taken)
holds :data:`INACTIVE` and is False in the mask. Decoding walks the space and
reads only the columns of the branches it takes, so any vector in the cube
decodes to a valid configuration (argmax within one-hot groups, rounding for
integers, clipping for reals).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import SpaceError
from ..space import Choice, Config, Int, Join, Real, Space, addresses, convert, trace, walk
from ..space.config import Decision, Scalar

__all__ = ["INACTIVE", "Column", "UnitEncoding", "numeric_unit", "numeric_value"]

#: The value imputed in inactive columns: outside [0, 1], so that an inactive
#: column is far from every active value in a stationary kernel's distance.
INACTIVE = -0.5


@dataclass(frozen=True)
class Column:
    """One encoded column: the address it encodes, its node, and for one-hot
    columns the option index it stands for."""

    address: str
    node: Decision
    option: int | None = None


def numeric_unit(node: Real | Int, value: float) -> float:
    """The position of ``value`` in [0, 1] on the node's scale (log for ``log=True``)."""
    lo, hi = _unit_bounds(node)
    t = math.log(value) if node.log else float(value)
    return (t - lo) / (hi - lo)


def _unit_bounds(node: Real | Int) -> tuple[float, float]:
    """The scale values at 0 and 1: a real's bounds on its sampling scale; an
    integer's own bounds (not :meth:`Int.scale_bounds`, which widens them by
    half a step for sampling)."""
    if isinstance(node, Real):
        return node.scale_bounds()
    return (math.log(node.low), math.log(node.high)) if node.log else (float(node.low), float(node.high))


def numeric_value(node: Real | Int, u: float) -> float | int:
    """The value at unit position ``u`` (clipped to [0, 1]; integers rounded)."""
    u = min(max(u, 0.0), 1.0)
    lo, hi = _unit_bounds(node)
    t = lo + u * (hi - lo)
    x = math.exp(t) if node.log else t
    if isinstance(node, Int):
        return int(min(max(round(x), node.low), node.high))
    return min(max(x, node.low), node.high)


class UnitEncoding:
    """Encode/decode the configurations of a space (see the module docstring).

    By default the columns are every address of a non-recursive space. For a
    recursive space, :meth:`for_configs` takes the addresses that a set of
    configurations actually uses (a derivation-tree feature space: each
    address is a position in the tree, and two trees are compared position
    by position, with activity masks where one has a node the other lacks).
    """

    def __init__(self, space: Any, decisions: Sequence[tuple[str, Decision]] | None = None) -> None:
        self.space: Space = convert(space)
        columns: list[Column] = []
        self.start: dict[str, int] = {}
        #: The node of every address, including choices of one value (which have no column).
        self.nodes: dict[str, Decision] = {}
        for address, node in addresses(self.space) if decisions is None else decisions:
            self.start[address] = len(columns)
            self.nodes[address] = node
            if isinstance(node, (Real, Int)):
                columns.append(Column(address, node))
            elif isinstance(node, Choice) and len(node.values) > 1:
                columns.extend(Column(address, node, i) for i in range(len(node.values)))
            elif isinstance(node, Join):
                columns.extend(Column(address, node, i) for i in range(len(node.options)))
        self.columns: tuple[Column, ...] = tuple(columns)
        #: An address without a column is an error (static encodings) or ignored (from configs).
        self.strict = decisions is None
        #: Every address is active in every configuration (no join): encoding and
        #: decoding many configurations then work column by column on arrays.
        self.flat = self.strict and not any(isinstance(c.node, Join) for c in columns)

    @classmethod
    def for_configs(cls, space: Any, configs: Sequence[Config]) -> UnitEncoding:
        """The encoding whose columns are the addresses the given configurations use."""
        seen: dict[str, Decision] = {}
        for config in configs:
            for address, node in trace(space, config):
                seen.setdefault(address, node)
        return cls(space, list(seen.items()))

    @property
    def dim(self) -> int:
        return len(self.columns)

    def integer_levels(self) -> np.ndarray:
        """(d,) number of equally spaced levels of each integer column, 0 elsewhere."""
        return np.array(
            [c.node.size if isinstance(c.node, Int) and not c.node.log else 0 for c in self.columns],
            dtype=int,
        )

    def categorical_groups(self) -> list[np.ndarray]:
        """The column indices of each one-hot group."""
        groups: dict[str, list[int]] = {}
        for j, c in enumerate(self.columns):
            if c.option is not None:
                groups.setdefault(c.address, []).append(j)
        return [np.array(g, dtype=int) for g in groups.values()]

    def continuous(self) -> np.ndarray:
        """(d,) True for columns a continuous optimizer may move freely (reals, log integers)."""
        levels = self.integer_levels()
        return np.array([c.option is None for c in self.columns]) & (levels == 0)

    def encode(self, configs: Sequence[Config]) -> tuple[np.ndarray, np.ndarray]:
        """``(X, A)`` for ``configs``: (n, d) values and (n, d) activity mask."""
        if self.flat and all(config.keys() == self.start.keys() for config in configs):
            return self._encode_flat(configs)
        X = np.full((len(configs), self.dim), INACTIVE)
        A = np.zeros((len(configs), self.dim), dtype=bool)
        for i, config in enumerate(configs):
            for address, value in config.items():
                if address in self.start:
                    self._encode_one(X[i], A[i], address, value)
                elif self.strict:
                    raise SpaceError(
                        f"the config has an address the encoding does not know: {address}={value!r}"
                    )
        return X, A

    def _encode_one(self, x: np.ndarray, a: np.ndarray, address: str, value: Scalar) -> None:
        node, j = self.nodes[address], self.start[address]
        if isinstance(node, Choice) and len(node.values) == 1:
            return
        if isinstance(node, (Real, Int)):
            x[j], a[j] = numeric_unit(node, float(value)), True  # type: ignore[arg-type]
            return
        index = node.index_of(value)
        width = len(node.values) if isinstance(node, Choice) else len(node.options)
        x[j : j + width] = 0.0
        x[j + (index or 0)] = 1.0
        a[j : j + width] = True

    def _encode_flat(self, configs: Sequence[Config]) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`encode` column by column, for a flat space's complete configurations."""
        X = np.zeros((len(configs), self.dim))
        for address, j in self.start.items():
            node = self.nodes[address]
            if isinstance(node, Choice) and len(node.values) == 1:
                continue
            values = [config[address] for config in configs]
            if isinstance(node, (Real, Int)):
                lo, hi = _unit_bounds(node)
                t = np.array(values, dtype=float)
                X[:, j] = ((np.log(t) if node.log else t) - lo) / (hi - lo)
            else:
                index = [node.index_of(v) or 0 for v in values]
                X[np.arange(len(configs)), j + np.array(index, dtype=int)] = 1.0
        return X, np.ones(X.shape, dtype=bool)

    def decode_many(self, X: np.ndarray) -> list[Config]:
        """:meth:`decode` of each row of ``X`` (n, d); column by column on arrays for a flat space."""
        if not self.flat:
            return [self.decode(x) for x in X]
        columns: dict[str, list[Scalar]] = {}
        for address, j in self.start.items():
            node = self.nodes[address]
            if isinstance(node, (Real, Int)):
                lo, hi = _unit_bounds(node)
                t = lo + np.clip(X[:, j], 0.0, 1.0) * (hi - lo)
                v = np.exp(t) if node.log else t
                if isinstance(node, Int):
                    columns[address] = np.clip(np.round(v), node.low, node.high).astype(int).tolist()
                else:
                    columns[address] = np.clip(v, node.low, node.high).tolist()
            else:
                options = node.decisions()  # type: ignore[union-attr]
                picks = np.argmax(X[:, j : j + len(options)], axis=1) if len(options) > 1 else [0] * len(X)
                columns[address] = [options[int(i)] for i in picks]
        keys = list(columns)
        return [Config.trusted(dict(zip(keys, row))) for row in zip(*columns.values())]

    def decode(self, x: np.ndarray) -> Config:
        """The configuration a vector stands for (only active branches are read)."""

        def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
            if address not in self.start:
                raise SpaceError(f"decoding needs a column for every address it meets, but got {address=}")
            j = self.start[address]
            if isinstance(node, (Real, Int)):
                return numeric_value(node, float(x[j]))
            if isinstance(node, Choice):
                options = node.decisions()
                return options[int(np.argmax(x[j : j + len(options)]))] if len(options) > 1 else options[0]
            scores = x[j : j + len(node.options)]
            return node.labels[max(allowed, key=lambda i: scores[i])]

        return walk(self.space, decide)[0]
