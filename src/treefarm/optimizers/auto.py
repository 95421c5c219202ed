"""``algo="auto"``: the GP, with TPE's proposals on alternate trials while stalled and among choices; grammar search on recursive spaces.

No single optimizer wins everywhere: the GP wins smooth problems by orders of
magnitude, TPE and annealing win several multimodal ones, where the GP's
log-EI can settle in one basin (``bench/RESULTS.md``). ``Auto`` runs the GP
(with its own stall rule, :mod:`treefarm.optimizers.gp`) and, while the
search is stalled (no improvement larger than 1e-3 of the losses' raw range for
``patience`` evaluations, :func:`treefarm.optimizers.gp.evaluations_since_improvement`;
the raw range calls a search stalled sooner than the GP's own measure on the
model's scale, and measured on the rotated Rastrigins that TPE's earlier turns
pay, bench/RESULTS.md),
hands every other trial to TPE. TPE's density ratio, fitted on the same
history, proposes from the good region as a whole rather than from the
acquisition's one peak, so a basin or a category the GP has written off is
visited again (SMAC interleaves random configurations for the same reason,
Hutter, Hoos & Leyton-Brown 2011). While the search improves, every
suggestion is the GP's, so its sample efficiency on smooth problems is kept;
TPE's cost is a few milliseconds. On a space with choices or joins, where
the GP can settle on one option or branch (the issue's SVM plateau; the
Quickstart, where the GP alone ended on the worse optimizer branch in 2 of 3
seeds), every ``tpe_every``-th trial is TPE's as well: Quickstart, 60
trials, seeds 0-2: best 0.0840 / 0.0840 / 0.1040 with it, 0.100 / 0.080 /
0.100 without, TPE 0.0932 / 0.0808 / 0.0951. A purely numeric space never
gets these trials, since there they cost the GP's refinement (the
screening below). On recursive spaces grammar search
(:mod:`treefarm.optimizers.grammar`) proposes every trial. Giving every third
trial to the GP, the rule before, had a higher median than grammar search
alone on 11 of the 17 grammar problems and a lower one on 5
(``bench/RESULTS.md``, 100 evaluations, 10 seeds: Nguyen-4 0.20 against
0.049, ``symbolic_regression`` 1.62 against 1.40; ``kernel_search`` 2.73
against 3.09, Nguyen-8 0.20 against 0.29), none beyond noise either way, at
0.1-0.5 s of CPU a suggestion where grammar search takes milliseconds; grammar
/ annealing alternations ranked below grammar search alone on the 15 symbolic
targets (mean ranks among the four: grammar search 1.93, annealing 2.60,
grammar, grammar, annealing 2.53, grammar, annealing 2.93).

Which optimizer makes trial ``t`` depends only on ``t`` (the number of
trials the history holds: complete, failed and pending) and the completed
losses: a resumed study or a second worker reading the same storage makes
the same choice, and the choice, like both optimizers, is a pure function of
the history.

Measured designs (``bench/RESULTS.md``, 100 evaluations, 5-6 seeds, final
median regret on Ackley-5, BBOB f15 and f21 in 2-d): TPE on every third
trial, 3.43 / 3.13 / 0.0002; this rule, 2.91 / 1.24 / 0.0027; the GP alone
(with its stall rule) 2.97 / 2.66 / 0.00006. With the GP's rate-limited
stall rule (one stalled suggestion in three explores), on 18 problems (12
BBOB 2-d functions and the synthetic set, 10 seeds, ``python -m bench.screen``):
this rule has a lower median than the GP alone on 7, higher beyond noise on 1
(BBOB f2, a separable ellipsoid: 0.43 against 0.0013); TPE on one stalled
trial in four, lower on 7, higher beyond noise on 1; stalls measured on the
model's scale, lower on 7, higher beyond noise on 2. The rule was kept.
"""

from __future__ import annotations

import math

import numpy as np

