"""treefarm: optimize expensive black-box functions over structured search spaces.

The space language is imported eagerly (it is light); the study, storage and
optimizers are loaded on first use, so ``import treefarm`` stays fast.
"""

from .exceptions import ConfigError, SpaceError, StorageError, StudyError, TreefarmError, TrialStateError
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

__version__ = "0.1.0"

__all__ = [
    "Args",
    "Choice",
    "Config",
    "ConfigError",
    "Const",
    "Family",
    "I",
    "Int",
    "Join",
    "Normal",
    "R",
    "Real",
    "Shared",
    "Space",
    "SpaceError",
    "StorageError",
    "StudyError",
    "TreefarmError",
    "TrialStateError",
    "Uniform",
    "Var",
    "__version__",
    "build",
    "convert",
    "enumerate_configs",
    "op",
    "sample",
    "size",
    "validate",
]
