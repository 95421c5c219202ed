"""Ask/tell studies over a storage, the optimize loop, and ``minimize``."""

from .minimize import DEFAULT_STORAGE, Result, minimize
from .study import Callback, Study
from .tell.folds import aggregate, aggregate_variance, bias_variance, evaluate_folds, mean_plus_std
from .tell.trial import Trial

__all__ = [
    "DEFAULT_STORAGE",
    "Callback",
    "Result",
    "Study",
    "Trial",
    "aggregate",
    "aggregate_variance",
    "bias_variance",
    "evaluate_folds",
    "mean_plus_std",
    "minimize",
]
