"""Grid search: every point of a finite space once, in a seeded shuffled order.

The grid is every configuration of the space: each integer of an
:class:`~treefarm.space.Int`, each value of a :class:`~treefarm.space.Choice`,
each option of a :class:`~treefarm.space.Join` with the grid of the branch it
leads to, and, given ``resolution=k``, ``k`` evenly spaced values of each
:class:`~treefarm.space.Real` on its scale (the logarithm for ``log=True``),
both bounds included. A space with a real and no ``resolution`` is refused.

The points are numbered (a mixed-radix number over the decisions, a sum over
the options of a join) and visited in the order of a seeded permutation of the
numbers: a four-round Feistel network over the next power of four with cycle
walking (Black & Rogaway 2002, "Ciphers with arbitrary finite domains"), so
the ``i``-th point of the order is computed alone, without listing the grid.
The next suggestion is the first point of the order not in the history
(complete, failed or pending): a resumed study and every worker reading one
storage continue the same order, and two workers suggesting at one instant
are kept apart by the study (the second is given the first's point as
pending and takes the next). The permutation's key is the study seed
(:mod:`treefarm.optimizers.seeds`), so a study's order is its own.

When every point is in the history the grid is done: :class:`GridExhaustedError`
(a :class:`~treefarm.exceptions.StudyError`) says so, and the study fails the
trial it had claimed with that reason and stops, rather than evaluating a
point again. Give the study a budget of at most the grid's size
(:meth:`Grid.size`) to end without it.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np

from ..exceptions import SpaceError
from ..space import (
    Apply,
    Choice,
    Config,
    Const,
    Family,
    Int,
    Join,
    Op,
    Real,
    Space,
    convert,
    validate,
)
from ..space.config import ROOT_ADDRESS, Scalar, child_address
from ..validation import check_int
from .base import GridExhaustedError, History, Optimizer
from .scope import refuse_recursive
from .seeds import design_seed

__all__ = ["Grid", "GridExhaustedError", "grid_points", "grid_values"]

#: Rounds of the Feistel permutation; four make a pseudo-random permutation (Luby & Rackoff 1988).
ROUNDS = 4


def grid_values(node: Real | Int | Choice, resolution: int | None, address: str) -> tuple[Scalar, ...]:
    """The values a decision takes on the grid (see the module docstring)."""
    if isinstance(node, Choice):
        return node.decisions()
    if isinstance(node, Int):
        return tuple(range(node.low, node.high + 1))
    if resolution is None:
        raise SpaceError(
            f"a grid needs every number to be discrete: give Grid(resolution=k) for the real {address}={node!r}, "
            "but got resolution=None"
        )
    lo, hi = node.scale_bounds()
    t = np.linspace(lo, hi, resolution)
    values = [float(min(max(v, node.low), node.high)) for v in (np.exp(t) if node.log else t)]
    values[0], values[-1] = node.low, node.high  # the bounds exactly, not exp(log(bound))
    return tuple(values)


class _Lattice:
    """The numbering of a non-recursive space's grid: ``count(node)`` points
    below a node, ``decode(k)`` the decisions of point ``k``."""

    def __init__(self, space: Space, resolution: int | None) -> None:
        self.space = space
        self.root = convert(space)
        refuse_recursive(self.root, "grid", "a finite space")
        self.resolution = resolution
        self._counts: dict[int, int] = {}
        self._values: dict[int, tuple[Scalar, ...]] = {}
        self.size = self.count(self.root, "")

    def config(self, k: int) -> Config:
        """Point ``k`` of the grid, a configuration of the space."""
        decisions: dict[str, Scalar] = {}
        self.decode(self.root, "", k, decisions)
        return validate(self.space, decisions)

    def count(self, node: Space, address: str) -> int:
        key = id(node)
        if key not in self._counts:
            self._counts[key] = self._count(node, address)
        return self._counts[key]

    def _count(self, node: Space, address: str) -> int:
        if isinstance(node, (Real, Int, Choice)):
            self._values[id(node)] = grid_values(node, self.resolution, address or ROOT_ADDRESS)
            return len(self._values[id(node)])
        if isinstance(node, Join):
            return sum(
                self.count(o, child_address(address, label)) for label, o in zip(node.labels, node.options)
            )
        if isinstance(node, Family):
            return math.prod(self.count(m, child_address(address, key)) for key, m in node.members())
        if isinstance(node, Apply):
            return self.count(node.args, address)
        if isinstance(node, (Const, Op)):
            return 1
        raise SpaceError(
            f"a grid is defined on joins, families, numbers and choices only, but got {address}={node!r}"
        )

    def decode(self, node: Space, address: str, k: int, out: dict[str, Scalar]) -> None:
        """Write point ``k`` (``0 <= k < count(node)``) of ``node``'s grid into ``out``."""
        if isinstance(node, (Real, Int, Choice)):
            out[address or ROOT_ADDRESS] = self._values[id(node)][k]
        elif isinstance(node, Join):
            for label, option in zip(node.labels, node.options):
                below = self._counts[id(option)]
                if k < below:
                    if len(node.options) > 1:
                        out[address or ROOT_ADDRESS] = label
                    self.decode(option, child_address(address, label), k, out)
                    return
                k -= below
        elif isinstance(node, Family):
            for key, member in node.members():
                k, digit = divmod(k, self._counts[id(member)])
                self.decode(member, child_address(address, key), digit, out)
        elif isinstance(node, Apply):
            self.decode(node.args, address, k, out)


