"""treefarm: optimize expensive black-box functions over structured search spaces.

Importing it loads NumPy and the pure-Python layers only: each optimizer's
module (and the models, SciPy with them) is imported when the optimizer is
first named or built (PEP 562's module ``__getattr__``, by the import paths of
:mod:`treefarm.optimizers.registry`), SQLAlchemy when a SQL storage is opened,
and the plots, the dashboard and the integrations when they are imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import logs
from .exceptions import (
    ConfigError,
    SpaceError,
    StorageError,
    StorageFullError,
    StorageUnavailableError,
    StudyError,
    SuggestionError,
    TreefarmError,
    TrialPruned,
    TrialStateError,
)
from .fidelity import Fidelity
from .objectives import Objectives
from .optimizers import History, Observation, Optimizer
from .optimizers.registry import lazy_classes
from .pruners import (
    HyperbandPruner,
    MedianPruner,
    PatiencePruner,
    PercentilePruner,
    Pruner,
    SuccessiveHalvingPruner,
    ThresholdPruner,
)
from .space import (
    Args,
    Choice,
    Chosen,
    Config,
    Const,
    Family,
    I,
    Int,
    Join,
    Loop,
    Normal,
    R,
    Real,
    Shared,
    Space,
    Uniform,
    Var,
    build,
    cell,
    convert,
    enumerate_configs,
    op,
    sample,
    size,
    validate,
)
from .storage import InMemoryStorage, Storage, StudyRecord, TrialRecord, TrialState, open_storage
from .study import Result, Study, Trial, evaluate_folds, minimize

if TYPE_CHECKING:
    from .optimizers import CMAES, GP, NSGA2, QMC, TPE, Anneal, Auto, GrammarSearch, Grid, RandomSearch

__version__ = "0.1.0"

logs.install()

__all__ = [
    "CMAES",
    "GP",
    "NSGA2",
    "QMC",
    "TPE",
    "Anneal",
    "Args",
    "Auto",
    "Choice",
    "Chosen",
    "Config",
    "ConfigError",
    "Const",
    "Family",
    "Fidelity",
    "GrammarSearch",
    "Grid",
    "History",
    "HyperbandPruner",
    "I",
    "InMemoryStorage",
    "Int",
    "Join",
    "Loop",
    "MedianPruner",
    "Normal",
    "Objectives",
    "Observation",
    "Optimizer",
    "PatiencePruner",
    "PercentilePruner",
    "Pruner",
    "R",
    "RandomSearch",
    "Real",
    "Result",
    "Shared",
    "Space",
    "SpaceError",
    "Storage",
    "StorageError",
    "StorageFullError",
    "StorageUnavailableError",
    "Study",
    "StudyError",
    "StudyRecord",
    "SuccessiveHalvingPruner",
    "SuggestionError",
    "ThresholdPruner",
    "TreefarmError",
    "Trial",
    "TrialPruned",
    "TrialRecord",
    "TrialState",
    "TrialStateError",
    "Uniform",
    "Var",
    "__version__",
    "build",
    "cell",
    "convert",
    "enumerate_configs",
    "evaluate_folds",
    "minimize",
    "op",
    "open_storage",
    "sample",
    "size",
    "validate",
]


__getattr__, __dir__ = lazy_classes(globals(), __all__)  # optimizer classes imported on first use
