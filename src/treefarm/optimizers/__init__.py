"""Optimizers: stateless functions from the history to the next configurations."""

from .anneal import Anneal
from .auto import Auto
from .base import History, Observation, Optimizer
from .cmaes import CMAES
from .gp import GP
from .grammar import GrammarSearch
from .grid import Grid, GridExhaustedError
from .nsga2 import NSGA2
from .qmc import QMC
from .random import RandomSearch
from .registry import available, make_optimizer
from .tpe import TPE

__all__ = [
    "CMAES",
    "GP",
    "NSGA2",
    "QMC",
    "TPE",
    "Anneal",
    "Auto",
    "GrammarSearch",
    "Grid",
    "GridExhaustedError",
    "History",
    "Observation",
    "Optimizer",
    "RandomSearch",
    "available",
    "make_optimizer",
]
