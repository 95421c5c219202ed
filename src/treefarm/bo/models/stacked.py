"""Several independent models over the same rows: one per objective and per constraint.

The suggestion loop (:mod:`treefarm.bo.loop`) and its views hold one model;
:class:`Stacked` is that model when the acquisition reads several outputs
(expected hypervolume improvement, the probability of feasibility). Its
posterior has one column per output, and conditioning it on chosen points
at its posterior mean conditions each model on its own column (the kriging
believer of Ginsbourger et al. 2010, output by output).

Notation (shapes): n rows, m query points, d columns, k outputs;
means and variances (m, k), their gradients (m, k, d), targets ``y`` (n, k).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..protocols import Model

__all__ = ["Stacked"]


class Stacked:
    """The models ``models`` (one per output, fitted on the same rows) as one."""

    def __init__(self, models: Sequence[Model]) -> None:
        if not models:
            raise ValueError("models must hold at least one model, but got none")
        self.models = tuple(models)

    @property
    def X(self) -> np.ndarray:
        return self.models[0].X

    @property
    def y(self) -> np.ndarray:
        """Each model's targets on its own scale, (n, k)."""
        return np.stack([m.y for m in self.models], axis=1)

    @property
    def v(self) -> np.ndarray:
        """The largest of the models' own noise variances per row, (n,)."""
        return np.max(np.stack([m.v for m in self.models], axis=1), axis=1)

    @property
    def noise_var(self) -> float:
        """The largest fitted noise variance."""
        return max(m.noise_var for m in self.models)

    def predict(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Means and variances (m, k)."""
        out = [m.predict(Z) for m in self.models]
        return np.stack([o[0] for o in out], axis=1), np.stack([o[1] for o in out], axis=1)

    def predict_with_grad(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Means and variances (m, k) and their gradients (m, k, d)."""
        out = [m.predict_with_grad(Z) for m in self.models]
        return tuple(np.stack([o[i] for o in out], axis=1) for i in range(4))  # type: ignore[return-value]

    def posterior_cov(self, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The first model's joint posterior (the outputs are independent; a
        joint draw over all of them is per model)."""
        return self.models[0].posterior_cov(Z)

    def condition_on(self, Xp: np.ndarray, yp: np.ndarray) -> Stacked:
        """Each model conditioned on ``Xp`` (p, d) at its column of ``yp`` (p, k)."""
        yp = np.asarray(yp, dtype=float).reshape(len(Xp), len(self.models))
        return Stacked([m.condition_on(Xp, yp[:, j]) for j, m in enumerate(self.models)])
