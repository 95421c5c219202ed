"""Optimizers by name, for ``algo="..."`` in the study, ``minimize`` and the CLI.

Each entry is imported only when asked for, so naming the GP optimizer does
not import SciPy's optimizers for a user of random search.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..exceptions import StudyError
from .base import Optimizer

__all__ = ["available", "make_optimizer"]

_REGISTRY: dict[str, tuple[str, str]] = {
    "anneal": ("treefarm.optimizers.anneal", "Anneal"),
    "auto": ("treefarm.optimizers.auto", "Auto"),
    "gp": ("treefarm.optimizers.gp", "GP"),
    "random": ("treefarm.optimizers.random", "RandomSearch"),
    "tpe": ("treefarm.optimizers.tpe", "TPE"),
}


def available() -> list[str]:
    """The registered optimizer names."""
    return sorted(_REGISTRY)


def make_optimizer(algo: str | Optimizer, **options: Any) -> Optimizer:
    """The optimizer named ``algo`` built with ``options``, or ``algo`` itself."""
    if isinstance(algo, Optimizer):
        if options:
            raise StudyError(f"options are only taken with an optimizer name, but got options={options!r}")
        return algo
    if algo not in _REGISTRY:
        raise StudyError(f"algo must be one of {available()}, but got algo={algo!r}")
    module, name = _REGISTRY[algo]
    cls = getattr(importlib.import_module(module), name)
    return cls(**options)
