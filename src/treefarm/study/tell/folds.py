"""Objectives over folds and replicas: aggregations, and fold-by-fold evaluation that can stop early.

Notation: ``L`` is the loss matrix, shape ``(R, F)``: ``L[r, f]`` is the loss
on test set (fold) ``f`` of the model fitted to replica ``r`` (a resampled
data set, or in a closure test a pseudo-data set drawn from a known
underlying law). A 1-d array is one replica, shape ``(F,)``.

Aggregations (a closure test picks the model whose bias is small consistently
across test sets and underlying laws, and checks that its variance has not
suffered for it):

- ``mean``: ``mean(L)``;
- ``max``: ``max(L)``, the worst fold;
- ``mean+std``: ``mean(L) + k * std(L)``, with the sample standard deviation
  over every entry (``ddof=1``; 0 for a single entry);
- ``bias``: the seed's pair: bias ``= mean(L)``, and variance ``= mean_f
  var_r(L[:, f])``, how much a test set's loss moves from one replica to the
  next (``ddof=1``; 0 with a single replica). The loss is the bias; the
  variance is stored beside it.

How precise the loss is, stored as ``loss_variance`` (the GP takes it as the
observation's own noise; :mod:`treefarm.bo.models.gp.regressor`). With ``n``
entries of sample variance ``s^2`` (``ddof=1``):

- ``mean``, ``bias`` over ``R >= 2`` replicas: ``var_r(mean_f L[r, f]) / R``,
  the squared standard error of a mean of ``R`` independent replica means
  (replicas are independent data sets; the folds of one replica are not);
- ``mean``, ``bias`` over one replica: ``s^2 / n``, the squared standard
  error of a mean of the folds, which understates it: fold losses share
  training data (Bengio & Grandvalet 2004: no unbiased estimator of the
  variance of a cross-validation mean exists). What it gets right is which
  trials are more precise than others, and the GP's fitted noise, added on
  top, absorbs a common understatement;
- ``mean+std``: ``s^2 / n + k^2 s^2 / (2 (n - 1))``: the sample mean and
  standard deviation of normal data are independent, and ``var(s) ~ s^2 /
  (2 (n - 1))`` (the large-sample variance of a sample standard deviation);
- ``max``: ``s^2``, one fold's variance: the worst fold is one draw (an
  upper bound for the variance of a maximum of normal draws).

With a single entry nothing is known (0).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ...exceptions import StudyError, TrialPruned
from ...storage.checks import json_floats
from ...validation import check_int

if TYPE_CHECKING:
    from .trial import Trial

__all__ = [
    "AGGREGATIONS",
    "aggregate",
    "aggregate_variance",
    "bias_variance",
    "evaluate_folds",
    "mean_plus_std",
]

AGGREGATIONS = ("mean", "max", "mean+std", "bias")


def _matrix(losses: Any) -> np.ndarray:
    """``losses`` as a finite (R, F) array, else a StudyError naming it."""
    given = np.asarray(losses, dtype=float)
    array = given[None, :] if given.ndim == 1 else given
    if array.ndim != 2 or array.size == 0:
        raise StudyError(f"losses must be a non-empty (replicas, folds) array, but got shape={given.shape}")
    if not np.all(np.isfinite(array)):
        raise StudyError(f"every fold loss must be finite, but got losses={array.tolist()!r}")
    return array


def _std(values: np.ndarray, axis: int | None = None) -> np.ndarray:
    """The sample standard deviation (ddof=1), 0 where there is a single value."""
    n = values.size if axis is None else values.shape[axis]
    return np.std(values, axis=axis, ddof=1) if n > 1 else np.zeros_like(np.mean(values, axis=axis))


def mean_plus_std(losses: Any, k: float = 1.0) -> float:
    """``mean(L) + k * std(L)`` over every entry: a pessimistic loss for ``k > 0``."""
    array = _matrix(losses)
    return float(array.mean() + k * _std(array.ravel()))


def bias_variance(losses: Any) -> tuple[float, float]:
    """The seed-000 pair ``(mean(L), mean_f var_r(L[:, f]))``; see the module docstring."""
    array = _matrix(losses)
    variance = float(np.mean(_std(array, axis=0) ** 2))
    return float(array.mean()), variance


def aggregate(losses: Any, how: str = "mean", *, k: float = 1.0) -> float:
    """The single loss the optimizer minimizes, from the fold losses (see :data:`AGGREGATIONS`)."""
    if how not in AGGREGATIONS:
        raise StudyError(f"how must be one of {list(AGGREGATIONS)}, but got how={how!r}")
    array = _matrix(losses)
    if how == "max":
        return float(array.max())
    if how == "mean+std":
        return mean_plus_std(array, k)
    return float(array.mean())


def aggregate_variance(losses: Any, how: str = "mean", *, k: float = 1.0) -> float:
    """The variance of :func:`aggregate` as an estimate: see the module docstring."""
    if how not in AGGREGATIONS:
        raise StudyError(f"how must be one of {list(AGGREGATIONS)}, but got how={how!r}")
    array = _matrix(losses)
    n = array.size
    if n == 1:
        return 0.0
    s2 = float(np.var(array, ddof=1))
    if how == "max":
        return s2
    if how == "mean+std":
        return s2 / n + k**2 * s2 / (2.0 * (n - 1))
    replicas = len(array)
    return float(np.var(array.mean(axis=1), ddof=1)) / replicas if replicas > 1 else s2 / n


def summary(losses: Any, how: str, k: float) -> dict[str, Any]:
    """The stored fields of a fold evaluation: the loss, the spread and every fold's loss."""
    array = _matrix(losses)
    bias, variance = bias_variance(array)
    return {
        "loss": aggregate(array, how, k=k),
        "loss_variance": aggregate_variance(array, how, k=k),
        "bias": bias,
        "variance": variance,
        "std": float(_std(array.ravel())),
        "fold_losses": array.tolist(),
    }


