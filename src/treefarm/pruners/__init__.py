"""Pruners: stop unpromising trials early from their stored intermediate values.

A pruner is a stateless rule over learning curves (see :mod:`.base`):
median/percentile stopping, asynchronous successive halving, Hyperband, a
threshold and patience. A study is given one with
``Study.create(..., pruner=...)``; the objective calls
``trial.report(step, value)`` then ``trial.should_prune()``.
"""

from .base import Curves, Pruner
from .halving import SuccessiveHalvingPruner
from .hyperband import HyperbandPruner
from .median import MedianPruner, PercentilePruner
from .rules import PatiencePruner, ThresholdPruner

__all__ = [
    "Curves",
    "HyperbandPruner",
    "MedianPruner",
    "PatiencePruner",
    "PercentilePruner",
    "Pruner",
    "SuccessiveHalvingPruner",
    "ThresholdPruner",
]
