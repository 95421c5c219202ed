"""Optimizers: stateless functions from the history to the next configurations."""

from .anneal import Anneal
from .auto import Auto
from .base import History, Observation, Optimizer
from .gp import GP
from .grammar import GrammarSearch
from .nsga2 import NSGA2
from .random import RandomSearch
from .registry import available, make_optimizer
from .tpe import TPE

__all__ = [
    "GP",
    "NSGA2",
    "TPE",
    "Anneal",
    "Auto",
    "GrammarSearch",
    "History",
    "Observation",
    "Optimizer",
    "RandomSearch",
    "available",
    "make_optimizer",
]
