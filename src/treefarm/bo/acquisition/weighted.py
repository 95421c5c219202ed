"""Prior-weighted acquisitions (πBO): the acquisition times a belief raised to a power.

πBO (Hvarfner et al., "πBO: Augmenting Acquisition Functions with User
Beliefs for Bayesian Optimization", ICLR 2022) maximizes a(x) pi(x)^gamma,
gamma = beta / n after n observations. In log space, where log-EI and
log-PI live, that is

    log a(x) + gamma * log pi(x)

and for the non-negative acquisitions (EI, PI, max-value entropy search)

    a(x) * exp(gamma * log pi(x)),  gradient exp(gamma L) (da + a gamma dL).

The lower confidence bound takes either sign and Thompson sampling is
maximized over candidates without a gradient: πBO is not defined for them
(:data:`WEIGHTABLE` lists the acquisitions it is).

Notation (shapes): m query points, d columns; Z (m, d); values (m,), grads (m, d).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .functions import Acquisition

__all__ = ["LOG_ACQUISITIONS", "WEIGHTABLE", "PriorWeighted"]

#: Acquisitions computed as a logarithm: the prior's log is added.
LOG_ACQUISITIONS = ("logei", "logpi")
#: Acquisitions πBO can weight: the log ones and the non-negative ones.
WEIGHTABLE = (*LOG_ACQUISITIONS, "ei", "pi", "mes")

#: ``log_prior(Z, grad=...)``: log pi (m,) and its gradient (m, d) (zeros without ``grad``).
LogPrior = Callable[..., tuple[np.ndarray, np.ndarray]]


class PriorWeighted:
    """``acquisition`` weighted by ``exp(gamma * log_prior)`` (see the module docstring);
    ``log_space`` says the acquisition is a logarithm (log-EI, log-PI)."""

    def __init__(
        self, acquisition: Acquisition, log_prior: LogPrior, gamma: float, *, log_space: bool
    ) -> None:
        self.acquisition = acquisition
        self.log_prior = log_prior
        self.gamma = gamma
        self.log_space = log_space

    def __call__(self, Z: np.ndarray, *, grad: bool = True) -> tuple[np.ndarray, np.ndarray]:
        value, dvalue = self.acquisition(Z, grad=grad)
        log_pi, dlog_pi = self.log_prior(Z, grad=grad)
        if self.log_space:
            return value + self.gamma * log_pi, dvalue + self.gamma * dlog_pi if grad else dvalue
        weight = np.exp(self.gamma * log_pi)
        if not grad:
            return value * weight, dvalue
        return value * weight, weight[:, None] * (dvalue + (self.gamma * value)[:, None] * dlog_pi)
