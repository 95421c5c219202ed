"""Gaussian-process regression for Bayesian optimization (NumPy and SciPy only)."""

from .fit import NOISE_FLOOR, OUTPUTS, fit_gp, gp_with_params, log_posterior, loo_means, loo_rank
from .kernels import (
    RBF,
    Kernel,
    Matern52,
    Product,
    Stationary,
    Sum,
    decision_scales,
    decision_units,
    make_kernel,
)
from .regressor import GaussianProcess, GPParams, cholesky
from .transform import OutputTransform

__all__ = [
    "NOISE_FLOOR",
    "OUTPUTS",
    "RBF",
    "GPParams",
    "GaussianProcess",
    "Kernel",
    "Matern52",
    "OutputTransform",
    "Product",
    "Stationary",
    "Sum",
    "cholesky",
    "decision_scales",
    "decision_units",
    "fit_gp",
    "gp_with_params",
    "log_posterior",
    "loo_means",
    "loo_rank",
    "make_kernel",
]
