"""Median (percentile) stopping: stop a trial whose best value so far is worse than most.

Golovin et al. 2017, "Google Vizier", section 3.2.1: stop trial ``t`` at step
``s`` if its best loss up to ``s`` is worse than the median of the other
trials' losses at ``s``. Here "the other trials" are the earlier-numbered
ones that reported step ``s`` (see :mod:`treefarm.pruners.base`), and the
median generalizes to any percentile ``q`` (linear interpolation, as
``numpy.percentile``).
"""

from __future__ import annotations

import math

import numpy as np

from ..exceptions import StudyError
from ..validation import check_integral, check_range
from .base import Curves, Pruner, loss_curve

__all__ = ["MedianPruner", "PercentilePruner"]


class PercentilePruner(Pruner):
    """Stop when the best loss so far is worse than the ``percentile`` of earlier trials at this step.

    ``n_startup_trials``: at least that many earlier trials must have reported
    the step; ``n_warmup_steps``: never stop before that step;
    ``interval_steps``: judge only every that many steps after the warm-up.
    A reported NaN stops the trial.
    """

    def __init__(
        self,
        percentile: float,
        *,
        n_startup_trials: int = 5,
        n_warmup_steps: int = 0,
        interval_steps: int = 1,
    ) -> None:
        check_range("percentile", percentile, 0.0, 100.0, error=StudyError)
        self.percentile = float(percentile)
        self.n_startup_trials = check_integral("n_startup_trials", n_startup_trials, 0, error=StudyError)
        self.n_warmup_steps = check_integral("n_warmup_steps", n_warmup_steps, 0, error=StudyError)
        self.interval_steps = check_integral("interval_steps", interval_steps, 1, error=StudyError)

    def prune(self, curves: Curves) -> bool:
        step = curves.step
        if step is None:
            return False
        if math.isnan(curves.curve[step]):
            return True
        if step < self.n_warmup_steps or (step - self.n_warmup_steps) % self.interval_steps:
            return False
        others = curves.losses_at(step)
        if len(others) < max(self.n_startup_trials, 1):
            return False
        _, losses = loss_curve(curves)
        # NaN losses are +inf; a finite stand-in keeps the interpolation free of inf - inf.
        others = np.minimum(others, np.finfo(float).max)
        return bool(losses.min() > np.percentile(others, self.percentile))


class MedianPruner(PercentilePruner):
    """:class:`PercentilePruner` at the 50th percentile (median stopping)."""

    def __init__(
        self, *, n_startup_trials: int = 5, n_warmup_steps: int = 0, interval_steps: int = 1
    ) -> None:
        super().__init__(
            50.0,
            n_startup_trials=n_startup_trials,
            n_warmup_steps=n_warmup_steps,
            interval_steps=interval_steps,
        )

    def __repr__(self) -> str:
        return (
            f"MedianPruner(n_startup_trials={self.n_startup_trials}, "
            f"n_warmup_steps={self.n_warmup_steps}, interval_steps={self.interval_steps})"
        )
