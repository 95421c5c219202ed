"""A study's objectives: one direction per objective, optional names, and the
one sign convention every layer compares values by.

Notation: ``m`` objectives; a trial's *values* are what the objective returned,
in the user's own units; its *losses* are ``sign * value`` with ``sign = +1``
for a minimized objective and ``-1`` for a maximized one, so that a lower loss
is always better. Values are what every reading of a study shows; losses are
only ever used to compare (Optuna's ``StudyDirection`` plays the same part).

An :class:`Objectives` is built once at the boundary, from the arguments a user
gives (:meth:`Objectives.parse`: ``direction="maximize"``, ``directions=["minimize",
"maximize"]`` or ``directions={"error": "minimize", "size": "minimize"}``), or
from what a storage kept; everything above compares through it and never reads
the direction strings itself. The rule for the arguments: ``direction`` (one
objective) or ``directions`` (one per objective), never both.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .exceptions import ConfigError, TreefarmError, format_values
from .pareto import nondominated_mask

__all__ = ["DIRECTIONS", "MAXIMIZE", "MINIMIZE", "Objectives"]

MINIMIZE = "minimize"
MAXIMIZE = "maximize"
DIRECTIONS = (MINIMIZE, MAXIMIZE)
"""The two directions an objective may have."""


def _check_direction(given: object, error: type[TreefarmError], **named: object) -> str:
    if not isinstance(given, str) or given not in DIRECTIONS:
        raise error(f"a direction must be one of {list(DIRECTIONS)}, but got {format_values(**named)}")
    return given


def _check_names(names: Sequence[object], m: int, error: type[TreefarmError]) -> tuple[str, ...]:
    if len(names) != m:
        raise error(f"names must hold one name per objective ({m}), but got {format_values(names=list(names))}")
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            raise error(f"each objective's name must be a non-empty string, but got names[{i}]={name!r}")
    if len(set(names)) != m:
        raise error(f"the objectives' names must differ, but got {format_values(names=list(names))}")
    return tuple(str(n) for n in names)


def _from_directions(directions: object, error: type[TreefarmError]) -> Objectives:
    """``directions`` as a list (unnamed objectives) or a mapping name -> direction."""
    if isinstance(directions, Mapping) and directions:
        names = _check_names(list(directions), len(directions), error)
        checked = [_check_direction(d, error, **{f"directions[{n!r}]": d}) for n, d in directions.items()]
        return Objectives(tuple(checked), names)
    if isinstance(directions, str) or not isinstance(directions, (Sequence, Mapping)) or not directions:
        raise error(
            f"directions must be a non-empty list of {list(DIRECTIONS)} or a mapping of names to them, "
            f"but got {format_values(directions=directions)}"
        )
    checked = [
        _check_direction(d, error, **{f"directions[{i}]": d, "directions": list(directions)})
        for i, d in enumerate(directions)
    ]
    return Objectives(tuple(checked))


@dataclass(frozen=True)
class Objectives:
    """The directions of a study's objectives, in order, and their names (None
    when the user gave none). Immutable and validated on construction."""

    directions: tuple[str, ...]
    names: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.directions, tuple) or not self.directions:
            raise ConfigError(f"directions must be a non-empty tuple, but got {format_values(directions=self.directions)}")
        for i, d in enumerate(self.directions):
            _check_direction(d, ConfigError, **{f"directions[{i}]": d})
        if self.names is not None:
            _check_names(self.names, len(self.directions), ConfigError)

    # ------------------------------------------------------------- building
    @classmethod
    def parse(
        cls, direction: object = None, directions: object = None, *, error: type[TreefarmError] = ConfigError
    ) -> Objectives | None:
        """The objectives a user asked for, or None when neither argument is given.

        ``direction`` names the one objective's direction; ``directions`` is a
        list (one per objective), a mapping of names to directions, or an
        :class:`Objectives`. Giving both is refused (one rule everywhere, so a
        study and a storage never disagree on what a call means); every refusal
        is an ``error`` naming the bad argument."""
        if direction is not None and directions is not None:
            raise error(
                "give direction (one objective) or directions (one per objective), not both, but got "
                f"{format_values(direction=direction, directions=directions)}"
            )
        if direction is not None:
            return cls((_check_direction(direction, error, direction=direction),))
        if directions is None:
            return None
        if isinstance(directions, Objectives):
            return directions
        return _from_directions(directions, error)

    @classmethod
    def of_maximized(cls, maximized: Sequence[bool]) -> Objectives:
        """Unnamed objectives from whether each is maximized (another library's direction
        flags: Optuna's ``StudyDirection``, Ray Tune's ``mode="max"``)."""
        return cls(tuple(MAXIMIZE if m else MINIMIZE for m in maximized))

    @classmethod
    def single(cls, direction: str = MINIMIZE) -> Objectives:
        """One unnamed objective (the default of a study: minimized)."""
        return cls((direction,))

    # ------------------------------------------------------------- reading
    def __len__(self) -> int:
        return len(self.directions)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        """``(label, direction)`` per objective."""
        return iter(zip(self.labels, self.directions))

    @property
    def several(self) -> bool:
        """Whether there is more than one objective (a front, not a best)."""
        return len(self.directions) > 1

    @property
    def labels(self) -> tuple[str, ...]:
        """What a user reads above each objective's values: its name, else
        ``"value"`` for one objective and ``"value 0"``, ``"value 1"``... for several."""
        if self.names is not None:
            return self.names
        if not self.several:
            return ("value",)
        return tuple(f"value {i}" for i in range(len(self.directions)))

    def label(self, i: int = 0) -> str:
        return self.labels[i]

    def pick(self, i: int) -> Objectives:
        """Objective ``i`` alone (its name kept)."""
        return Objectives((self.directions[i],), None if self.names is None else (self.names[i],))

    def maximizes(self, i: int = 0) -> bool:
        """Whether objective ``i`` is maximized."""
        return self.directions[i] == MAXIMIZE

    def describe(self) -> str:
        """One line for a person: ``"error (minimize), size (maximize)"``, or
        ``"minimize"`` for one unnamed objective."""
        if self.names is None and not self.several:
            return self.directions[0]
        return ", ".join(f"{label} ({d})" for label, d in self)

    @property
    def argument(self) -> list[str] | dict[str, str]:
        """The objectives as a user writes ``directions``: a list, or a mapping
        of names to directions (for messages and reprs)."""
        if self.names is None:
            return list(self.directions)
        return dict(zip(self.names, self.directions))

    def as_json(self) -> dict[str, object]:
        """The objectives as JSON can hold them (the form the dashboard serves)."""
        return {"directions": list(self.directions), "names": list(self.labels), "named": self.names is not None}

    # ------------------------------------------------------------- comparing
    @property
    def signs(self) -> np.ndarray:
        """``+1`` per minimized objective, ``-1`` per maximized one, shape (m,)."""
        return np.array([-1.0 if d == MAXIMIZE else 1.0 for d in self.directions])

    def sign(self, i: int = 0) -> float:
        """The sign of objective ``i``: its loss is ``sign * value``."""
        return -1.0 if self.maximizes(i) else 1.0

    def losses(self, values: object) -> np.ndarray:
        """Values of shape (n, m) (or (m,)) as losses to minimize, same shape."""
        return np.asarray(values, dtype=float) * self.signs

    def better(self, a: float, b: float, i: int = 0) -> bool:
        """Whether value ``a`` is strictly better than ``b`` on objective ``i``."""
        return self.sign(i) * a < self.sign(i) * b

    def best(self, values: Sequence[float] | np.ndarray, i: int = 0) -> float:
        """The best of ``values`` of objective ``i`` (NaN ignored; NaN when none is a number)."""
        finite = np.asarray(values, dtype=float)
        finite = finite[~np.isnan(finite)]
        if finite.size == 0:
            return float("nan")
        return float(finite.max() if self.maximizes(i) else finite.min())

    def best_index(self, values: Sequence[float] | np.ndarray, i: int = 0) -> int | None:
        """The position of the best of ``values`` of objective ``i`` (the first
        of ties), or None when none is a number."""
        losses = self.sign(i) * np.asarray(values, dtype=float)
        if losses.size == 0 or np.all(np.isnan(losses)):
            return None
        return int(np.nanargmin(losses))

    def running_best(self, values: Sequence[float] | np.ndarray, i: int = 0) -> np.ndarray:
        """The best value so far at each position (a convergence curve), shape (n,)."""
        losses = self.sign(i) * np.asarray(values, dtype=float)
        return self.sign(i) * np.fmin.accumulate(losses) if losses.size else losses

    def front(self, values: object) -> np.ndarray:
        """Which rows of values (n, m) no other row Pareto-dominates, a bool mask
        of shape (n,) (rows holding NaN are never on it)."""
        V = np.asarray(values, dtype=float).reshape(-1, len(self.directions))
        ok = np.all(np.isfinite(V), axis=1)
        mask = np.zeros(len(V), dtype=bool)
        if ok.any():
            mask[np.flatnonzero(ok)] = nondominated_mask(self.losses(V[ok]))
        return mask
