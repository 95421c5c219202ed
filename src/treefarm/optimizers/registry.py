"""Optimizers by name, for ``algo="..."`` in the study, ``minimize`` and the CLI.

Each entry is imported only when asked for, so naming the GP optimizer does
not import SciPy's optimizers for a user of random search.
"""

from __future__ import annotations

import importlib
import inspect
import json
import sys
from collections.abc import Callable
from typing import Any

from ..exceptions import StudyError
from .base import Optimizer, variant

__all__ = ["available", "class_named", "from_spec", "make_optimizer", "optimizer_class", "recursive_algos", "spec_of"]

#: The most general first: the order in which the refusal of a recursive space names
#: those that search it (:func:`recursive_algos`).
_REGISTRY: dict[str, tuple[str, str]] = {
    "auto": ("treefarm.optimizers.auto", "Auto"),
    "grammar": ("treefarm.optimizers.grammar", "GrammarSearch"),
    "tpe": ("treefarm.optimizers.tpe", "TPE"),
    "gp": ("treefarm.optimizers.gp", "GP"),
    "anneal": ("treefarm.optimizers.anneal", "Anneal"),
    "nsga2": ("treefarm.optimizers.nsga2", "NSGA2"),
    "random": ("treefarm.optimizers.random", "RandomSearch"),
    "cmaes": ("treefarm.optimizers.cmaes", "CMAES"),
    "qmc": ("treefarm.optimizers.qmc", "QMC"),
    "grid": ("treefarm.optimizers.grid", "Grid"),
}

#: Options added after a release, with the value that rebuilds a spec stored before them as it
#: was: a study created then and reopened without ``algo`` goes on as it started.
_LATER_OPTIONS: dict[str, dict[str, Any]] = {
    "tpe": {"rank_weights": 0.0, "always_joint": 0},
    "auto": {"fidelity": None, "agreement_floor": 0.3, "trust_after": None, "promotions": "asha", "binary_scale": None},
    "gp": {"ehvi_exact": 2, "choice_scales": "option", "trust_after": None, "two_option_scale": 1.0},
}
#: Option values stored by earlier releases that are spelled otherwise now, with the settings
#: they stand for: ``GP(objectives="ehvi3")`` is ``objectives="ehvi"`` at the tuned ``ehvi_exact=3``.
_RESPELLED: dict[tuple[str, str, Any], dict[str, Any]] = {
    ("gp", "objectives", "ehvi3"): {"objectives": "ehvi", "ehvi_exact": 3},
}


def available() -> list[str]:
    """The registered optimizer names."""
    return sorted(_REGISTRY)


def optimizer_class(algo: str) -> type[Optimizer]:
    """The class registered as ``algo``, its module imported now."""
    if algo not in _REGISTRY:
        raise StudyError(f"algo must be one of {available()}, but got algo={algo!r}")
    module, name = _REGISTRY[algo]
    cls: type[Optimizer] = getattr(importlib.import_module(module), name)
    return cls


def class_named(name: str) -> type[Optimizer] | None:
    """The registered class called ``name`` (``"GP"``), imported now; None if none is."""
    algo = next((algo for algo, (_, cls) in _REGISTRY.items() if cls == name), None)
    return None if algo is None else optimizer_class(algo)


def lazy_classes(namespace: dict[str, Any], names: list[str]) -> tuple[Callable[[str], type[Optimizer]], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__`` (PEP 562) that import a registered
    optimizer class on first use and keep it in ``namespace`` (the package's globals)."""

    def getattr_(name: str) -> type[Optimizer]:
        cls = class_named(name)
        if cls is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        namespace[name] = cls
        return cls

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(names))

    return getattr_, dir_


def recursive_algos() -> list[str]:
    """The registered names whose class searches a recursive space
    (:attr:`Optimizer.searches_recursive`), in the registry's order; imports every optimizer."""
    return [algo for algo in _REGISTRY if optimizer_class(algo).searches_recursive]


def make_optimizer(algo: str | Optimizer, **options: Any) -> Optimizer:
    """The optimizer named ``algo`` built with ``options``, or ``algo`` itself."""
    if isinstance(algo, Optimizer):
        if options:
            raise StudyError(f"options are only taken with an optimizer name, but got options={options!r}")
        return algo
    return optimizer_class(algo)(**options)


def spec_of(optimizer: Optimizer) -> dict[str, Any]:
    """What a study stores of its optimizer: ``{"algo": name, "options": {...}}``.

    The options are the constructor's arguments (optimizers store them as
    public attributes) and the tuned settings (:attr:`Optimizer.tuned`), side by
    side as earlier releases stored both; an option that is itself an optimizer is stored as
    ``{"optimizer": its spec}``. ``"exact"`` is False when the optimizer is not a
    registered class or an option is not JSON (a function, say): the study
    then cannot rebuild it alone and asks for it when reopened.
    """
    name = _registered_name(type(optimizer))
    options: dict[str, Any] = {}
    exact = name is not None
    settings = {k: v for k, v in vars(optimizer).items() if not k.startswith("_")} | optimizer.tuned_settings()
    for key, value in settings.items():
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


def _registered_name(cls: type) -> str | None:
    """The name ``cls`` is registered under, if any: the class its import path names
    (which may re-export it from a submodule, as ``treefarm.optimizers.tpe`` does).
    Only modules already imported are looked at: an instance's class is loaded, and
    so is the package that exports it."""
    for name, (module, attribute) in _REGISTRY.items():
        loaded = sys.modules.get(module)
        if loaded is not None and getattr(loaded, attribute, None) is cls:
            return name
    return None


def from_spec(spec: dict[str, Any]) -> Optimizer:
    """The optimizer a stored :func:`spec_of` describes; StudyError if it cannot be rebuilt.
    An option the spec does not name because it came later takes the value that
    behaves as before it (``_LATER_OPTIONS``), not today's default; a stored setting that
    is no longer a constructor option is restored as a tuned setting (:func:`~.base.variant`),
    a value spelled otherwise now as what it stands for (``_RESPELLED``), so the study goes
    on as it ran; a setting this release does not have at all is refused by name."""
    if not spec.get("exact", False):
        raise StudyError(
            "the stored optimizer must be rebuildable from its settings (pass algo= to reopen the study), "
            f"but got stored_algo={spec.get('algo')!r}, options={spec.get('options')!r}"
        )
    algo = spec["algo"]
    stored = {
        key: from_spec(value["optimizer"]) if isinstance(value, dict) and set(value) == {"optimizer"} else value
        for key, value in spec["options"].items()
    }
    settings = _LATER_OPTIONS.get(algo, {}) | stored
    for (respelled_algo, key, old), new in _RESPELLED.items():
        if respelled_algo == algo and key in settings and settings[key] == old:
            settings |= new
    cls = optimizer_class(algo)
    accepted = set(inspect.signature(cls).parameters)
    unknown = sorted(set(settings) - accepted - set(cls.tuned))
    if unknown:
        raise StudyError(
            f"the stored optimizer's settings must be ones {cls.__name__} has (pass algo= to reopen the study "
            f"with another optimizer), but got stored_algo={algo!r}, "
            + ", ".join(f"{key}={settings[key]!r}" for key in unknown)
        )
    tuned = {key: value for key, value in settings.items() if key not in accepted}
    return variant(cls, tuned, **{key: value for key, value in settings.items() if key in accepted})
