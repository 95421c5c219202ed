"""The GP on several objectives and constraints: one model per output.

With ``GP(objectives="ehvi")`` and a history whose observations carry
several losses or constraints, each objective's loss and each constraint's
value get their own GP, fitted by the same code as the single loss
(:func:`treefarm.bo.models.gp.fit_gp` at the refit points, the
hyperparameters reused in between), independent of one another
(:class:`treefarm.bo.models.stacked.Stacked`). The acquisition
(:class:`treefarm.bo.acquisition.multi.MultiObjective`) is:

- two objectives (three too with the tuned ``ehvi_exact=3``): log expected
  hypervolume improvement over the feasible front, in closed form (Emmerich et al. 2006; Yang et al. 2019; Daulton et
  al. 2020; the log form of Ament et al. 2023), against a reference point
  a tenth of the observed range beyond the worst observed loss of each
  objective on its model's scale;
- more: ParEGO (Knowles 2006): one GP on the augmented Chebyshev
  scalarization of the normalized losses, with weights drawn uniformly on
  the simplex from the suggestion's generator (one draw per suggestion, the
  batch shares it), searched by log expected improvement;
- one objective with constraints: log expected improvement on the best
  feasible loss;
- constraints: plus the log probability of feasibility (Gardner et al.
  2014); before any trial is feasible, that alone.

The batch's points are chosen by :func:`treefarm.bo.loop.suggest_batch`,
which conditions every model on each chosen point at its posterior mean
(the kriging believer, Ginsbourger et al. 2010); the front the next point
improves on includes it. The stall rule's explore step, defined for one
loss, is off here. The candidates, the encoding, the subset and the hints'
prior are the single-loss GP's collaborators (:mod:`treefarm.optimizers.gp_parts`),
with the Pareto order as the loss. Past ``GP(full_until=...)``
complete trials, as for one loss, each output keeps the hyperparameters of its
last full refit and its model sees the bounded subset of
:func:`treefarm.bo.subset.bounded_rows`, chosen by the Pareto order (the
front first), so a long study's suggestion costs no more than at the threshold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..bo.loop import Rules, suggest_batch
from ..bo.views import EncodedView
from ..space import Config
from .base import History, Observation
from .gp_parts import GPParts

if TYPE_CHECKING:
    from ..bo.models.domain import Domain
    from ..bo.protocols import Acquisition, Model

__all__ = ["has_several", "outputs", "suggest_several"]


def has_several(complete: Sequence[Observation]) -> bool:
    """Whether the observations carry several losses or some constraint."""
    return any(len(o.losses) > 1 or len(o.constraints) > 0 for o in complete)


def outputs(complete: Sequence[Observation], rng: np.random.Generator, exact: int = 2) -> tuple[np.ndarray, int]:
    """The columns the models are fitted on (n, k): the objectives' losses
    (up to ``exact`` of them), or one ParEGO scalar (:func:`treefarm.bo.acquisition.multi.chebyshev`
    with weights drawn from ``rng``) when there are more, or the one loss;
    then the constraints. Also how many columns are objectives."""
    from ..bo.acquisition.multi import chebyshev

    L = np.array([o.losses or (o.loss,) for o in complete], dtype=float)
    q = max(len(o.constraints) for o in complete)
    C = np.array([o.constraints if len(o.constraints) == q else (0.0,) * q for o in complete], dtype=float)
    n_objectives = L.shape[1]
    if n_objectives > exact:
        L = chebyshev(L, rng.dirichlet(np.ones(n_objectives)))[:, None]
    return np.hstack([L, C.reshape(len(complete), q)]), L.shape[1]


def suggest_several(
    parts: GPParts,
    complete: Sequence[Observation],
    history: History,
    n: int,
    rng: np.random.Generator,
    *,
    exact: int,
    draw_unseen: Callable[[set[Config]], Config],
) -> list[Config]:
    """``n`` points from one GP per output (see the module docstring), the objectives
    in closed form up to ``exact`` of them; ``draw_unseen(seen)`` when no candidate is unseen."""
    from ..bo.acquisition import PriorWeighted
    from ..bo.acquisition.multi import MultiObjective, reference_point
    from ..bo.models.gp import gp_with_params
    from ..bo.models.stacked import Stacked

    configs = [o.config for o in complete]
    ranks = np.array([o.loss for o in complete])
    Y, k = outputs(complete, rng, exact=exact)
    fit_configs, fit_Y = configs, Y
    keep = parts.subset.keep(parts.encoding, configs, ranks)
    if keep is not None:  # past full_until: the last full refit's hyperparameters, the models on a subset
        configs, ranks, Y = [configs[i] for i in keep], ranks[keep], Y[keep]
    candidates = parts.candidates.draw(parts.encoding, configs, ranks, history.hints, rng)
    pending = list(history.pending)
    encoding = parts.encoding.for_configs([*configs, *pending, *candidates.configs])
    fitted = [
        parts.fitted(fit_configs, fit_Y[:, j], None, encoding, bounded=keep is not None, tag=f" output {j}")
        for j in range(Y.shape[1])
    ]
    thresholds = [float(transform(np.zeros(1))[0]) for _, transform in fitted[k:]]
    ref = reference_point(np.stack([fitted[j][1](Y[:, j]) for j in range(k)], axis=1))
    kernel = parts.refitter.kernel

    def model_on(X: np.ndarray, domain: Domain) -> Model:
        return Stacked(
            [gp_with_params(X, Y[:, j], domain, *fitted[j], kernel=kernel) for j in range(len(fitted))]
        )

    view = EncodedView(encoding, configs, pending, candidates.configs, candidates.n_cover, model_on)
    log_prior = parts.hint_prior.log_prior(encoding, history.hints, configs, ranks)

    def acquire(model: Model, best: float, Xc: np.ndarray) -> Acquisition:
        assert isinstance(model, Stacked)
        acq = MultiObjective(model, k, thresholds, ref)
        if log_prior is None:
            return acq
        return PriorWeighted(acq, log_prior, parts.prior_beta / len(configs), log_space=True)

    rules = Rules(
        acquire=acquire,
        n_starts=parts.n_starts,
        candidates_only=False,
        explores=lambda i: False,
        swaps=list,
        draw_unseen=draw_unseen,
    )
    return suggest_batch(view, rules, n, history.seen(), rng)
