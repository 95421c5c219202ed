"""Acquisition functions as pure functions of the posterior at a point.

Notation (shapes): every argument and result is an array of shape (m,), one
entry per query point.
    mu, sigma   posterior mean and standard deviation of the latent loss
    best        the incumbent loss to improve on (a float)
    u           (best - mu) / sigma, the standardized improvement
    phi, Phi    standard normal density and distribution function

We minimize losses; acquisitions are maximized. Each function returns
``(value, d value / d mu, d value / d sigma)``; the chain rule through the
model's gradients happens in :mod:`treefarm.bo.acquisition.functions`.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["ei", "lcb", "log_ei", "log_h", "log_pi", "mes", "pi", "ucb_beta"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_SQRT_HALF_PI = math.sqrt(math.pi / 2)
#: Below this standardized improvement ``t = h/phi`` comes from its asymptotic
#: series (see :func:`log_h`): the direct form has lost ~1e-10 relative there.
_ASYMPTOTIC = -1e3

Triple = tuple[np.ndarray, np.ndarray, np.ndarray]


def _pdf_cdf(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from scipy.special import ndtr

    return np.exp(-0.5 * u**2 - _LOG_SQRT_2PI), ndtr(u)


def ei(mu: np.ndarray, sigma: np.ndarray, best: float) -> Triple:
    """Expected improvement (Mockus 1978; Jones, Schonlau & Welch 1998):
    ``EI = sigma (u Phi(u) + phi(u))``, ``dEI/dmu = -Phi(u)``, ``dEI/dsigma = phi(u)``."""
    u = (best - mu) / sigma
    pdf, cdf = _pdf_cdf(u)
    return sigma * (u * cdf + pdf), -cdf, pdf


def log_h(u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``log h(u)`` with ``h(u) = phi(u) + u Phi(u)``, and the ratios
    ``Phi(u) / h(u)`` and ``phi(u) / h(u)``, accurate for every u.

    For u <= 0, write ``h = phi t`` with ``t = 1 + u m`` and the Mills ratio
    ``m = Phi/phi = sqrt(pi/2) erfcx(-u/sqrt2)`` (no underflow: the direct
    ``phi + u Phi`` is 0 in floating point from u = -38 on; Ament et al.
    2023, "Unexpected improvements to expected improvement"). ``t`` itself
    cancels as ``1 - |u| m = 1/u^2 - 3/u^4 + ...``, losing ``u^2`` ulps, so
    below ``_ASYMPTOTIC`` the series ``t = u^-2 (1 - 3 u^-2 + 15 u^-4)`` is
    used; its first omitted term is ``105 u^-6 < 1e-16`` relative there.
    ``log h`` is then accurate and strictly increasing up to ``|u| ~ 1e150``
    (where ``u^2`` overflows; far beyond any posterior with std >= 1e-6).
    """
    from scipy.special import erfcx

    u = np.asarray(u, dtype=float)
    out, rc, rp = np.empty_like(u), np.empty_like(u), np.empty_like(u)
    pos = u > 0
    if pos.any():
        pdf, cdf = _pdf_cdf(u[pos])
        h = pdf + u[pos] * cdf
        out[pos], rc[pos], rp[pos] = np.log(h), cdf / h, pdf / h
    neg = ~pos
    if neg.any():
        un = u[neg]
        mills = _SQRT_HALF_PI * erfcx(-un / math.sqrt(2))
        t = 1.0 + un * mills
        far = un < _ASYMPTOTIC
        inv2 = 1.0 / un[far] ** 2
        t[far] = inv2 * (1.0 - 3.0 * inv2 + 15.0 * inv2**2)
        out[neg] = -0.5 * un**2 - _LOG_SQRT_2PI + np.log(t)
        rc[neg], rp[neg] = mills / t, 1.0 / t
    return out, rc, rp


def log_ei(mu: np.ndarray, sigma: np.ndarray, best: float) -> Triple:
    """Log expected improvement: ``log EI = log h(u) + log sigma``, finite and
    with a useful gradient where EI itself is 0 in floating point, so the
    acquisition optimizer still climbs far from the incumbent (Ament et al.
    2023). ``dlogEI/dmu = -Phi/(h sigma)``, ``dlogEI/dsigma = phi/(h sigma)``."""
    u = (best - mu) / sigma
    value, rc, rp = log_h(u)
    return value + np.log(sigma), -rc / sigma, rp / sigma


def pi(mu: np.ndarray, sigma: np.ndarray, best: float) -> Triple:
    """Probability of improvement (Kushner 1964): ``PI = Phi(u)``."""
    u = (best - mu) / sigma
    pdf, cdf = _pdf_cdf(u)
    return cdf, -pdf / sigma, -pdf * u / sigma


def log_pi(mu: np.ndarray, sigma: np.ndarray, best: float) -> Triple:
    """``log Phi(u)`` by ``scipy.special.log_ndtr``, stable far in the tail;
    ``d/du = phi(u) / Phi(u) = exp(log phi - log Phi)``."""
    from scipy.special import log_ndtr

    u = (best - mu) / sigma
    value = log_ndtr(u)
    ratio = np.exp(-0.5 * u**2 - _LOG_SQRT_2PI - value)
    return value, -ratio / sigma, -ratio * u / sigma


def ucb_beta(d: int, n: int, delta: float = 0.1) -> float:
    """The GP-UCB exploration weight ``beta_n = 2 log(d n^2 pi^2 / (6 delta))``
    (Srinivas, Krause, Kakade & Seeger 2010, Theorem 1 with |D| replaced by
    the dimension, as in Brochu et al. 2010's tutorial): the confidence
    level under which the regret bound holds with probability ``1 - delta``.
    It grows like ``4 log n`` and is conservative in practice (Srinivas et
    al. scale it down by 5 in their experiments); ``make_acquisition(...,
    beta=...)`` overrides it."""
    return 2.0 * math.log(max(d, 1) * max(n, 1) ** 2 * math.pi**2 / (6.0 * delta))


def lcb(mu: np.ndarray, sigma: np.ndarray, beta: float) -> Triple:
    """The lower confidence bound on the loss, negated to be maximized:
    ``-(mu - sqrt(beta) sigma)`` (GP-UCB of Srinivas et al. 2010 for minimization)."""
    s = math.sqrt(beta)
    return s * sigma - mu, -np.ones_like(mu), np.full_like(mu, s)


def mes(mu: np.ndarray, sigma: np.ndarray, y_star: np.ndarray) -> Triple:
    """Max-value entropy search (Wang & Jegelka 2017, eq. 6), for minimization:
    the expected reduction in the entropy of the minimum value ``y*``,

        MES = 1/K sum_k [ g_k phi(g_k) / (2 Phi(g_k)) - log Phi(g_k) ],
        g_k = (mu - y*_k) / sigma,

    with ``K`` samples of ``y*`` (``y_star``, shape (K,)). With
    ``r = phi/Phi``: ``dMES/dg = -(r + g^2 r + g r^2) / 2``, then
    ``dg/dmu = 1/sigma`` and ``dg/dsigma = -g/sigma``.
    """
    from scipy.special import log_ndtr

    g = (mu[:, None] - y_star[None, :]) / sigma[:, None]
    log_cdf = log_ndtr(g)
    r = np.exp(-0.5 * g**2 - _LOG_SQRT_2PI - log_cdf)
    value = (0.5 * g * r - log_cdf).mean(1)
    dg = -0.5 * (r + g**2 * r + g * r**2)
    return value, (dg / sigma[:, None]).mean(1), (-dg * g / sigma[:, None]).mean(1)
