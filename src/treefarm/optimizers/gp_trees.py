"""The GP's suggestions on recursive spaces, on narrowed columns.

A grammar GP suggestion scores its candidates (prior draws, mutations and
crossovers of the best trees) with the acquisition. Encoded over every
address any candidate uses, that is 28,000 columns at 60 trials of a depth-5
expression grammar, of which the observations use 1,600. The candidates'
columns here are the addresses of the observations, the pending and the
chosen points, plus :meth:`TreeColumns.outside`, which keeps each
candidate's distances to those rows, so its acquisition value, up to rounding
(:mod:`treefarm.encoding.trees`); the candidates that score among the
``n_starts`` best then get their own columns, where the acquisition
optimizer tunes their numbers. Every candidate's columns are built only for
a stalled suggestion's Thompson draw, which compares candidates with each
other. The stall test's distance is the root mean square over those
columns, as on the full encoding (:meth:`GP._model_points`, which the GP
keeps for hints it weighs and for acquisitions that depend on more than the
distances, :data:`treefarm.optimizers.gp.NARROWABLE`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from ..encoding import TreeColumns, UnitEncoding
from ..space import Config, Space
from .base import History
from .gp import (
    GP,
    _best_unseen,
    _domain,
    _explore,
    _incumbent,
    _join_columns,
    _kernel,
    _unseen_draw,
    collapsed,
    evaluations_since_improvement,
    explores,
)

if TYPE_CHECKING:
    from ..bo.models.domain import Domain

__all__ = ["TreeView", "tree_points", "tree_view"]


@dataclass(frozen=True)
class TreeView:
    """One narrowed encoding of a suggestion (:func:`tree_view`): the
    observations ``X`` and candidates ``Xc`` with their outside column, which
    columns of each candidate the optimizer may move, its domain, and the
    model and acquisition on them."""

    encoding: UnitEncoding
    model: Any
    X: np.ndarray
    Xc: np.ndarray
    free: np.ndarray
    domain: Domain
    acq: Any
    best: float


def tree_points(
    gp: GP,
    root: Space,
    configs: list[Config],
    losses: np.ndarray,
    y_var: np.ndarray | None,
    history: History,
    n: int,
    rng: np.random.Generator,
) -> list[Config]:
    """``n`` points of ``gp`` on the recursive space ``root`` from the
    completed ``configs`` and their ``losses`` (see the module docstring)."""
    from ..bo.maximize import maximize

    pending = list(history.pending)
    candidates, n_cover = gp._candidates(root, None, configs, losses, history.hints, rng)
    trees = TreeColumns(root, [*configs, *pending, *candidates])
    fitted = gp._fit_at_refit_point(root, True, configs, losses, y_var, trees.encoding(configs))
    seen = history.seen()
    since = evaluations_since_improvement(losses) + len(pending) if gp.explore_stalls else 0
    out: list[Config] = []
    for i in range(n):
        view = partial(
            tree_view,
            gp,
            trees,
            configs=configs,
            losses=losses,
            y_var=y_var,
            pending=pending,
            chosen=out,
            candidates=candidates,
            fitted=fitted,
            rng=rng,
        )
        narrow = view([])
        scores = narrow.acq(narrow.Xc, grad=False)[0]
        # the optimizer's starts are the best-scoring candidates; the margin
        # keeps those whose score differs only by rounding between encodings
        kth = np.sort(scores)[-min(gp.n_starts, len(scores))]
        wide = view([c for c, v in zip(candidates, scores) if v >= kth - 1e-9 * (1.0 + abs(kth))])
        x, _ = maximize(wide.acq, wide.domain, wide.Xc, free=wide.free, n_starts=gp.n_starts, rng=rng)
        config = wide.encoding.decode(x[:-1])
        if gp.explore_stalls and explores(since + i, gp.explore_every) and collapsed(x, wide.X, width=trees.width):
            wide = view(candidates)
            x = _explore(wide.model, wide.Xc[:n_cover], wide.X, wide.best, rng, width=trees.width)
            config = wide.encoding.decode(x[:-1])
        if config in seen:
            config = _best_unseen(wide.acq, wide.Xc, candidates, seen) or _unseen_draw(root, seen, rng)
        out.append(config)
        seen.add(config)
    return out


def tree_view(
    gp: GP,
    trees: TreeColumns,
    extra: Sequence[Config],
    *,
    configs: list[Config],
    losses: np.ndarray,
    y_var: np.ndarray | None,
    pending: list[Config],
    chosen: list[Config],
    candidates: list[Config],
    fitted: tuple[Any, Any],
    rng: np.random.Generator,
) -> TreeView:
    """``gp``'s model on the encoding over the addresses of the observations,
    the pending and chosen points and ``extra``, conditioned on the pending
    points and then the batch's chosen ones at their posterior mean (the
    incumbent taken in between, as :meth:`GP._model_points` does), and the
    acquisition over the encoded candidates."""
    from ..bo.acquisition import make_acquisition
    from ..bo.models.gp import gp_with_params

    encoding = trees.encoding([*configs, *pending, *chosen, *extra])
    # every row the model sees here is an encoded tree or a start moved in
    # its numbers only: its join columns are one-hot already, and the
    # kernel need not round them (most of the columns)
    domain = _domain(encoding, joins=False, outside=True)
    X, _ = trees.encode(encoding, configs)
    model = gp_with_params(X, losses, domain, *fitted, kernel=_kernel(gp.kernel, True), y_var=y_var)
    if pending:
        Xp, _ = trees.encode(encoding, pending)
        model = model.condition_on(Xp, model.predict(Xp)[0])
    best = _incumbent(model, X)
    if chosen:
        Xo, _ = trees.encode(encoding, chosen)
        model = model.condition_on(Xo, model.predict(Xo)[0])
    Xc, Ac = trees.encode(encoding, candidates)
    acq = make_acquisition(gp.acquisition, model, best=best, n_observed=len(losses), rng=rng, candidates=Xc)
    return TreeView(
        encoding=encoding,
        model=model,
        X=X,
        Xc=Xc,
        free=Ac & ~np.append(_join_columns(encoding), False)[None, :],
        domain=domain,
        acq=acq,
        best=best,
    )
