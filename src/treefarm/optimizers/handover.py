"""CMA-ES taking over a long study from the GP: ``algo="auto"``'s bounded cost on numeric spaces.

A GP's suggestion costs O(n^3) in the number of trials (seconds at 1,000);
CMA-ES's a few milliseconds whatever the history (Hansen 2016). Past
``until`` complete trials, ``algo="auto"`` on a numeric space hands the
search over (:class:`HandOver`): CMA-ES
(:class:`treefarm.optimizers.cmaes.CMAES`) whose first run starts at the
best of the first ``until`` trials, with a step size from the spread of the
best ``elite`` of them (the root-mean-square over the coordinates of their
standard deviations in the unit cube: where the GP has narrowed the search,
CMA-ES starts as narrow), and which replays only the trials after the
hand-over. This is the GP-then-CMA-ES of hybrid schemes that start an
evolution strategy from a model-based search's best points (e.g. Mohammadi
et al. 2015, "Making EGO and CMA-ES complementary for global
optimization"); its restarts (IPOP) leave the basin once the run stagnates.

Both the start and the replayed trials are functions of the history
(complete trials in the order of their numbers), and every random choice
comes from the generator given, so a resumed study or a second worker
suggests what an uninterrupted one would.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..encoding.unit import numeric_unit
from ..space import Config, Int, Real, Space, addresses, convert
from ..validation import check_int
from .base import History, Observation, Optimizer
from .cmaes import CMAES

__all__ = ["ELITE", "HandOver", "handover_start"]

#: The best trials whose spread sets CMA-ES's first step size.
ELITE = 10
#: The first step size's bounds in the unit cube (CMA-ES's own default is 0.25).
SIGMA_BOUNDS = (1e-3, 0.25)


def handover_start(root: Space, head: Sequence[Observation], elite: int = ELITE) -> tuple[np.ndarray, float]:
    """CMA-ES's first mean (d,), the best of ``head`` in the unit cube, and its
    step size, the root-mean-square spread of the best ``elite`` (ties by trial
    order), clipped to :data:`SIGMA_BOUNDS`; with no trial yet, CMA-ES's own start
    (the centre, the largest step)."""
    numbers = [(a, node) for a, node in addresses(root) if isinstance(node, (Real, Int))]
    best = sorted(head, key=lambda o: o.loss)[:elite]
    if not best:
        return np.full(len(numbers), 0.5), SIGMA_BOUNDS[1]
    U = np.array([[_unit(node, o.config, a) for a, node in numbers] for o in best])
    sigma = float(np.sqrt(np.mean(U.var(axis=0)))) if len(numbers) else SIGMA_BOUNDS[1]
    return U[0], float(np.clip(sigma, *SIGMA_BOUNDS))


def _unit(node: Real | Int, config: Config, address: str) -> float:
    value = config.get(address)
    return numeric_unit(node, float(value)) if isinstance(value, (int, float)) else 0.5


class HandOver(Optimizer):
    """CMA-ES started from the first ``after`` complete trials and replaying the later
    ones (see the module docstring); an optimizer of its own, which ``algo="auto"``
    hands a long numeric study over to.

    Parameters
    ----------
    after:
        The complete trials (with a finite loss, in the order of their numbers)
        that set CMA-ES's start; the later ones are replayed.
    elite:
        How many of the best of them set the first step size.
    """

    def __init__(self, after: int, *, elite: int = ELITE) -> None:
        check_int("after", after)
        check_int("elite", elite)
        self.after = after
        self.elite = elite
        self._cmaes: CMAES | None = None

    def suggest(self, space: Space, history: History, n: int, rng: np.random.Generator) -> list[Config]:
        """``n`` suggestions from CMA-ES started at the first ``after`` complete
        trials and replaying the later ones (pending and failed trials as the
        history has them). ``space`` as the caller has it: the CMA-ES object is
        kept between calls while its start is the same, only to reuse its replay
        for the same space object (which checks itself against the history)."""
        complete = [o for o in history.complete if math.isfinite(o.loss)]
        mean, sigma = handover_start(convert(space), complete[: self.after], self.elite)
        start = tuple(float(x) for x in mean)
        cmaes = self._cmaes
        if cmaes is None or cmaes.sigma0 != sigma or cmaes.mean0 != start:
            cmaes = self._cmaes = CMAES(sigma0=sigma, mean0=start)
        # the first trials are not replayed but stay seen: CMA-ES reads failed trials only as seen
        head = tuple(o.config for o in complete[: self.after])
        tail = History(
            complete=tuple(complete[self.after :]),
            failed=(*history.failed, *head),
            pending=history.pending,
            hints=history.hints,
        )
        return cmaes.suggest(space, tail, n, rng)
