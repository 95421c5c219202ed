"""When ``optimize`` stops: budget, wall clock, target, patience, or a user's call.

Patience is the usual convergence criterion of Bayesian optimization (the
improvements have become minimal): stop when the best value has not improved
over the last ``patience`` completed trials.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from ...exceptions import StudyError
from ...objectives import Objectives

__all__ = ["Stopper"]


def _check_positive(name: str, value: float | None, kind: type) -> None:
    if value is None:
        return
    bad = isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0
    if kind is int:
        bad = bad or not float(value).is_integer()
    if bad or not math.isfinite(value):
        expected = "an integer >= 1" if kind is int else "a number > 0"
        raise StudyError(f"{name} must be {expected} or None, but got {name}={value!r}")


@dataclass
class Stopper:
    """The stopping rules of one ``optimize`` call; ``objectives`` says which value is
    better (the first objective's: ``target`` and ``patience`` take one objective)."""

    n_trials: int | None = None
    timeout: float | None = None
    target: float | None = None
    patience: int | None = None
    objectives: Objectives = field(default_factory=Objectives.single)
    started: float = field(default_factory=time.monotonic)
    done_trials: int = 0
    best: float | None = None
    since_best: int = 0
    stopped: bool = False

    def __post_init__(self) -> None:
        _check_positive("n_trials", self.n_trials, int)
        _check_positive("timeout", self.timeout, float)
        _check_positive("patience", self.patience, int)
        if self.target is not None and not math.isfinite(self.target):
            raise StudyError(f"target must be a finite number or None, but got target={self.target!r}")

    def remaining(self) -> int | None:
        """Trials left in the budget (None: unbounded)."""
        return None if self.n_trials is None else self.n_trials - self.done_trials

    def record(self, value: float | None) -> None:
        """Count a finished trial, with its value if it completed."""
        self.done_trials += 1
        if value is None:
            return
        better = self.best is None or self.objectives.better(value, self.best)
        self.since_best = 0 if better else self.since_best + 1
        if better:
            self.best = value

    def done(self) -> bool:
        """Whether any rule says stop."""
        if self.stopped or (self.remaining() is not None and self.remaining() <= 0):  # type: ignore[operator]
            return True
        return self.why() is not None

    def why(self) -> str | None:
        """Which of the timeout, target and patience rules says stop, and why (None: none
        does; a spent budget is the run's normal end, not a rule stopping it)."""
        elapsed = time.monotonic() - self.started
        if self.timeout is not None and elapsed >= self.timeout:
            return f"timeout: {elapsed:.1f} s elapsed of timeout={self.timeout:g}"
        reached = self.target is not None and self.best is not None and not self.objectives.better(self.target, self.best)
        if reached:  # the best is at least as good as the target
            sign = ">=" if self.objectives.maximizes(0) else "<="
            return f"target reached: best value {self.best!r} {sign} target={self.target!r}"
        if self.patience is not None and self.since_best >= self.patience:
            return (
                f"patience: no better value in the last {self.since_best} completed trials "
                f"(patience={self.patience}, best value {self.best!r})"
            )
        return None
