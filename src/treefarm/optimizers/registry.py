"""Optimizers by name, for ``algo="..."`` in the study, ``minimize`` and the CLI.

Each entry is imported only when asked for, so naming the GP optimizer does
not import SciPy's optimizers for a user of random search.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

from ..exceptions import StudyError
from .base import Optimizer

__all__ = ["available", "from_spec", "make_optimizer", "spec_of"]

_REGISTRY: dict[str, tuple[str, str]] = {
    "anneal": ("treefarm.optimizers.anneal", "Anneal"),
    "auto": ("treefarm.optimizers.auto", "Auto"),
    "cmaes": ("treefarm.optimizers.cmaes", "CMAES"),
    "gp": ("treefarm.optimizers.gp", "GP"),
    "grammar": ("treefarm.optimizers.grammar", "GrammarSearch"),
    "grid": ("treefarm.optimizers.grid", "Grid"),
    "nsga2": ("treefarm.optimizers.nsga2", "NSGA2"),
    "qmc": ("treefarm.optimizers.qmc", "QMC"),
    "random": ("treefarm.optimizers.random", "RandomSearch"),
    "tpe": ("treefarm.optimizers.tpe", "TPE"),
}

#: Options added after a release, with the value that rebuilds a spec stored before them as it
#: was: a study created then and reopened without ``algo`` goes on as it started.
_LATER_OPTIONS: dict[str, dict[str, Any]] = {
    "tpe": {"rank_weights": 0.0, "always_joint": 0},
    "auto": {"fidelity": None, "agreement_floor": 0.3},
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


def spec_of(optimizer: Optimizer) -> dict[str, Any]:
    """What a study stores of its optimizer: ``{"algo": name, "options": {...}}``.

    The options are the constructor's arguments (optimizers store them as
    public attributes); an option that is itself an optimizer is stored as
    ``{"optimizer": its spec}``. ``"exact"`` is False when the optimizer is not a
    registered class or an option is not JSON (a function, say): the study
    then cannot rebuild it alone and asks for it when reopened.
    """
    name = next(
        (
            n
            for n, (m, c) in _REGISTRY.items()
            if type(optimizer).__name__ == c and type(optimizer).__module__ == m
        ),
        None,
    )
    options: dict[str, Any] = {}
    exact = name is not None
    for key, value in vars(optimizer).items():
        if key.startswith("_"):
            continue
        if isinstance(value, Optimizer):  # a composite's part (auto's GP and TPE)
            inner = spec_of(value)
            options[key] = {"optimizer": inner}
            exact = exact and inner["exact"]
            continue
        try:
            json.dumps(value, allow_nan=False)
            options[key] = value
        except (TypeError, ValueError):
            options[key] = repr(value)
            exact = False
    return {"algo": name or type(optimizer).__qualname__, "options": options, "exact": exact}


def from_spec(spec: dict[str, Any]) -> Optimizer:
    """The optimizer a stored :func:`spec_of` describes; StudyError if it cannot be rebuilt.
    An option the spec does not name because it came later takes the value that
    behaves as before it (``_LATER_OPTIONS``), not today's default."""
    if not spec.get("exact", False):
        raise StudyError(
            "the stored optimizer must be rebuildable from its settings (pass algo= to reopen the study), "
            f"but got stored_algo={spec.get('algo')!r}, options={spec.get('options')!r}"
        )
    options = {
        key: from_spec(value["optimizer"]) if isinstance(value, dict) and set(value) == {"optimizer"} else value
        for key, value in spec["options"].items()
    }
    return make_optimizer(spec["algo"], **(_LATER_OPTIONS.get(spec["algo"], {}) | options))