from ..exceptions import ConfigError
from ..space import Choice, Config, Join, Space, addresses, analyze, convert
from .base import History, Optimizer
from .gp import GP, STALL_PATIENCE, evaluations_since_improvement
from .grammar import GrammarSearch
from .options import check_int
from .tpe import TPE

__all__ = ["Auto"]


class Auto(Optimizer):
    """The GP, with TPE on alternate trials while stalled (see the module docstring).

    Parameters
    ----------
    patience:
        Evaluations without a significant improvement after which the search
        counts as stalled.
    tpe_every:
        On a non-recursive space with choices or joins, trial ``t`` is also
        TPE's when ``t % tpe_every == tpe_every - 1``.
    stalled_tpe_every:
        While stalled, trial ``t`` is TPE's when ``t % stalled_tpe_every == 0``
        (2: every other trial).
    stall_scale:
        Where an improvement is measured: ``"raw"`` (default; the losses'
        range) or ``"model"`` (the GP's warped scale, as the GP's own rule).
    gp, tpe:
        The two optimizers of flat and conditional spaces (by default
        ``GP()`` and ``TPE(n_startup=5)``: TPE proposes only after the GP's
        space-filling start, which serves as its start-up too).
    grammar:
        The optimizer of recursive spaces (by default ``GrammarSearch()``,
        whose own prior draws are the start there).
    """

    def __init__(
        self,
        *,
        patience: int = STALL_PATIENCE,
        tpe_every: int = 3,
        stalled_tpe_every: int = 2,
        stall_scale: str = "raw",
        gp: GP | None = None,
        tpe: TPE | None = None,
        grammar: GrammarSearch | None = None,
    ) -> None:
        check_int("patience", patience)
        check_int("tpe_every", tpe_every, minimum=2)
        check_int("stalled_tpe_every", stalled_tpe_every)
        self.stalled_tpe_every = stalled_tpe_every
        if stall_scale not in ("raw", "model"):
            raise ConfigError(f"stall_scale must be 'raw' or 'model', but got stall_scale={stall_scale!r}")
        self.stall_scale = stall_scale
        self.patience = patience
        self.tpe_every = tpe_every
        self.gp = gp if gp is not None else GP()
        self.tpe = tpe if tpe is not None else TPE(n_startup=5)
        self.grammar = grammar if grammar is not None else GrammarSearch()

    def proposer(self, t: int, *, recursive: bool, stalled: bool, categorical: bool = False) -> Optimizer:
        """The optimizer that proposes trial ``t`` (``categorical``: the space has choices or joins)."""
        if recursive:
            return self.grammar
        if stalled and t % self.stalled_tpe_every == 0:
            return self.tpe
        return self.tpe if categorical and t % self.tpe_every == self.tpe_every - 1 else self.gp

    def suggest(self, space: Space, history: History, n: int, rng: np.random.Generator) -> list[Config]:
        root = convert(space)
        recursive = analyze(root).recursive
        categorical = not recursive and any(isinstance(node, (Choice, Join)) for _, node in addresses(root))
        started = stalled = False
        if not recursive:
            losses = np.array([o.loss for o in history.complete if math.isfinite(o.loss)])
            started = len(losses) >= max(self.gp.startup(root), self.tpe.n_startup)
            stalled = started and (
                evaluations_since_improvement(losses, warped=self.stall_scale == "model") >= self.patience
            )
        t0 = len(history.complete) + len(history.failed) + len(history.pending)
        out: list[Config] = []
        for i in range(n):
            with_batch = history.with_pending(out)
            optimizer = self.proposer(t0 + i, recursive=recursive, stalled=stalled, categorical=categorical)
            if not (started or recursive):
                # TPE waits for the GP's space-filling start (its own random start would be wasted)
                optimizer = self.gp
            out.extend(optimizer.suggest(root, with_batch, 1, rng))
        return out

    def recommend(self, space: Space, history: History) -> Config | None:
        return self.gp.recommend(space, history)
