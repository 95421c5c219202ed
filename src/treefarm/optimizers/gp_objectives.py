"""The GP on several objectives and constraints: one model per output.

With ``GP(objectives="ehvi")`` and a history whose observations carry
several losses or constraints, each objective's loss and each constraint's
value get their own GP, fitted by the same code as the single loss
(:func:`treefarm.bo.models.gp.fit_gp` at the refit points, the
hyperparameters reused in between), independent of one another
(:class:`treefarm.bo.models.stacked.Stacked`). The acquisition
(:class:`treefarm.bo.acquisition.multi.MultiObjective`) is:

- two objectives (three too with ``objectives="ehvi3"``): log expected
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
loss, is off here. The candidates and the hints' prior are those of the
single-loss GP, with the Pareto order as the loss. Past ``GP(full_until=...)``
complete trials, as for one loss, each output keeps the hyperparameters of its
last full refit and its model sees the bounded subset of
:func:`treefarm.bo.subset.bounded_rows`, chosen by the Pareto order (the
front first), so a long study's suggestion costs no more than at the threshold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..bo.loop import Rules, suggest_batch
from ..bo.refits import refit_point
from ..bo.views import EncodedView
from ..encoding import UnitEncoding
from ..space import Config, Space
from .base import History, Observation

if TYPE_CHECKING:
    from ..bo.acquisition.weighted import LogPrior
    from ..bo.models.domain import Domain
    from ..bo.models.gp import GaussianProcess, GPParams, Kernel, OutputTransform
    from ..bo.protocols import Acquisition, Model
    from ..bo.refits import Refits
    from .hints import Hint

__all__ = ["Policy", "has_several", "outputs", "suggest_several"]


class Policy(Protocol):
    """What this module reads of the GP (:class:`treefarm.optimizers.gp.GP`):
    its options, its candidates and hints' prior, and a cache of fits per output."""

    kernel: str
    objectives: str
    deterministic: bool
    output: str
    n_starts: int
    prior_beta: float
    full_until: int | None
    _output_refits: Refits

    def _bounded(self, flat: UnitEncoding | None, configs: list[Config], losses: np.ndarray) -> np.ndarray | None: ...

    def _candidates(
        self,
        root: Space,
        flat: UnitEncoding | None,
        configs: list[Config],
        losses: np.ndarray,
        hints: Sequence[Hint],
        rng: np.random.Generator,
    ) -> tuple[list[Config], int]: ...

    def _hint_log_prior(
        self, encoding: UnitEncoding, hints: Sequence[Hint], configs: list[Config], losses: np.ndarray
    ) -> LogPrior | None: ...

    def _encoding(self, root: Space, recursive: bool, configs: Sequence[Config]) -> UnitEncoding: ...


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
    gp: Policy,
    root: Space,
    recursive: bool,
    complete: Sequence[Observation],
    history: History,
    n: int,
    rng: np.random.Generator,
    *,
    kernel: Kernel,
    draw_unseen: Callable[[set[Config]], Config],
) -> list[Config]:
    """``n`` points from one GP per output (see the module docstring), each
    with ``kernel``; ``draw_unseen(seen)`` when no candidate is unseen."""
    from ..bo.acquisition import PriorWeighted
    from ..bo.acquisition.multi import MultiObjective, reference_point
    from ..bo.models.gp import gp_with_params
    from ..bo.models.stacked import Stacked

    configs = [o.config for o in complete]
    ranks = np.array([o.loss for o in complete])
    Y, k = outputs(complete, rng, exact=3 if gp.objectives == "ehvi3" else 2)
    flat = None if recursive else UnitEncoding(root)
    fit_configs, fit_Y = configs, Y
    keep = gp._bounded(flat, configs, ranks)
    if keep is not None:  # past full_until: the last full refit's hyperparameters, the models on a subset
        head = refit_point(gp.full_until or len(configs))
        fit_configs, fit_Y = configs[:head], Y[:head]
        configs, ranks, Y = [configs[i] for i in keep], ranks[keep], Y[keep]
    candidates, n_cover = gp._candidates(root, flat, configs, ranks, history.hints, rng)
    pending = list(history.pending)
    encoding = flat or UnitEncoding.for_configs(root, [*configs, *pending, *candidates])
    fitted = [
        _fit_column(gp, root, recursive, fit_configs, fit_Y[:, j], j, encoding, kernel) for j in range(Y.shape[1])
    ]
    thresholds = [float(transform(np.zeros(1))[0]) for _, transform in fitted[k:]]
    ref = reference_point(np.stack([fitted[j][1](Y[:, j]) for j in range(k)], axis=1))

    def model_on(X: np.ndarray, domain: Domain) -> Model:
        return Stacked(
            [gp_with_params(X, Y[:, j], domain, *fitted[j], kernel=kernel) for j in range(len(fitted))]
        )

    view = EncodedView(encoding, configs, pending, candidates, n_cover, model_on)
    log_prior = gp._hint_log_prior(encoding, history.hints, configs, ranks)

    def acquire(model: Model, best: float, Xc: np.ndarray) -> Acquisition:
        assert isinstance(model, Stacked)
        acq = MultiObjective(model, k, thresholds, ref)
        if log_prior is None:
            return acq
        return PriorWeighted(acq, log_prior, gp.prior_beta / len(configs), log_space=True)

    rules = Rules(
        acquire=acquire,
        n_starts=gp.n_starts,
        candidates_only=False,
        explores=lambda i: False,
        swaps=list,
        draw_unseen=draw_unseen,
    )
    return suggest_batch(view, rules, n, history.seen(), rng)


def _fit_column(
    gp: Policy,
    root: Space,
    recursive: bool,
    configs: list[Config],
    y: np.ndarray,
    column: int,
    encoding: UnitEncoding,
    kernel: Kernel,
) -> tuple[GPParams, OutputTransform]:
    """One output's hyperparameters and transform, fitted from scratch at the
    last refit point (:meth:`treefarm.bo.refits.Refits.fitted`, cached by the
    output's values, so each column has its own)."""
    from ..bo.models.gp import fit_gp

    def fit(
        X: np.ndarray, y: np.ndarray, domain: Domain, y_var: np.ndarray | None, rng: np.random.Generator
    ) -> GaussianProcess:
        return fit_gp(
            X,
            y,
            domain,
            kernel=kernel,
            deterministic=gp.deterministic,
            output=gp.output,
            rng=rng,
        )

    return gp._output_refits.fitted(
        configs,
        y,
        None,
        encoding,
        tag=f"{gp.kernel} {gp.deterministic} output {column}",
        output=gp.output,
        encode=lambda prefix: gp._encoding(root, recursive, prefix),
        fit=fit,
    )