def evaluate_folds(
    fold_loss: Callable[[int, int], float],
    *,
    n_folds: int,
    n_replicas: int = 1,
    how: str = "mean",
    k: float = 1.0,
    trial: Trial | None = None,
) -> dict[str, Any]:
    """Evaluate ``fold_loss(replica, fold)`` fold by fold and aggregate; an objective returns the result.

    After each fold (all replicas), the aggregate of the folds so far is
    reported to ``trial`` at step ``folds done`` and the fold losses so far
    are stored as the user attribute ``"fold_losses"``, and the partial
    aggregate's variance as ``"loss_variance"``; if the study's pruner says
    so, :class:`~treefarm.TrialPruned` stops the trial there (a trial whose
    first folds are already bad costs no more folds; the GP then weighs its
    partial aggregate by the larger variance of fewer folds). The returned
    mapping has ``"loss"`` (the aggregate), ``"loss_variance"``, ``"bias"``,
    ``"variance"``, ``"std"`` and ``"fold_losses"`` (``[replica][fold]``),
    all stored with the trial.
    """
    for name, value in (("n_folds", n_folds), ("n_replicas", n_replicas)):
        check_int(name, value, error=StudyError)
    aggregate(np.zeros((1, 1)), how)
    losses = np.empty((n_replicas, 0))
    for fold in range(n_folds):
        column = [float(fold_loss(replica, fold)) for replica in range(n_replicas)]
        losses = np.column_stack([losses, column])
        if trial is not None:
            # a diverged fold (NaN) is reported, so a pruner can stop the trial; JSON stores it as null
            trial.set_user_attr("fold_losses", json_floats(losses))
            variance = aggregate_variance(losses, how, k=k)
            if math.isfinite(variance):
                trial.set_user_attr("loss_variance", variance)
            trial.report(fold + 1, aggregate(losses, how, k=k))
            if fold + 1 < n_folds and trial.should_prune():
                raise TrialPruned()
    return summary(losses, how, k)
