"""The suggestion loop: a batch of points from one fitted model and a view.

For each point of a batch of ``n`` (Brochu et al. 2010, "A tutorial on
Bayesian optimization of expensive cost functions"; Snoek et al. 2012,
"Practical Bayesian optimization of machine learning algorithms"):

1. take the view's scene (:mod:`treefarm.bo.views`) and the acquisition
   over its model; where the view narrows its columns, score the candidates
   there and take the scene again with columns for the ``n_starts`` best;
2. maximize the acquisition from the candidates
   (:func:`treefarm.bo.maximize.maximize`), or for an acquisition without a
   gradient (Thompson sampling) take the best candidate;
3. if the suggestion may explore (the caller's stall rule) and the proposal
   has collapsed onto an evaluated point (:func:`collapsed`), replace it: by
   the best of the caller's untried swaps if any, else by the best point of
   one Thompson draw (Thompson 1933; Kandasamy et al. 2018, "Parallelised
   Bayesian optimisation via Thompson sampling") over the space-covering
   candidates away from the evaluated points (:func:`thompson_explore`,
   the explore step of a trust-region restart, Eriksson et al. 2019, TuRBO);
4. decode it; a configuration already seen gives way to the unseen
   candidate with the highest acquisition, else to the caller's unseen draw;
5. condition the view on it at its posterior mean (kriging believer,
   Ginsbourger et al. 2010) before the next point is chosen.

Every random choice comes from the caller's generator, in this order.

Notation (shapes): n completed rows, c candidates, d columns; X (n, d), Xc (c, d).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..space import Config
from .protocols import Acquisition, Model
from .views import Scene, View

__all__ = [
    "STALL_DISTANCE",
    "Acquire",
    "Rules",
    "best_unseen",
    "collapsed",
    "suggest_batch",
    "thompson_explore",
]

#: A proposal this close to an evaluated point (root-mean-square over the encoded columns) has
#: collapsed onto it: 1% of the unit cube's side.
STALL_DISTANCE = 1e-2

#: ``acquire(model, best, Xc)``: the acquisition over ``model`` improving on ``best``, given the candidates.
Acquire = Callable[[Model, float, np.ndarray], Acquisition]


@dataclass(frozen=True)
class Rules:
    """What the caller decides in the loop: the acquisition (``acquire``),
    how many of the best candidates start the maximizer (``n_starts``),
    whether the acquisition is maximized over the candidates alone
    (``candidates_only``: it has no gradient), whether the batch's ``i``-th
    point may explore (``explores(i)``), the swaps an explore tries first
    (``swaps()``, called at the first explore), and an unseen configuration
    when no candidate is (``draw_unseen(seen)``); ``box`` (lower, upper, each
    (d,)) confines the maximizer to a trust region's box, where the
    candidates lie (:mod:`treefarm.bo.trust`), ``None`` to the whole cube."""

    acquire: Acquire
    n_starts: int
    candidates_only: bool
    explores: Callable[[int], bool]
    swaps: Callable[[], Sequence[Config]]
    draw_unseen: Callable[[set[Config]], Config]
    box: tuple[np.ndarray, np.ndarray] | None = None


def suggest_batch(
    view: View, rules: Rules, n: int, seen: set[Config], rng: np.random.Generator
) -> list[Config]:
    """``n`` configurations from ``view`` (see the module docstring); ``seen``
    (the evaluated, failed and pending configurations) grows by each."""
    from .maximize import maximize

    out: list[Config] = []
    swaps: list[Config] | None = None
    for i in range(n):
        scene = view.scene()
        acq = rules.acquire(scene.model, scene.best, scene.Xc)
        if view.narrows:
            starts = _best_scoring(view.candidates, acq(scene.Xc, grad=False)[0], rules.n_starts)
            scene = view.scene(starts)
            acq = rules.acquire(scene.model, scene.best, scene.Xc)
        if rules.candidates_only:
            x = scene.Xc[int(np.argmax(acq(scene.Xc, grad=False)[0]))]
        else:
            x, _ = maximize(
                acq, scene.domain, scene.Xc, free=scene.free, n_starts=rules.n_starts, rng=rng, bounds=rules.box
            )
        if rules.explores(i) and collapsed(x, scene.X, width=view.width):
            if swaps is None:
                swaps = list(rules.swaps())
            untried = [c for c in swaps if c not in seen]
            if view.narrows:
                scene = view.scene([*view.candidates, *untried])
                acq = rules.acquire(scene.model, scene.best, scene.Xc)
            x = _explore(scene, acq, untried, view, rng)
        config = scene.decode(x)
        if config in seen:
            config = best_unseen(acq, scene.Xc, view.candidates, seen) or rules.draw_unseen(seen)
        out.append(config)
        seen.add(config)
        view.add(config)
    return out


def _best_scoring(candidates: Sequence[Config], scores: np.ndarray, k: int) -> list[Config]:
    """The candidates whose score is among the ``k`` best, with a margin that
    keeps those whose score differs only by rounding between encodings."""
    kth = np.sort(scores)[-min(k, len(scores))]
    return [c for c, v in zip(candidates, scores) if v >= kth - 1e-9 * (1.0 + abs(kth))]


def _explore(
    scene: Scene, acq: Acquisition, untried: Sequence[Config], view: View, rng: np.random.Generator
) -> np.ndarray:
    """A collapsed proposal's replacement: the untried swap with the highest
    acquisition, else a Thompson draw over the covering candidates."""
    if untried:
        Xs = scene.encode(untried)
        return Xs[int(np.argmax(acq(Xs, grad=False)[0]))]
    return thompson_explore(scene.model, scene.Xc[: view.n_cover], scene.X, scene.best, rng, width=view.width)


def collapsed(x: np.ndarray, X: np.ndarray, *, width: int | None = None) -> bool:
    """Whether the proposal ``x`` (d,) lies within :data:`STALL_DISTANCE` of an
    evaluated row of ``X`` (n, d) (root-mean-square distance over the
    columns, or over ``width`` columns when ``X`` leaves out some where both are equal)."""
    if len(X) == 0:
        return False
    rms = np.sqrt(np.sum((X - x[None, :]) ** 2, axis=1) / (width or X.shape[1]))
    return bool(rms.min() < STALL_DISTANCE)


def thompson_explore(
    model: Model,
    cover: np.ndarray,
    X: np.ndarray,
    best: float,
    rng: np.random.Generator,
    *,
    width: int | None = None,
) -> np.ndarray:
    """The best point of one Thompson draw over the space-covering candidates
    ``cover`` (c, d) that are not within :data:`STALL_DISTANCE` of an
    evaluated row of ``X`` (all of them if none is; the distance as in
    :func:`collapsed`)."""
    from .acquisition import make_acquisition

    squared = (cover**2).sum(axis=1)[:, None] + (X**2).sum(axis=1)[None, :] - 2.0 * cover @ X.T
    rms = np.sqrt(np.maximum(squared.min(axis=1), 0.0) / (width or X.shape[1]))
    far = cover[rms >= STALL_DISTANCE] if (rms >= STALL_DISTANCE).any() else cover
    thompson = make_acquisition("ts", model, best=best, n_observed=len(X), rng=rng)
    return far[int(np.argmax(thompson(far, grad=False)[0]))]


def best_unseen(
    acq: Acquisition, Xc: np.ndarray, candidates: Sequence[Config], seen: set[Config]
) -> Config | None:
    """The candidate with the highest acquisition that was never seen."""
    values, _ = acq(Xc, grad=False)
    for i in np.argsort(-values, kind="stable"):
        if candidates[int(i)] not in seen:
            return candidates[int(i)]
    return None
