"""A fidelity parameter: the objective evaluated small (a data subset, fewer samples,
a coarser mesh, fewer boosting rounds) at a cost that grows with the fidelity.

Notation: a fidelity ``f`` lies in ``[low, high]``; ``high`` is the full
evaluation whose value the study optimizes. The rungs are the fidelities of
successive halving with reduction factor ``eta`` (Jamieson & Talwalkar,
"Non-stochastic Best Arm Identification and Hyperparameter Optimization", 2016;
Li et al., "A System for Massively Parallel Hyperparameter Tuning", 2020):
``r_k = high * eta**(k - K)`` for ``k = 0..K``, ``K = floor(log_eta(high / low))``,
so the top rung is ``high`` and the lowest is at least ``low``.

The cost of an evaluation at ``f`` is ``cost(f)``: by default ``f`` itself (a
number of rows, of samples, of rounds), else the declared function (for a
fraction of the data whose training time grows as its square:
``cost=lambda f: f**2``). A study's ``max_cost`` is in the same units.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .exceptions import StudyError
from .validation import check_bool, check_int, is_number

__all__ = ["FIDELITY", "Fidelity", "recorded_fidelity", "stored_full_fidelity"]

FIDELITY = "fidelity"
"""The system attribute holding the fidelity a trial was evaluated at."""


def recorded_fidelity(system_attrs: Mapping[str, Any]) -> float | None:
    """The fidelity a trial's system attributes record it was evaluated at (None: none
    recorded, the full evaluation of a study without a declared fidelity)."""
    value = system_attrs.get(FIDELITY)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def stored_full_fidelity(study_attrs: Mapping[str, Any]) -> float | None:
    """The full fidelity (``high``) of the fidelity a study's attributes store, None
    for a study without one."""
    stored = study_attrs.get(FIDELITY)
    return recorded_fidelity({FIDELITY: stored.get("high")}) if isinstance(stored, Mapping) else None

CostFunction = Callable[[float], float]


@dataclass(frozen=True)
class Fidelity:
    """The fidelity an objective takes as an argument (``trial.fidelity``), between
    ``low`` and ``high`` (the full evaluation); see the module docstring.

    ``integer`` rounds the rungs to whole numbers (rounds, samples);
    ``reduction_factor`` is successive halving's ``eta``: each rung keeps the
    best ``1 / eta`` of its evaluations for the next. Set ``cost`` when an
    evaluation's cost is not proportional to its fidelity.
    """

    low: float
    high: float
    integer: bool = False
    reduction_factor: int = 3
    cost: CostFunction | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        for name in ("low", "high"):
            value = getattr(self, name)
            if not is_number(value) or not math.isfinite(value) or value <= 0:
                raise StudyError(f"a fidelity's {name} must be a finite number > 0, but got {name}={value!r}")
        if self.low >= self.high:
            raise StudyError(f"a fidelity needs low < high, but got (low={self.low!r}, high={self.high!r})")
        check_bool("integer", self.integer, error=StudyError)
        check_int("reduction_factor", self.reduction_factor, 2, error=StudyError)
        if self.cost is not None and not callable(self.cost):
            raise StudyError(f"a fidelity's cost must be a function of the fidelity, but got cost={self.cost!r}")
        if self.integer and (self.low != int(self.low) or self.high != int(self.high)):
            raise StudyError(
                f"an integer fidelity needs whole bounds, but got (low={self.low!r}, high={self.high!r})"
            )

    def check_rungs(self) -> None:
        """Refuse a fidelity of one rung, on which every trial would run at the full fidelity
        (checked when a study is made with it, not when a stored one is read back)."""
        if len(self.rungs) < 2:
            eta = self.reduction_factor
            raise StudyError(
                f"a fidelity needs two rungs or more (high * {eta}**-k down to low), but got (low={self.low!r}, "
                f"high={self.high!r}, reduction_factor={eta}), whose one rung is {self.rungs[0]:g}: every trial "
                f"would run at the full fidelity. Make low at most high / {eta}, or the reduction_factor smaller"
            )

    @property
    def rungs(self) -> tuple[float, ...]:
        """The fidelities of successive halving, lowest first, the last one ``high``."""
        eta = self.reduction_factor
        top = math.floor(math.log(self.high / self.low) / math.log(eta) + 1e-9)
        values = [self.high * float(eta) ** (k - top) for k in range(top + 1)]
        if self.integer:
            values = [float(max(self.low, round(v))) for v in values]
        return tuple(dict.fromkeys(max(self.low, v) for v in values))

    def cost_of(self, fidelity: float) -> float:
        """What one evaluation at ``fidelity`` (within ``[low, high]``) costs: a finite number
        > 0 (an evaluation that costs nothing would never spend a ``max_cost``), else
        StudyError naming it."""
        fidelity = self.check(fidelity)
        cost = fidelity if self.cost is None else self.cost(fidelity)
        if not is_number(cost) or not math.isfinite(cost) or cost <= 0:
            raise StudyError(
                f"a fidelity's cost must be a finite number > 0, but got cost={cost!r} at fidelity={fidelity!r}"
            )
        return float(cost)

    def check(self, fidelity: object) -> float:
        """``fidelity`` as a float within ``[low, high]``, else StudyError naming it."""
        if not is_number(fidelity) or not self.low <= float(fidelity) <= self.high:
            raise StudyError(
                f"a fidelity must be a number within [{self.low}, {self.high}], but got fidelity={fidelity!r}"
            )
        return float(fidelity)

    def to_json(self) -> dict[str, Any]:
        """What a study stores (the cost function is not stored: pass it when reopening)."""
        return {
            "low": self.low,
            "high": self.high,
            "integer": self.integer,
            "reduction_factor": self.reduction_factor,
            "declared_cost": self.cost is not None,
        }

    @classmethod
    def from_json(cls, stored: dict[str, Any], cost: CostFunction | None = None) -> Fidelity:
        """The fidelity a study stored, with ``cost`` given again."""
        return cls(stored["low"], stored["high"], stored["integer"], stored["reduction_factor"], cost)
