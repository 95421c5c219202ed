"""The pruner contract: a decision from a trial's stored learning curve and the earlier trials'.

Notation: a *curve* maps a step (an epoch, a number of iterations, a fold)
to the value reported at it; a *loss* is a value turned so that lower is
better (negated when the study maximizes). Trial ``t`` is judged at its last
reported step against the curves of trials numbered below ``t`` only, so its
decision is a function of stored values and trial numbers: any process that
reads the same storage decides the same, and trials started later never
change an earlier trial's fate. (An earlier trial still running that has not
reached the step yet is not counted; with trials run one after another every
earlier trial is finished, so a sequential run is exactly reproducible.)
"""

from __future__ import annotations

import abc
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..objectives import Objectives

__all__ = ["Curves", "Pruner", "loss_curve"]

Curve = Mapping[int, float]


@dataclass(frozen=True)
class Curves:
    """What a pruner sees when trial ``number`` asks whether to stop.

    ``curve`` is the trial's reported values; ``earlier`` maps each trial
    numbered below it that reported anything to its curve; values are as the
    objective reported them (``objectives`` says which way is better). With
    several objectives, ``vectors`` maps trial numbers (the trial's own too) to
    the vectors they reported, step by step.
    """

    number: int
    curve: Curve
    earlier: Mapping[int, Curve]
    objectives: Objectives = field(default_factory=Objectives.single)
    vectors: Mapping[int, Mapping[int, tuple[float, ...]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        later = [n for n in self.earlier if n >= self.number]
        if later:
            object.__setattr__(self, "earlier", {n: c for n, c in self.earlier.items() if n < self.number})
            object.__setattr__(self, "vectors", {n: v for n, v in self.vectors.items() if n <= self.number})

    @property
    def several(self) -> bool:
        """Whether the study has several objectives, so rungs compare vectors."""
        return self.objectives.several

    @property
    def maximize(self) -> bool:
        """Whether the (first) objective is maximized."""
        return self.objectives.maximizes(0)

    def loss_vector(self, number: int, step: int) -> np.ndarray | None:
        """Trial ``number``'s losses at ``step`` (maximized objectives negated, NaN
        as the worst), or None if it reported no vector there."""
        vector = self.vectors.get(number, {}).get(step)
        if vector is None or len(vector) != len(self.objectives):
            return None
        losses = self.objectives.losses(vector)
        return np.where(np.isnan(losses), np.inf, losses)

    @property
    def step(self) -> int | None:
        """The last step the trial reported (None before any report)."""
        return max(self.curve) if self.curve else None

    def loss(self, value: float) -> float:
        """``value`` as a loss (lower is better); NaN counts as the worst loss."""
        if math.isnan(value):
            return math.inf
        return self.objectives.sign(0) * value

    def losses_at(self, step: int) -> np.ndarray:
        """The earlier trials' losses at exactly ``step``, shape (n_reported,)."""
        return np.array([self.loss(c[step]) for c in self.earlier.values() if step in c], dtype=float)


def loss_curve(curves: Curves) -> tuple[np.ndarray, np.ndarray]:
    """The trial's steps (ascending) and losses at them, both shape (n_reports,)."""
    steps = np.array(sorted(curves.curve), dtype=int)
    return steps, np.array([curves.loss(curves.curve[int(s)]) for s in steps], dtype=float)




class Pruner(abc.ABC):
    """Decides whether a running trial should stop; see the module docstring.

    Call order, from the study: after the objective ``report``s a value,
    ``trial.should_prune()`` calls :meth:`prune` with the trial's curve and
    the earlier trials' curves read from storage. :meth:`budget` is the most
    resource (epochs, iterations) the trial may use, which a fidelity-aware
    objective reads as ``trial.budget``; ``None`` leaves it to the objective.
    Pruners hold only their settings: no state between calls.
    """

    @abc.abstractmethod
    def prune(self, curves: Curves) -> bool:
        """Whether the trial should stop now."""

    def budget(self, number: int) -> int | None:
        """The most resource trial ``number`` may use (None: no limit from the pruner)."""
        return None

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({params})"
