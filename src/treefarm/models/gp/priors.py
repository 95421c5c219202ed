"""Priors on the GP's log-hyperparameters, on the standardized output scale.

Maximum a-posteriori rather than maximum likelihood: with a few dozen points
the likelihood alone happily picks length scales that make the model
interpolate noise, or that are so long the model is flat. The priors
(all Gaussian on log-parameters, i.e. log-normal, with their gradients):

- length scales: ``log l ~ N(sqrt2 + log(d)/2, 3)``. Hvarfner, Hellsten &
  Nardi (2024), "Vanilla Bayesian optimization performs great in high
  dimensions": letting the prior's location grow like ``sqrt(d)`` in
  length keeps the model's complexity constant as d grows, which is what
  makes plain BO work in 20+ dimensions;
- signal variance: ``log s2 ~ N(0, 1)`` (the outputs are standardized);
- noise variance: ``log s2_noise ~ N(-4, 1.5^2)``: small noise is expected,
  large noise must be earned by the data;
- constant mean: ``N(0, 1)``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["NOISE_LOC", "NOISE_SCALE", "length_scale_location", "log_normal"]

LENGTH_SCALE_SIGMA = math.sqrt(3.0)
NOISE_LOC, NOISE_SCALE = -4.0, 1.5


def length_scale_location(d: int) -> float:
    """The prior median of ``log l`` in d dimensions."""
    return math.sqrt(2.0) + 0.5 * math.log(max(d, 1))


def log_normal(x: np.ndarray, loc: float, scale: float) -> tuple[float, np.ndarray]:
    """Gaussian log-density of ``x`` (up to a constant) and its gradient."""
    z = (x - loc) / scale
    return float(-0.5 * (z**2).sum()), -z / scale
