"""Search hints as optimizers read them: the one room for hints below the study.

A hint is a region a person believes good (or bad), with a credibility.
:mod:`.windows` holds the hint itself, its window over configurations, the
evidence rule that judges it, and :func:`apply_hints`, which the study
passes every suggestion through; :mod:`.pibo` compiles hints against an
encoding into the prior a model-based optimizer weights its acquisition by
(πBO, Hvarfner et al. 2022). The study records and withdraws hints
(:mod:`treefarm.study.hinting`); the acquisition's weighting by any prior is
:class:`treefarm.bo.acquisition.PriorWeighted`.
"""

from .pibo import BETA, HintWindow, hint_log_density, hint_windows, judged_credibility, log_window
from .windows import (
    EVIDENCE,
    FLOOR,
    RECENT,
    REDRAWS,
    Hint,
    apply_hints,
    hint_draw,
    hint_kernel,
    hint_log_prior,
    hint_point,
    hint_reliability,
    hint_tried,
    hint_window,
    window_draws,
)

__all__ = [
    "BETA",
    "EVIDENCE",
    "FLOOR",
    "RECENT",
    "REDRAWS",
    "Hint",
    "HintWindow",
    "apply_hints",
    "hint_draw",
    "hint_kernel",
    "hint_log_density",
    "hint_log_prior",
    "hint_point",
    "hint_reliability",
    "hint_tried",
    "hint_window",
    "hint_windows",
    "judged_credibility",
    "log_window",
    "window_draws",
]
