"""treefarm: optimize expensive black-box functions over structured search spaces.

Importing it loads NumPy and the pure-Python layers only; SciPy and
SQLAlchemy are imported when an optimizer or a SQL storage first needs them.
"""

from .exceptions import ConfigError, SpaceError, StorageError, StudyError, TreefarmError, TrialStateError
from .optimizers import GP, TPE, Anneal, Auto, History, Observation, Optimizer, RandomSearch
from .space import (
    Args,
    Choice,
    Config,
    Const,
    Family,
    I,
    Int,
    Join,
    Normal,
    R,
    Real,
    Shared,
    Space,
    Uniform,
    Var,
    build,
    convert,
    enumerate_configs,
    op,
    sample,
    size,
    validate,
)
from .storage import InMemoryStorage, Storage, StudyRecord, TrialRecord, TrialState, open_storage
from .study import Result, Study, Trial, minimize

__version__ = "0.1.0"

__all__ = [
    "GP",
    "TPE",
    "Anneal",
    "Args",
    "Auto",
    "Choice",
    "Config",
    "ConfigError",
    "Const",
    "Family",
    "History",
    "I",
    "InMemoryStorage",
    "Int",
    "Join",
    "Normal",
    "Observation",
    "Optimizer",
    "R",
    "RandomSearch",
    "Real",
    "Result",
    "Shared",
    "Space",
    "SpaceError",
    "Storage",
    "StorageError",
    "Study",
    "StudyError",
    "StudyRecord",
    "TreefarmError",
    "Trial",
    "TrialRecord",
    "TrialState",
    "TrialStateError",
    "Uniform",
    "Var",
    "__version__",
    "build",
    "convert",
    "enumerate_configs",
    "minimize",
    "op",
    "open_storage",
    "sample",
    "size",
    "validate",
]
