"""TPE's Parzen estimators at one address: ``l_a`` and ``g_a`` fitted from columns,
the draws from ``l_a`` and their log ratios, and the joint turns' multivariate estimator.

The densities are :mod:`treefarm.bo.models.parzen`'s mixtures of the prior and
one kernel per observation; :class:`Parzen` holds the settings TPE fits them
with: the prior's weight, linear forgetting (hyperopt's code and Optuna's) and
whether a parameter's bounds count as neighbours in the bandwidth rule
(Bergstra, Bardenet, Bengio & Kégl 2011, "Algorithms for hyper-parameter
optimization"). The joint estimator is a product-kernel mixture over the numbers
active in every trial (Falkner, Klein & Hutter 2018, "BOHB: Robust and efficient
hyperparameter optimization at scale"; Optuna's multivariate TPE).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...bo.models.parzen import (
    CategoricalParzen,
    NumericParzen,
    forgetting_weights,
    logsumexp_rows,
    numeric_parzen,
)
from ...space import Choice, Int, Join, Real, draw_decision
from ...space.config import Decision, Scalar
from .split import Columns, Weights

__all__ = ["DensityPair", "Draws", "Estimator", "Fitted", "Parzen"]

Estimator = NumericParzen | CategoricalParzen


class DensityPair(NamedTuple):
    """The density of the good values (``l``) and of the bad (``g``) at one address."""

    good: Estimator
    bad: Estimator

    def log_ratio(self, x: np.ndarray) -> np.ndarray:
        """``log l(x) - log g(x)`` per draw."""
        return self.good.logpdf(x) - self.bad.logpdf(x)


class Fitted(NamedTuple):
    """What :meth:`Parzen.draws` draws from and scores by at one address: the
    objective's pair, each constraint's (``None`` where it has no value here),
    and a categorical node's labels (the estimators speak of their indices)."""

    objective: DensityPair
    constraints: list[DensityPair | None]
    labels: list[Scalar]


class Draws(NamedTuple):
    """``n_candidates`` decisions at one address and, one row per term (the
    objective's, then each constraint's), their log ratios: shape ``(rows, n_candidates)``."""

    values: list[Scalar]
    log_ratios: np.ndarray


