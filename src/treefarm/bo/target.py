"""The view of a suggestion whose model is read at the target fidelity.

Like :class:`treefarm.bo.views.EncodedView`, every row on one encoding, but
the model was fitted on rows with a fidelity column
(:class:`treefarm.bo.models.fidelity.TargetModel`), so the incumbent is not
an observed loss, most of which were measured at lower fidelities: it is the
best posterior mean at the target over the configurations seen (as MOBSTER
improves on the model's best at a rung: Klein et al., "Model-based
asynchronous hyperparameter and neural architecture search", 2020).

Notation (shapes): n configurations seen (at any fidelity), c candidates,
d columns; X (n, d), Xc (c, d).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..encoding import UnitEncoding
from ..space import Config
from .models.fidelity import TargetModel
from .views import Scene, encoded_domain, join_columns

__all__ = ["TargetView"]


class TargetView:
    """Configurations, pending points and candidates on one encoding, the model at the target."""

    narrows = False
    width = None

    def __init__(
        self,
        encoding: UnitEncoding,
        configs: Sequence[Config],
        pending: Sequence[Config],
        candidates: Sequence[Config],
        n_cover: int,
        model: TargetModel,
    ) -> None:
        self.candidates = candidates
        self.n_cover = n_cover
        X, _ = encoding.encode(configs)
        best = float(model.predict(X)[0].min())
        if pending:
            Xp, _ = encoding.encode(pending)
            model = model.condition_on(Xp, model.predict(Xp)[0])
        Xc, Ac = encoding.encode(candidates)
        self._scene = Scene(
            model=model,
            X=X,
            Xc=Xc,
            free=Ac & ~join_columns(encoding)[None, :],
            domain=encoded_domain(encoding, joins=False),
            best=best,
            encode=lambda configs: encoding.encode(configs)[0],
            decode=encoding.decode,
        )

    def scene(self, extra: Sequence[Config] = ()) -> Scene:
        """The scene; ``extra`` changes nothing (every candidate has its columns)."""
        return self._scene

    def add(self, config: Config) -> None:
        """Condition the model on ``config`` at the target, at its posterior mean."""
        Z = self._scene.encode([config])
        model = self._scene.model
        self._scene = replace(self._scene, model=model.condition_on(Z, model.predict(Z)[0]))
