"""Acquisitions over a fitted model: values and gradients in the encoded point.

Notation (shapes):
    m queries, d columns, c candidates, K samples of the minimum value
    Z       (m, d) query points
    values  (m,),  grads (m, d)

``make_acquisition`` binds a model to one of the analytic functions of
:mod:`.analytic` and applies the chain rule through the model's posterior
gradients (``dsigma = dvar / (2 sigma)``). Thompson sampling and the
y*-samples of max-value entropy search need a set of candidate points.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...exceptions import ConfigError
from ..protocols import Acquisition, Model
from . import analytic

__all__ = ["NAMES", "Acquisition", "make_acquisition", "sample_min_values"]

NAMES = ("ei", "logei", "pi", "logpi", "ucb", "ts", "mes")


class _Analytic:
    """An analytic acquisition ``f(mu, sigma) -> (value, dmu, dsigma)`` over a model."""

    def __init__(self, model: Model, f: Callable[[np.ndarray, np.ndarray], analytic.Triple]) -> None:
        self.model = model
        self.f = f

    def __call__(self, Z: np.ndarray, *, grad: bool = True) -> tuple[np.ndarray, np.ndarray]:
        if not grad:
            mean, var = self.model.predict(Z)
            return self.f(mean, np.sqrt(var))[0], np.zeros_like(Z)
        mean, var, dmean, dvar = self.model.predict_with_grad(Z)
        sigma = np.sqrt(var)
        value, dmu, dsigma = self.f(mean, sigma)
        return value, dmu[:, None] * dmean + (dsigma / (2.0 * sigma))[:, None] * dvar


class _Thompson:
    """Thompson sampling (Thompson 1933; for BO e.g. Kandasamy et al. 2018):
    the negated loss of one joint posterior draw at the query points. The
    draw is joint only over the points of one call, so it has no gradient
    (zeros) and is maximized by taking the best of a candidate set."""

    def __init__(self, model: Model, seed: int) -> None:
        self.model = model
        self.seed = seed

    def __call__(self, Z: np.ndarray, *, grad: bool = True) -> tuple[np.ndarray, np.ndarray]:
        mean, cov = self.model.posterior_cov(Z)
        from ..models.gp import cholesky

        L, _ = cholesky(cov)
        z = np.random.default_rng(self.seed).standard_normal(len(mean))
        return -(mean + L @ z), np.zeros_like(Z)


def sample_min_values(
    mean: np.ndarray, std: np.ndarray, best: float, k: int, rng: np.random.Generator
) -> np.ndarray:
    """K samples of the minimum value y* by the Gumbel approximation of
    Wang & Jegelka (2017, sec. 3.1): treating the candidates' values as
    independent, ``P(y* > y) = prod_i Phi((mean_i - y) / std_i)``; a Gumbel
    distribution fitted to its quartiles is sampled. Samples are capped at
    the incumbent ``best`` (the minimum is at most what was observed)."""
    from scipy.special import log_ndtr

    def survival(y: float) -> float:
        return float(np.exp(log_ndtr((mean - y) / std).sum()))

    # P(y* > lo) >= Phi(6)^c ~ 1 and P(y* > hi) <= Phi(-6): the bracket holds every quartile.
    lo, hi = float(np.min(mean - 6 * std)), float(np.min(mean + 6 * std))

    def quantile(q: float) -> float:
        """The y with P(y* > y) = q, by bisection."""
        a, b = lo, hi
        for _ in range(60):
            mid = 0.5 * (a + b)
            a, b = (mid, b) if survival(mid) > q else (a, mid)
        return 0.5 * (a + b)

    # w = -y* is the maximum of the negated values: Gumbel(a, b) with
    # CDF exp(-exp(-(w - a) / b)) and quantiles w_p = a - b log(-log p),
    # fitted to the quartiles of y* (low, median, high), as w_p = -y*_(1-p).
    low, median, high = quantile(0.75), quantile(0.5), quantile(0.25)
    b = max((high - low) / (np.log(np.log(4.0)) - np.log(np.log(4.0 / 3.0))), 1e-9)
    a = -median + b * np.log(np.log(2.0))
    w = a - b * np.log(-np.log(rng.random(k)))
    return np.minimum(-w, best)


def make_acquisition(
    name: str,
    model: Model,
    *,
    best: float,
    n_observed: int,
    rng: np.random.Generator,
    candidates: np.ndarray | None = None,
    beta: float | None = None,
    n_min_samples: int = 10,
) -> Acquisition:
    """The acquisition ``name`` over ``model`` (see :data:`NAMES`).

    ``best`` is the incumbent on the model's scale; ``n_observed`` sets the
    GP-UCB schedule (``beta`` overrides it); ``candidates`` (c, d) are the
    points from which max-value entropy search samples y*.
    """
    d = model.X.shape[1]
    if name == "ei":
        return _Analytic(model, lambda m, s: analytic.ei(m, s, best))
    if name == "logei":
        return _Analytic(model, lambda m, s: analytic.log_ei(m, s, best))
    if name == "pi":
        return _Analytic(model, lambda m, s: analytic.pi(m, s, best))
    if name == "logpi":
        return _Analytic(model, lambda m, s: analytic.log_pi(m, s, best))
    if name == "ucb":
        b = analytic.ucb_beta(d, n_observed) if beta is None else beta
        return _Analytic(model, lambda m, s: analytic.lcb(m, s, b))
    if name == "ts":
        return _Thompson(model, int(rng.integers(2**63)))
    if name == "mes":
        points = model.X if candidates is None else np.vstack([model.X, candidates])
        mean, var = model.predict(points)
        y_star = sample_min_values(mean, np.sqrt(var), best, n_min_samples, rng)
        return _Analytic(model, lambda m, s: analytic.mes(m, s, y_star))
    raise ConfigError(f"acquisition must be one of {NAMES}, but got acquisition={name!r}")
