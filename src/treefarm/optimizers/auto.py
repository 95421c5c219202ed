"""``algo="auto"``: the GP's proposals interleaved with TPE's, for users who did not tune.

No single optimizer wins everywhere: the GP wins smooth problems by orders of
magnitude, TPE and annealing win several multimodal ones, where the GP's
log-EI can settle in one basin (``bench/RESULTS.md``). ``Auto`` runs the GP
(with its stall rule, :mod:`treefarm.optimizers.gp`) and hands every
``tpe_every``-th trial to TPE, in the manner of SMAC's interleaved random
configurations (Hutter, Hoos & Leyton-Brown 2011) but with a model-guided
proposal in those slots: TPE's density ratio, fitted on the same history,
proposes from the good region as a whole rather than from the acquisition's
one peak, so a basin the GP has written off is still visited. The GP's
proposals keep its sample efficiency on smooth problems; TPE's cost is a
few milliseconds. On recursive spaces, where the GP's address-wise kernel is
weak, the share is reversed: TPE proposes and every ``tpe_every``-th trial
is the GP's.

Which optimizer makes trial ``t`` depends only on ``t``, the number of
trials the history holds (complete, failed and pending): a resumed study or
a second worker reading the same storage makes the same choice, and the
choice, like both optimizers, is a pure function of the history.

The designs tried, with their figures, are in ``bench/RESULTS.md``.
"""

from __future__ import annotations

import numpy as np

from ..space import Config, Space, analyze, convert
from .base import History, Optimizer
from .gp import GP
from .options import check_int
from .tpe import TPE

__all__ = ["Auto"]


class Auto(Optimizer):
    """The GP with every ``tpe_every``-th trial proposed by TPE (see the module docstring).

    Parameters
    ----------
    tpe_every:
        Trial ``t`` (counted from 0 over the whole history) is TPE's when
        ``t % tpe_every == tpe_every - 1`` on a non-recursive space; on a
        recursive space it is the GP's, and every other trial TPE's.
    gp, tpe:
        The two optimizers (by default ``GP()`` and ``TPE(n_startup=5)``: TPE
        proposes only after the GP's space-filling start, which serves as its
        start-up too).
    """

    def __init__(self, *, tpe_every: int = 3, gp: GP | None = None, tpe: TPE | None = None) -> None:
        check_int("tpe_every", tpe_every, minimum=2)
        self.tpe_every = tpe_every
        self.gp = gp if gp is not None else GP()
        self.tpe = tpe if tpe is not None else TPE(n_startup=5)

    def proposer(self, t: int, *, recursive: bool) -> Optimizer:
        """The optimizer that proposes trial ``t``."""
        slot = t % self.tpe_every == self.tpe_every - 1
        return self.gp if slot == recursive else self.tpe

    def suggest(self, space: Space, history: History, n: int, rng: np.random.Generator) -> list[Config]:
        root = convert(space)
        recursive = analyze(root).recursive
        t0 = len(history.complete) + len(history.failed) + len(history.pending)
        out: list[Config] = []
        for i in range(n):
            with_batch = History(history.complete, history.failed, (*history.pending, *out))
            optimizer = self.proposer(t0 + i, recursive=recursive)
            if isinstance(optimizer, TPE) and len(history.complete) < self._startup(root):
                optimizer = self.gp
            out.extend(optimizer.suggest(root, with_batch, 1, rng))
        return out

    def _startup(self, root: Space) -> int:
        """TPE waits for the GP's space-filling start (its own random start would be wasted)."""
        return max(self.gp.startup(root), self.tpe.n_startup)

    def recommend(self, space: Space, history: History) -> Config | None:
        return self.gp.recommend(space, history)
