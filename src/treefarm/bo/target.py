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

from ..encoding import UnitEncoding
from ..space import Config
from .models.fidelity import TargetModel
from .views import EncodedView, encoded_scene

__all__ = ["TargetView"]


class TargetView(EncodedView):
    """Configurations, pending points and candidates on one encoding, the model at the target."""

    def __init__(
        self,
        encoding: UnitEncoding,
        configs: Sequence[Config],
        pending: Sequence[Config],
        candidates: Sequence[Config],
        n_cover: int,
        model: TargetModel,
    ) -> None:
        self.encoding = encoding
        self.candidates = candidates
        self.n_cover = n_cover
        X, _ = encoding.encode(configs)
        best = float(model.predict(X)[0].min())
        if pending:
            Xp, _ = encoding.encode(pending)
            model = model.condition_on(Xp, model.predict(Xp)[0])
        self._scene = encoded_scene(encoding, model, X, candidates, best)
