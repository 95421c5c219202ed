"""Optimizers: stateless functions from the history to the next configurations.

Each optimizer's module is imported when its class is first named
(``treefarm.optimizers.GP``) or built by name (:func:`make_optimizer`), by the
import paths of :mod:`treefarm.optimizers.registry` (PEP 562's module
``__getattr__``): ``import treefarm`` loads no optimizer and no model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import GridExhaustedError, History, Observation, Optimizer
from .registry import available, lazy_classes, make_optimizer, optimizer_class

if TYPE_CHECKING:
    from .anneal import Anneal
    from .auto import Auto
    from .cmaes import CMAES
    from .gp import GP
    from .grammar import GrammarSearch
    from .grid import Grid
    from .nsga2 import NSGA2
    from .qmc import QMC
    from .random import RandomSearch
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
    "optimizer_class",
]


__getattr__, __dir__ = lazy_classes(globals(), __all__)  # optimizer classes imported on first use
