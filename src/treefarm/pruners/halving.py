"""Asynchronous successive halving (ASHA): keep the best ``1/eta`` of the trials at each rung.

Li et al. 2020, "A System for Massively Parallel Hyperparameter Tuning"
(MLSys), Algorithm 2, in its stopping form. Notation: ``r`` the minimum
resource, ``eta`` the reduction factor, ``s`` the minimum early-stopping
rate; rung ``k`` sits at resource ``r_k = r * eta**(s + k)``. A trial's
value at rung ``k`` is its loss at its first reported step ``>= r_k``. When
trial ``t`` first reaches rung ``k`` it competes with the earlier trials that
reached it: with ``n`` competitors (``t`` included) it goes on if its loss is
among the ``max(1, n // eta)`` lowest (ties go on), else it stops. So the
first trial always goes on and, while fewer than ``2 * eta`` have reached a
rung (``n // eta`` is then at most 1), only a new best does (as Optuna's
``SuccessiveHalvingPruner``). A trial that
reported past rung ``k`` earlier is never judged at ``k`` again.

With several objectives (MO-ASHA, Schmucker, Donini, Zafar, Salinas &
Archambeau 2021) a rung ranks the competitors' loss vectors by
:func:`treefarm.pareto.pareto_order` (non-domination rank, then hypervolume
contribution): the first ``max(1, n // eta)`` go on, and so does any trial
none of them dominates.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

import numpy as np

from ..exceptions import StudyError
from ..pareto import dominates, pareto_order
from ..validation import check_integral
from .base import Curve, Curves, Pruner

__all__ = ["SuccessiveHalvingPruner", "promotable", "promotable_vector", "rung_value", "rungs_reached"]


def rung_resources(min_resource: int, eta: int, rate: int, max_resource: int | None) -> Iterator[int]:
    """The resources of the rungs, ascending, below ``max_resource`` (a trial ends there)."""
    k = 0
    while True:
        resource = min_resource * eta ** (rate + k)
        if max_resource is not None and resource >= max_resource:
            return
        yield resource
        k += 1


def rung_value(curve: Curve, resource: int) -> float | None:
    """The value at the first reported step ``>= resource`` (None if the curve never got there)."""
    steps = [s for s in curve if s >= resource]
    return curve[min(steps)] if steps else None


def rungs_reached(curve: Curve, resources: Iterator[int]) -> list[int]:
    """The rung resources the curve's last report crossed (those its earlier reports had not)."""
    last = max(curve)
    before = max((s for s in curve if s != last), default=-1)
    crossed = []
    for resource in resources:
        if resource > last:
            break
        if resource > before:
            crossed.append(resource)
    return crossed


def promotable(loss: float, competitors: np.ndarray, eta: int) -> bool:
    """Whether ``loss`` is among the ``max(1, n // eta)`` lowest of ``competitors`` (which include it)."""
    keep = max(1, len(competitors) // eta)
    return bool(loss <= np.sort(competitors)[keep - 1])


def _check_resources(
    min_resource: int, reduction_factor: int, max_resource: int | None
) -> tuple[int, int, int | None]:
    """The three as ints (NumPy integers too), each checked; an error names the bad one."""
    low = check_integral("min_resource", min_resource, 1, error=StudyError)
    eta = check_integral("reduction_factor", reduction_factor, 2, error=StudyError)
    high = None if max_resource is None else check_integral("max_resource", max_resource, 1, error=StudyError)
    if high is not None and high < low:
        raise StudyError(
            "min_resource <= max_resource must hold, "
            f"but got (min_resource={min_resource}, max_resource={max_resource})"
        )
    return low, eta, high


class SuccessiveHalvingPruner(Pruner):
    """ASHA in its stopping form; see the module docstring.

    ``min_resource`` is the first rung's step (e.g. epochs), ``reduction_factor``
    the ``eta`` (keep the best ``1/eta`` per rung), ``min_early_stopping_rate``
    the ``s`` (the first rung at ``min_resource * eta**s``), ``max_resource``
    the most steps a trial may take (its :meth:`budget`; None: unbounded).
    """

    def __init__(
        self,
        *,
        min_resource: int = 1,
        reduction_factor: int = 3,
        min_early_stopping_rate: int = 0,
        max_resource: int | None = None,
    ) -> None:
        self.min_resource, self.reduction_factor, self.max_resource = _check_resources(
            min_resource, reduction_factor, max_resource
        )
        self.min_early_stopping_rate = check_integral("min_early_stopping_rate", min_early_stopping_rate, 0, error=StudyError)

    def budget(self, number: int) -> int | None:
        return self.max_resource

    def prune(self, curves: Curves) -> bool:
        return judge(curves, curves.earlier, self._rungs(), self.reduction_factor)

    def _rungs(self) -> Iterator[int]:
        return rung_resources(
            self.min_resource, self.reduction_factor, self.min_early_stopping_rate, self.max_resource
        )


def promotable_vector(competitors: np.ndarray, eta: int) -> bool:
    """Whether the last row of loss vectors ``competitors`` (the judged trial's) goes on:
    when it is among the first ``max(1, n // eta)`` of the competitors in Pareto order,
    or when none of those dominates it (MO-ASHA's rung: a trial stops only when the
    best ``1/eta`` hold one better in every objective)."""
    keep = max(1, len(competitors) // eta)
    finite = np.where(np.isfinite(competitors), competitors, np.finfo(float).max)
    order = pareto_order(finite)
    own = len(competitors) - 1
    best = [i for i in order[:keep] if i != own]
    if len(best) < keep:
        return True
    return not any(dominates(finite[i], finite[own]) for i in best)


def _judge_vectors(curves: Curves, rivals: Mapping[int, Curve], resources: Iterator[int], eta: int) -> bool:
    step = curves.step
    own = curves.loss_vector(curves.number, step) if step is not None else None
    if own is None:
        return False
    if not np.all(np.isfinite(own)):
        return True
    for resource in rungs_reached(curves.curve, resources):
        others = []
        for n, curve in rivals.items():
            steps = [s for s in curve if s >= resource]
            vector = curves.loss_vector(n, min(steps)) if steps else None
            if vector is not None:
                others.append(vector)
        if not promotable_vector(np.array([*others, own]), eta):
            return True
    return False


def judge(curves: Curves, rivals: Mapping[int, Curve], resources: Iterator[int], eta: int) -> bool:
    """Whether the trial stops at a rung its last report reached, against ``rivals``' values there."""
    if curves.several:
        return _judge_vectors(curves, rivals, resources, eta)
    step = curves.step
    if step is None:
        return False
    if math.isnan(curves.curve[step]):
        return True
    for resource in rungs_reached(curves.curve, resources):
        own = curves.loss(curves.curve[step])
        values = (rung_value(c, resource) for c in rivals.values())
        others = [curves.loss(v) for v in values if v is not None]
        if not promotable(own, np.array([*others, own]), eta):
            return True
    return False
