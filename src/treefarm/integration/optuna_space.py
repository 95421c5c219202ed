"""Optuna distributions as treefarm spaces, and parameter values both ways.

Each Optuna distribution becomes one primitive whose decisions carry the same
information in the form treefarm's optimizers model best:

================================  ===============================  ========================
Optuna                            treefarm                         decision -> value
================================  ===============================  ========================
``FloatDistribution(a, b)``       ``Real(a, b, log=...)``          the float itself
``FloatDistribution(a, b, step)`` ``Int(0, n)``, n = (b - a)/step  ``a + k * step``
``IntDistribution(a, b)``         ``Int(a, b, log=...)``           the int itself
``IntDistribution(a, b, step)``   ``Int(0, n)``, n = (b - a)//step ``a + k * step``
``CategoricalDistribution(cs)``   ``Choice(0, ..., len(cs) - 1)``  ``cs[k]``
================================  ===============================  ========================

A categorical is searched by the index of its choice, so any choice Optuna
accepts (``None``, booleans, numbers, strings, mixed) is one option of a
treefarm choice, and the value handed back is Optuna's own object.
A single-valued distribution (``low == high``, one choice) makes no decision:
callers take its only value instead (:func:`single_value`).
"""

from __future__ import annotations

import math
from typing import Any

from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)

from ..exceptions import SpaceError
from ..space import Choice, Int, Real, Space

__all__ = ["from_decision", "single_value", "to_decision", "to_space"]

#: Slack when dividing a float range by its step (Optuna adjusts ``high`` to a multiple of it).
_STEP_SLACK = 1e-8


def _n_steps(low: float, high: float, step: float) -> int:
    return math.floor((high - low) / step + _STEP_SLACK)


def to_space(distribution: BaseDistribution) -> Space:
    """The treefarm primitive searching ``distribution`` (see the module's table)."""
    if distribution.single():
        raise SpaceError(f"a single-valued distribution makes no decision, but got {distribution=}")
    if isinstance(distribution, CategoricalDistribution):
        return Choice(*range(len(distribution.choices)))
    if isinstance(distribution, FloatDistribution):
        if distribution.step is None:
            return Real(distribution.low, distribution.high, log=distribution.log)
        return Int(0, _n_steps(distribution.low, distribution.high, distribution.step))
    if isinstance(distribution, IntDistribution):
        if distribution.step == 1:
            return Int(distribution.low, distribution.high, log=distribution.log)
        return Int(0, (distribution.high - distribution.low) // distribution.step)
    raise SpaceError(
        f"the distribution must be a Float-, Int- or CategoricalDistribution, but got {distribution=}"
    )


def single_value(distribution: BaseDistribution) -> Any:
    """The only value of a single-valued distribution, in Optuna's external form."""
    if isinstance(distribution, CategoricalDistribution):
        return distribution.choices[0]
    if isinstance(distribution, IntDistribution):
        return int(distribution.low)
    if isinstance(distribution, FloatDistribution):
        return float(distribution.low)
    raise SpaceError(f"the distribution must be single-valued, but got {distribution=}")


def to_decision(distribution: BaseDistribution, value: Any) -> int | float:
    """The treefarm decision of a parameter ``value`` (Optuna's external form)."""
    if isinstance(distribution, CategoricalDistribution):
        return int(distribution.to_internal_repr(value))
    if isinstance(distribution, FloatDistribution):
        if distribution.step is None:
            return min(max(float(value), distribution.low), distribution.high)
        return round((float(value) - distribution.low) / distribution.step)
    if isinstance(distribution, IntDistribution):
        if distribution.step == 1:
            return int(value)
        return (int(value) - distribution.low) // distribution.step
    raise SpaceError(
        f"the distribution must be a Float-, Int- or CategoricalDistribution, but got {distribution=}"
    )


def from_decision(distribution: BaseDistribution, decision: Any) -> Any:
    """The parameter value (Optuna's external form) of a treefarm ``decision``.

    Numbers are plain Python ``float``/``int`` (never NumPy scalars), inside
    the distribution's bounds; a stepped value is ``low + k * step``, rounded
    to the step's decimals so that ``0.1 * 3`` reads ``0.3``.
    """
    if isinstance(distribution, CategoricalDistribution):
        return distribution.choices[int(decision)]
    if isinstance(distribution, FloatDistribution):
        if distribution.step is None:
            return min(max(float(decision), distribution.low), distribution.high)
        value = distribution.low + int(decision) * distribution.step
        return min(max(float(round(value, 12)), distribution.low), distribution.high)
    if isinstance(distribution, IntDistribution):
        value = (
            int(decision) if distribution.step == 1 else distribution.low + int(decision) * distribution.step
        )
        return min(max(int(value), distribution.low), distribution.high)
    raise SpaceError(
        f"the distribution must be a Float-, Int- or CategoricalDistribution, but got {distribution=}"
    )
