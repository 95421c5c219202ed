"""Simple stopping rules on a trial's own curve: a threshold, and patience.

They need no other trial, so they also serve a single run; both stop on a
reported NaN.
"""

from __future__ import annotations

import math

from ..exceptions import StudyError
from ..validation import check_integral, check_nonnegative, is_number
from .base import Curves, Pruner, loss_curve

__all__ = ["PatiencePruner", "ThresholdPruner"]


def _optional_float(name: str, value: float | None, *, stops_all: float) -> float | None:
    """``value`` as a float (NumPy numbers too); an error naming it for a non-number,
    NaN, or ``stops_all``, the bound that every value leaves (every trial stopped)."""
    if value is None:
        return None
    if not is_number(value):
        raise StudyError(f"{name} must be a number or None, but got {name}={value!r}")
    try:
        number = float(value)
    except OverflowError:
        raise StudyError(f"{name} must be a float, but got {name}={value!r}, beyond the float range") from None
    if math.isnan(number):
        raise StudyError(f"{name} must be a number or None, but got {name}={value!r}")
    if number == stops_all:
        raise StudyError(f"{name}={value!r} would stop every trial at its first report: give a finite bound or None")
    return number


class ThresholdPruner(Pruner):
    """Stop a trial whose reported value leaves ``[lower, upper]`` (in the objective's own units).

    ``n_warmup_steps``: never stop before that step (a NaN stops at once).
    """

    def __init__(
        self, *, lower: float | None = None, upper: float | None = None, n_warmup_steps: int = 0
    ) -> None:
        self.lower = _optional_float("lower", lower, stops_all=math.inf)
        self.upper = _optional_float("upper", upper, stops_all=-math.inf)
        if self.lower is None and self.upper is None:
            raise StudyError(
                "at least one of lower and upper must be given, but got (lower=None, upper=None)"
            )
        if self.lower is not None and self.upper is not None and self.lower > self.upper:
            raise StudyError(f"lower <= upper must hold, but got (lower={lower!r}, upper={upper!r})")
        self.n_warmup_steps = check_integral("n_warmup_steps", n_warmup_steps, 0, error=StudyError)

    def prune(self, curves: Curves) -> bool:
        step = curves.step
        if step is None:
            return False
        value = curves.curve[step]
        if math.isnan(value):
            return True
        if step < self.n_warmup_steps:
            return False
        return (self.lower is not None and value < self.lower) or (
            self.upper is not None and value > self.upper
        )


class PatiencePruner(Pruner):
    """Stop a trial whose best loss has not improved by more than ``min_delta`` in its last
    ``patience`` reports: with losses ``l_1..l_m`` (by step) and ``m > patience``, stop when
    ``min(l_{m-patience+1..m}) >= min(l_{1..m-patience}) - min_delta`` (a flat
    curve has not improved, so it stops).

    Early stopping as in Prechelt 1998, "Early Stopping - But When?"; Optuna's
    ``PatientPruner`` without a wrapped pruner, except that Optuna keeps a curve
    that only equals its old best (its test is strict).
    """

    def __init__(self, patience: int, *, min_delta: float = 0.0) -> None:
        self.patience = check_integral("patience", patience, 1, error=StudyError)
        check_nonnegative("min_delta", min_delta, error=StudyError)
        self.min_delta = float(min_delta)

    def prune(self, curves: Curves) -> bool:
        step = curves.step
        if step is None:
            return False
        if math.isnan(curves.curve[step]):
            return True
        _, losses = loss_curve(curves)
        if len(losses) <= self.patience:
            return False
        cut = len(losses) - self.patience
        return bool(losses[cut:].min() >= losses[:cut].min() - self.min_delta)
