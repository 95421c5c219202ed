"""What the optimizer sees of a study evaluated at several fidelities, and what comes next.

With a :class:`~treefarm.Fidelity`, each trial is one evaluation at one rung
(its ``"fidelity"`` system attribute). The next trial's rung, and whether it
promotes a configuration already evaluated, is asynchronous successive halving's
choice (:mod:`treefarm.pruners.promotion`); the new configurations are the
optimizer's. An optimizer that models fidelities (``uses_fidelities``) sees every
evaluation with its fidelity; one that does not sees the evaluations of the
highest rung holding at least :data:`MIN_POINTS` of them (the rule of Falkner,
Klein & Hutter, "BOHB: Robust and Efficient Hyperparameter Optimization at
Scale", 2018), else those of the rung holding the most, so that it never ranks a
cheap evaluation against a full one.
"""

from __future__ import annotations

import math
from dataclasses import replace

from ...exceptions import StudyError, format_values
from ...fidelity import FIDELITY, Fidelity
from ...optimizers import History, Optimizer
from ...space import Shared, Space, convert, size
from ...space.recursion import reachable

__all__ = ["CHECKS", "FIDELITY", "MIN_POINTS", "finite_size", "reconcile", "view_for"]

MIN_POINTS = 5
"""Evaluations a rung needs before an optimizer that models one fidelity is fitted on it."""

CHECKS = 5
"""Configurations that check the lower rungs against the top
(:mod:`treefarm.pruners.promotion`), the first of the optimizer's space-filling
start, each evaluated at the lowest rung and the top before anything else. Five in
any dimension: the power of Kendall's tau over them to find rungs that mislead
depends on their number, not on the space's, and each costs a full evaluation."""


def finite_size(space: Space) -> float:
    """How many configurations ``space`` has, ``math.inf`` when it holds a real
    interval or shares a decision (counting those would enumerate them)."""
    root = convert(space)
    if any(isinstance(node, Shared) for node in reachable(root)):
        return math.inf
    return size(root)


def view_for(optimizer: Optimizer, history: History, fidelity: Fidelity, *, misleading: bool = False) -> History:
    """The history ``optimizer`` is given in a study with ``fidelity`` (see the module
    docstring); once the lower rungs are found ``misleading``, the top rung's evaluations
    alone, the configurations evaluated only below it counting as failed (seen, not modelled)."""
    history = replace(history, max_fidelity=fidelity.high, min_fidelity=fidelity.rungs[0])
    if misleading:
        top = tuple(o for o in history.complete if o.fidelity is None or o.fidelity >= fidelity.high)
        reached = {o.config for o in top}
        below = dict.fromkeys(o.config for o in history.complete if o.config not in reached)
        history = replace(history, complete=top, failed=(*history.failed, *below))
    return history if optimizer.uses_fidelities else history.at_one_fidelity(MIN_POINTS)


def reconcile(stored: object, given: Fidelity | None) -> Fidelity | None:
    """The study's fidelity: the one ``given`` (it must match a ``stored`` one: the
    rungs of a study cannot change under its trials), else the stored one rebuilt;
    a stored declared cost must be given again (a function is not stored)."""
    if not isinstance(stored, dict):
        if stored is not None:
            raise StudyError(f"the stored fidelity must be a mapping, but got fidelity={stored!r}")
        return given
    if given is None:
        if stored.get("declared_cost"):
            raise StudyError(
                "this study's fidelity has a declared cost, which is not stored: pass fidelity=Fidelity(..., cost=...) "
                f"again, but got fidelity=None (stored {format_values(fidelity=stored)})"
            )
        return Fidelity.from_json(stored)
    if given.to_json() != stored:
        raise StudyError(
            "the fidelity must be the one the study was created with, "
            f"but got fidelity={given.to_json()!r} (stored {stored!r})"
        )
    return given
