"""The interfaces the suggestion loop works through: a model and an acquisition.

Notation (shapes): n observed rows, m query points, d encoded columns;
X (n, d), Z (m, d); means and variances (m,), their gradients (m, d).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

__all__ = ["Acquisition", "Model"]


class Model(Protocol):
    """A fitted surrogate of the loss on the model's scale (lower is better):
    its observed rows ``X`` (n, d) and targets ``y`` (n,), each observation's
    own noise variance ``v`` (n,) beside the fitted ``noise_var``, and its
    posterior (:class:`treefarm.bo.models.gp.GaussianProcess` is one)."""

    @property
    def X(self) -> np.ndarray: ...

    @property
    def y(self) -> np.ndarray: ...

    @property
    def v(self) -> np.ndarray: ...

    @property
    def noise_var(self) -> float: ...

    def predict(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean (m,) and variance (m,) at Z (m, d)."""
        ...

    def predict_with_grad(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Mean, variance and their gradients (m, d) at Z."""
        ...

    def posterior_cov(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Joint posterior mean (m,) and covariance (m, m) at Z."""
        ...

    def condition_on(self, Xp: np.ndarray, yp: np.ndarray) -> Model:
        """The model with the rows ``Xp`` (k, d) observed at ``yp`` (k,) on
        the model's scale, its hyperparameters unchanged (the kriging
        believer conditions on pending points at their posterior mean)."""
        ...


class Acquisition(Protocol):
    """Values (m,) and gradients (m, d) at query points (m, d); higher is better.
    With ``grad=False`` the gradients are not computed (zeros): scoring many
    candidates then costs O(m n) instead of O(m n d)."""

    def __call__(self, Z: np.ndarray, *, grad: bool = True) -> tuple[np.ndarray, np.ndarray]: ...
