"""Acquisition functions: how promising a point is under the model (higher is better)."""

from .analytic import ei, lcb, log_ei, log_pi, mes, pi, ucb_beta
from .functions import NAMES, Acquisition, make_acquisition, sample_min_values
from .weighted import LOG_ACQUISITIONS, WEIGHTABLE, PriorWeighted

__all__ = [
    "LOG_ACQUISITIONS",
    "NAMES",
    "WEIGHTABLE",
    "Acquisition",
    "PriorWeighted",
    "ei",
    "lcb",
    "log_ei",
    "log_pi",
    "make_acquisition",
    "mes",
    "pi",
    "sample_min_values",
    "ucb_beta",
]