def permute(i: int, n: int, key: int) -> int:
    """The image of ``i`` under a keyed permutation of ``range(n)`` (module docstring)."""
    half = max(1, ((n - 1).bit_length() + 1) // 2)
    mask = (1 << half) - 1
    x = i
    while True:
        left, right = x >> half, x & mask
        for r in range(ROUNDS):
            left, right = right, left ^ (_round(key, r, right) & mask)
        x = (left << half) | right
        if x < n:
            return x


def _round(key: int, r: int, value: int) -> int:
    text = f"{key}:{r}:{value}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


class Grid(Optimizer):
    """Every point of a finite space once (see the module docstring). The study's hints do
    not move its points (``hint_draws = False``): a hint's window draw would leave the grid.

    Parameters
    ----------
    resolution:
        Values per real parameter (``>= 2``, both bounds included, on the
        real's scale); ``None`` refuses a space with a real.
    """

    hint_draws = False

    def __init__(self, *, resolution: int | None = None) -> None:
        if resolution is not None:
            check_int("resolution", resolution, minimum=2)
        self.resolution = resolution
        self._lattice: tuple[Space, _Lattice] | None = None

    def size(self, space: Space) -> int:
        """The number of points of ``space``'s grid."""
        return self._lattice_of(space).size

    def _lattice_of(self, space: Space) -> _Lattice:
        """The numbering of ``space``'s grid (kept for the last space seen: it only saves time)."""
        if self._lattice is None or self._lattice[0] is not space:
            self._lattice = (space, _Lattice(space, self.resolution))
        return self._lattice[1]

    def point(self, space: Space, i: int, key: int) -> Config:
        """The ``i``-th point of the grid's order under permutation ``key``."""
        lattice = self._lattice_of(space)
        return lattice.config(permute(i, lattice.size, key))

    def exhausted(self, space: Space, history: History) -> bool:
        """Whether every point of the grid is evaluated, failed or running."""
        lattice = self._lattice_of(space)
        seen = history.seen()
        if len(seen) < lattice.size:
            return False
        return all(lattice.config(k) in seen for k in range(lattice.size))

    def suggest(self, space: Space, history: History, n: int, rng: np.random.Generator) -> list[Config]:
        lattice = self._lattice_of(space)
        key = design_seed(rng, "grid")
        seen = history.seen()
        out: list[Config] = []
        i = 0
        while len(out) < n:
            if i >= lattice.size:
                raise GridExhaustedError(
                    f"every point of the grid must be suggested at most once, but got all size={lattice.size} "
                    f"points in the history and n={n - len(out)} more asked"
                )
            config = self.point(space, i, key)
            if config not in seen:
                seen.add(config)
                out.append(config)
            i += 1
        return out


def grid_points(space: Space, resolution: int | None = None) -> list[Config]:
    """Every point of ``space``'s grid, in the order of its numbering (small grids, tests)."""
    lattice = _Lattice(space, resolution)
    return [lattice.config(k) for k in range(lattice.size)]