@dataclass(frozen=True)
class Parzen:
    """The settings of TPE's estimators (see :class:`treefarm.TPE`) and the fits made with them."""

    n_candidates: int
    prior_weight: float
    forget: int | None
    bounds_as_neighbours: bool

    def fit(
        self,
        node: Decision,
        allowed: tuple[int, ...],
        good: list[Scalar],
        bad: list[Scalar],
        sides: Sequence[tuple[list[Scalar], list[Scalar]]] = (),
        ranked: np.ndarray | None = None,
    ) -> Fitted | None:
        """``l_a`` from the ``good`` values (``ranked``: their rank weights in a
        numeric one), ``g_a`` from the ``bad``, and each constraint's pair from its
        good and worse values (``sides``); ``None`` where no trial reached the address."""
        if not good and not bad:
            return None
        estimate: Callable[[list[Scalar]], Estimator]
        labels: list[Scalar] = []
        if isinstance(node, (Real, Int)):
            estimate = functools.partial(self.numeric, node)
        else:
            labels, prior = _options(node, allowed)
            estimate = functools.partial(self.categorical, prior, {label: i for i, label in enumerate(labels)})
        pairs = [DensityPair(estimate(yes), estimate(no)) if yes or no else None for yes, no in sides]
        l_est = self.numeric(node, good, ranked) if isinstance(node, (Real, Int)) else estimate(good)
        return Fitted(DensityPair(l_est, estimate(bad)), pairs, labels)

    def draws(
        self, node: Decision, allowed: tuple[int, ...], fitted: Fitted | None, rng: np.random.Generator, rows: int = 1
    ) -> Draws:
        """``n_candidates`` draws from one address's ``l_a`` (``fitted``, :meth:`fit`)
        and, per row of ``rows``, their ``log l_a - log g_a``: the objective's, then
        each constraint's.

        An address no trial has reached (``fitted`` is ``None``) is drawn from the
        space's prior, and adds nothing to a score (l and g are both the prior there)."""
        m = self.n_candidates
        ratios = np.zeros((rows, m))
        if fitted is None:
            return Draws([draw_decision(node, allowed, rng) for _ in range(m)], ratios)
        l_est = fitted.objective.good
        if isinstance(node, (Real, Int)):
            x = np.clip(l_est.sample(rng, m), node.low, node.high)
        else:
            x = l_est.sample(rng, m)
        ratios[0] = fitted.objective.log_ratio(x)
        for row, pair in enumerate(fitted.constraints, start=1):
            if pair is not None:
                ratios[row] = pair.log_ratio(x)
        if isinstance(node, Int):
            return Draws([int(v) for v in np.round(x)], ratios)
        if isinstance(node, Real):
            return Draws(x.tolist(), ratios)
        return Draws([fitted.labels[d] for d in x.tolist()], ratios)

    def numeric(self, node: Real | Int, values: list[Scalar], ranked: np.ndarray | None = None) -> NumericParzen:
        """The Parzen estimator of ``values`` with forgetting (and, given, rank) weights."""
        weights = forgetting_weights(len(values), self.forget)
        if ranked is not None:
            weights = weights * ranked
        return numeric_parzen(
            node,
            np.array(values, dtype=float),
            prior_weight=self.prior_weight,
            weights=weights,
            bounds_as_neighbours=self.bounds_as_neighbours,
        )

    def categorical(self, prior: np.ndarray, index: dict[Scalar, int], values: list[Scalar]) -> CategoricalParzen:
        """The Parzen estimator of a categorical node's ``values`` (their ``index``
        among its options, values it no longer offers left out) with forgetting weights."""
        weights = forgetting_weights(len(values), self.forget)
        known = np.array([v in index for v in values], dtype=bool)
        indices = np.array([index[v] for v in values if v in index], dtype=int)
        return CategoricalParzen.fit(prior, indices, prior_weight=self.prior_weight, weights=weights[known])

    def joint(
        self,
        common: Sequence[tuple[str, Real | Int]],
        good: Columns,
        bad: Columns,
        rng: np.random.Generator,
        ranked: Weights,
    ) -> dict[str, Scalar]:
        """Values for the numeric addresses ``common`` (active in every trial),
        chosen jointly: the best of ``n_candidates`` draws from the multivariate ``l``
        by ``l / g``; none for fewer than two.

        ``l`` (or ``g``) may have no trial at all: ties straddling the split at the
        best loss send every trial to ``g`` (:func:`treefarm.optimizers.tpe.split.strictly_below`);
        the estimator is then the prior alone, as in the univariate product."""
        if len(common) < 2:
            return {}
        l_dims = [self.numeric(node, good.at(a), ranked.get(a)) for a, node in common]
        g_dims = [self.numeric(node, bad.at(a)) for a, node in common]
        k = rng.choice(len(l_dims[0].w), size=self.n_candidates, p=l_dims[0].w)
        X = [est.sample_components(rng, k) for est in l_dims]
        score = _joint_logpdf(l_dims, X) - _joint_logpdf(g_dims, X)
        i = int(np.argmax(score))
        out: dict[str, Scalar] = {}
        for (a, node), column in zip(common, X):
            value = min(max(float(column[i]), node.low), node.high)
            out[a] = round(value) if isinstance(node, Int) else value
        return out


def _joint_logpdf(dims: Sequence[NumericParzen], X: Sequence[np.ndarray]) -> np.ndarray:
    """Log density of the product-kernel mixture: components shared across dimensions."""
    total = sum(est.component_logpdf(x) for est, x in zip(dims, X))
    return logsumexp_rows(total + np.log(dims[0].w))


def _options(node: Choice | Join, allowed: tuple[int, ...]) -> tuple[list[Scalar], np.ndarray]:
    """The decisions a categorical node may take and their prior probabilities."""
    if isinstance(node, Choice):
        labels = list(node.decisions())
        weights = np.array(node.weights if node.weights is not None else [1.0] * len(labels), dtype=float)
    else:
        labels = list(node.labels)
        w = np.array(node.weights if node.weights is not None else [1.0] * len(labels), dtype=float)
        weights = np.zeros(len(labels))
        weights[list(allowed)] = w[list(allowed)]
    return labels, weights / weights.sum()
