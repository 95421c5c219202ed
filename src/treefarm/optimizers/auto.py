"""``algo="auto"``: the GP on numeric spaces, the GP with TPE's proposals among choices, grammar search on recursive spaces.

No single optimizer wins everywhere: the GP wins smooth problems by orders
of magnitude, TPE wins where the GP's log-EI settles on one option of a
choice, and grammar search leads on recursive spaces. ``Auto`` picks by the
kind of space:

- **Purely numeric** (reals and integers only): the GP alone, with its own
  stall rule (:mod:`treefarm.optimizers.gp`) (a trust region around the best
  trial, TuRBO's rules in :mod:`treefarm.bo.trust`, is a tuned setting,
  ``trust_after``, off by default: see :data:`TRUST_AFTER`); with one objective, past
  ``handover_after`` complete trials, CMA-ES started from them
  (:mod:`treefarm.optimizers.handover`), whose suggestion costs milliseconds
  where the GP's grows like n^3. With two objectives (with or
  without constraints), the GP with one model per objective and constraint
  and expected hypervolume improvement (``GP(objectives="ehvi")``,
  :mod:`treefarm.optimizers.gp_objectives`), and NSGA-II past
  ``handover_after``; with one objective and
  constraints, or three or more objectives, the GP on each trial's place in
  the Pareto order, as on conditional spaces.
- **Only choices** (every decision a choice, no join, no number): as with
  choices or joins below, but the GP's kernel has one length scale per choice
  rather than one per option (``GP(choice_scales="auto")``: a Hamming distance
  weighted per decision, as Optuna's GP and COMBO read a choice; the design
  page ``docs/design/choices.md``).
- **Only two-option choices** (every decision a choice between two options,
  yes/no decisions): the GP alone, its length scale per choice counted in
  units of :data:`BINARY_SCALE`; on the binary held-out problems that reached
  Optuna's GP where neither part alone did (``docs/design/choices.md``).
- **With choices or joins** (conditional spaces): the GP, with every
  ``tpe_every``-th trial TPE's and, while the search is stalled (no
  improvement larger than 1e-3 of the losses' raw range for ``patience``
  evaluations, :func:`treefarm.optimizers.gp.evaluations_since_improvement`),
  every ``stalled_tpe_every``-th as well; past its ``full_until`` trials
  the GP sees a bounded subset of them (:mod:`treefarm.bo.subset`). TPE's density ratio, fitted on the
  same history, proposes from the good region as a whole rather than from the
  acquisition's one peak, so an option or branch the GP has written off is
  visited again (SMAC interleaves random configurations for the same reason,
  Hutter, Hoos & Leyton-Brown 2011). A stalled TPE turn first evaluates an
  untried option swap of the incumbent (its settings on another option of a
  join, :func:`treefarm.optimizers.gp.incumbent_swaps`, as the GP's own
  explores do): TPE's good region holds the incumbent's branch only.
- **Recursive**: grammar search (:mod:`treefarm.optimizers.grammar`)
  proposes every trial.
- **With fidelities** (a non-recursive space, one objective, a history with a
  target fidelity, ``History.max_fidelity``, and values measured below it: a
  budget-setting pruner's curves or a fidelity parameter): the GP across
  fidelities (:class:`treefarm.optimizers.fidelity.FidelityGP`), which learns
  from every reported value and drops the lower rungs when they rank
  configurations unlike the target; with a declared fidelity it also picks
  which paused configuration a rung continues (:meth:`Auto.promotion`, the
  tuned ``promotions``) (the design page ``docs/design/multi-fidelity-model.md``).

Which optimizer makes trial ``t`` depends only on the space, ``t`` (the
number of trials the history holds: complete, failed and pending) and the
completed losses: a resumed study or a second worker reading the same
storage makes the same choice, and the choice, like the optimizers, is a pure
function of the history. The measurements behind each rule are the design
page ``docs/design/auto.md``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence

import numpy as np

from ..exceptions import ConfigError
from ..space import Config, Space, analyze, convert
from ..validation import check_int
from .base import History, Optimizer, variant
from .fidelity import AGREEMENT_FLOOR, FidelityGP, has_low_fidelity
from .gp import GP, STALL_PATIENCE, evaluations_since_improvement, incumbent_swaps
from .gp_parts import only_two_option_choices
from .grammar import GrammarSearch
from .handover import HandOver
from .nsga2 import NSGA2
from .tpe import TPE

__all__ = ["AUTO_TPE", "BINARY_SCALE", "HANDOVER_AFTER", "PROMOTIONS", "TRUST_AFTER", "Auto"]

#: Complete trials after which CMA-ES takes over on a numeric space (a fresh GP suggestion at
#: 1,000 trials takes 2-3 s on one core; the GP's own bound, ``GP(full_until=...)``, is the same).
HANDOVER_AFTER = 1000
#: The tuned settings of ``auto``'s TPE turns (:attr:`TPE.tuned`).
AUTO_TPE: dict[str, object] = {"bounds_as_neighbours": True, "joint_every": None, "rank_weights": 0.0, "always_joint": 0}
#: Complete trials after which the GP on a space of reals (one objective) keeps its acquisition in a
#: trust region around the best trial (:mod:`treefarm.bo.trust`); None: the whole box throughout. Off:
#: judged on the 36 held-out numeric problems by a rule fixed before their runs, its medians were lower
#: (6 beyond noise, 1 higher) but its worst decile higher on 21 of 36 (``docs/design/auto.md``).
TRUST_AFTER: int | None = None
#: Which configuration a rung of a declared fidelity continues: ``"model"``, the paused one of highest
#: expected improvement at the target under the GP across fidelities
#: (:meth:`treefarm.optimizers.fidelity.FidelityGP.promotion`), within ASHA's share of promotions, and
#: ASHA's rule where the model does not propose; or ``"asha"``, the best at the rung (asynchronous
#: successive halving's rule alone). Screened on the design problems of the benchmark's fidelity suite:
#: no loss beyond noise, one win (the design page ``docs/design/multi-fidelity-model.md``).
PROMOTIONS = "model"
#: On a space of two-option choices only, the unit of each choice's length scale in the GP that then
#: proposes every trial (no TPE turns); None: such a space is searched as other spaces of choices.
#: Chosen on the spent binary problems and adopted on three fresh ones by a rule fixed before their
#: runs (bench/notes/choices.md, "Spaces of two-option choices").
BINARY_SCALE: float | None = 2.0


class Auto(Optimizer):
    """The GP on numeric spaces, with TPE's turns among choices; grammar search on recursive spaces (see the module docstring).

    Parameters
    ----------
    gp, tpe:
        The optimizers of flat and conditional spaces (by default
        ``GP(choice_scales="auto")``, one length scale per choice on a space made
        only of choices, alone on numeric spaces, and ``TPE(n_startup=5)`` at the tuned settings
        :data:`AUTO_TPE`: TPE proposes only after the GP's space-filling start, which
        serves as its start-up too; the paper's bandwidths at the bounds, equal weights
        and no joint turns, with which this design was measured, as ``TPE()``'s
        defaults changed after it).
    grammar:
        The optimizer of recursive spaces (by default ``GrammarSearch()``,
        whose own prior draws are the start there).
    front:
        The optimizer of numeric spaces with two objectives (by default
        ``GP(objectives="ehvi")``).
    handover_after:
        On a numeric space with one objective, past this many complete
        trials CMA-ES takes over from the GP, started at the best of them
        (:class:`treefarm.optimizers.handover.HandOver`); with two objectives
        NSGA-II takes over from expected hypervolume improvement (one GP per
        output would grow like n^3 each), its population the archive's best.
        Up to it the suggestions are the GP's. ``None``: the GP throughout.
    fidelity:
        The kernel of the GP across fidelities in a study with fidelities
        (:class:`treefarm.optimizers.fidelity.FidelityGP`, its start-up and
        fallback GP being ``gp``): ``"matern52"`` (default) or
        ``"discrepancy"``; ``None`` learns from final values only, as a study
        without fidelities (a pruned trial counts at its last value).

    Notes
    -----
    Change ``gp``, ``tpe``, ``grammar`` or ``front`` to give ``auto`` a part of
    your own settings (a GP with another acquisition, say), ``handover_after``
    to keep the GP longer (or always) on a numeric space, ``fidelity`` to
    choose how a study with fidelities is modelled.

    The tuned settings (:attr:`Optimizer.tuned`, the benchmark's variants, not
    options): ``patience`` (on a space with choices or joins, evaluations
    without a significant improvement after which the search counts as
    stalled), ``tpe_every`` (trial ``t`` is TPE's when ``t % tpe_every ==
    tpe_every - 1``), ``stalled_tpe_every`` (while stalled, trial ``t`` is TPE's
    when ``t % stalled_tpe_every == 0``), ``stall_scale`` (where an improvement
    is measured: ``"raw"``, the losses' range, or ``"model"``, the GP's warped
    scale) and ``agreement_floor`` (below this rank agreement of the lower
    rungs with the target, :func:`treefarm.optimizers.fidelity.rung_agreement`,
    the model across fidelities drops the lower rungs) and ``trust_after`` (on a
    space of reals with one objective, from this many complete trials on the GP
    maximizes its acquisition in a trust region around the best trial,
    ``GP(trust_after=...)``; :data:`TRUST_AFTER`, off by default) and
    ``promotions`` (which paused configuration a rung of a declared fidelity
    continues: ``"asha"`` or ``"model"``, :data:`PROMOTIONS`) and
    ``binary_scale`` (on a space of two-option choices only, the GP alone with
    each choice's scale in this unit, :data:`BINARY_SCALE`; None: TPE's turns
    and units of 1, as on other spaces of choices).
    """

    searches_recursive = True
    tuned = (
        "patience",
        "tpe_every",
        "stalled_tpe_every",
        "stall_scale",
        "agreement_floor",
        "trust_after",
        "promotions",
        "binary_scale",
    )
    _patience: int = STALL_PATIENCE
    _tpe_every: int = 3
    _stalled_tpe_every: int = 2
    _stall_scale: str = "raw"
    _agreement_floor: float = AGREEMENT_FLOOR
    _trust_after: int | None = TRUST_AFTER
    _promotions: str = PROMOTIONS
    _binary_scale: float | None = BINARY_SCALE

    def __init__(
        self,
        *,
        gp: GP | None = None,
        tpe: TPE | None = None,
        grammar: GrammarSearch | None = None,
        front: GP | None = None,
        handover_after: int | None = HANDOVER_AFTER,
        fidelity: str | None = "matern52",
    ) -> None:
        check_int("handover_after", handover_after, or_none=True)
        self._copies: dict[str, tuple[GP, GP]] = {}
        self.handover_after = handover_after
        self._handover: HandOver | None = None
        self._front_handover = NSGA2()
        self.gp = gp if gp is not None else GP(choice_scales="auto")
        self.tpe = tpe if tpe is not None else variant(TPE, AUTO_TPE, n_startup=5)
        self.grammar = grammar if grammar is not None else GrammarSearch()
        self.front = front if front is not None else GP(objectives="ehvi")
        self.fidelity = fidelity
        self._fidelity = self._across_fidelities()

    def check_tuned(self) -> None:
        super().check_tuned()
        check_int("patience", self._patience)
        check_int("tpe_every", self._tpe_every, minimum=2)
        check_int("stalled_tpe_every", self._stalled_tpe_every)
        if self._stall_scale not in ("raw", "model"):
            raise ConfigError(f"stall_scale must be 'raw' or 'model', but got stall_scale={self._stall_scale!r}")
        check_int("trust_after", self._trust_after, minimum=0, or_none=True)
        if self._promotions not in ("asha", "model"):
            raise ConfigError(f"promotions must be 'asha' or 'model', but got promotions={self._promotions!r}")
        unit = self._binary_scale
        if unit is not None and not (isinstance(unit, (int, float)) and not isinstance(unit, bool) and unit > 0):
            raise ConfigError(f"binary_scale must be a number > 0 or None, but got binary_scale={unit!r}")
        self._fidelity = self._across_fidelities()  # checks agreement_floor

    def _across_fidelities(self) -> FidelityGP:
        """The GP across fidelities at this optimizer's kernel and agreement floor."""
        kernel = self.fidelity if self.fidelity is not None else "matern52"
        return FidelityGP(gp=self.gp, kernel=kernel, agreement_floor=self._agreement_floor)

    @property
    def uses_fidelities(self) -> bool:  # type: ignore[override]
        """Whether the study shows this optimizer every fidelity's evaluations: with its
        model across fidelities (``fidelity`` set); it keeps one fidelity's where the
        model does not propose (a recursive space, several objectives, constraints)."""
        return self.fidelity is not None

    def _numeric_gp(self) -> GP:
        """The GP of numeric spaces: ``gp`` with its trust region after the tuned
        ``trust_after`` trials (``gp`` itself where it is None)."""
        return self.gp if self._trust_after is None else self._gp_with("trust_after", self._trust_after)

    def _binary_gp(self, unit: float) -> GP:
        """The GP of spaces of two-option choices: ``gp`` with its choices' scales in units of
        ``unit`` (the tuned ``binary_scale``)."""
        return self._gp_with("_two_option_scale", unit)

    def _gp_with(self, name: str, value: object) -> GP:
        """A copy of ``gp`` (sharing its fits) with the attribute ``name`` set to ``value``, kept
        while ``gp`` and ``value`` stay the same."""
        kept = self._copies.get(name)
        if kept is None or kept[0] is not self.gp or getattr(kept[1], name) != value:
            copied = copy.copy(self.gp)
            setattr(copied, name, value)
            kept = self._copies[name] = (self.gp, copied)
        return kept[1]

    def proposer(self, t: int, *, recursive: bool, stalled: bool, categorical: bool = False) -> Optimizer:
        """The optimizer that proposes trial ``t`` (``categorical``: the space has choices or joins)."""
        if recursive:
            return self.grammar
        if not categorical:
            return self.gp
        if stalled and t % self._stalled_tpe_every == 0:
            return self.tpe
        return self.tpe if t % self._tpe_every == self._tpe_every - 1 else self.gp

    def suggest(self, space: Space, history: History, n: int, rng: np.random.Generator) -> list[Config]:
        root = convert(space)
        analysis = analyze(root)
        recursive = analysis.recursive
        if self.fidelity is not None and not recursive and _across_fidelities(history):
            return self._fidelity.suggest(root, history, n, rng)
        if any(o.fidelity is not None and not o.curve for o in history.complete):
            history = history.at_one_fidelity()  # evaluations at declared fidelities, not modelled here
        categorical = not recursive and analysis.choices
        if categorical and self._binary_scale is not None and only_two_option_choices(root):
            return self._binary_gp(self._binary_scale).suggest(root, history, n, rng)
        if not (recursive or categorical):
            after = self.handover_after
            past = after is not None and sum(math.isfinite(o.loss) for o in history.complete) > after
            if _two_objectives(history):
                return (self._front_handover if past else self.front).suggest(root, history, n, rng)
            if past and after is not None:
                if self._handover is None or self._handover.after != after:
                    self._handover = HandOver(after)
                return self._handover.suggest(space, history, n, rng)
            return self._numeric_gp().suggest(root, history, n, rng)
        started = stalled = False
        if categorical:
            losses = np.array([o.loss for o in history.complete if math.isfinite(o.loss)])
            started = len(losses) >= max(self.gp.startup(root), self.tpe.n_startup)
            stalled = started and (
                evaluations_since_improvement(losses, warped=self._stall_scale == "model") >= self._patience
            )
        t0 = len(history.complete) + len(history.failed) + len(history.pending)
        out: list[Config] = []
        for i in range(n):
            with_batch = history.with_pending(out)
            optimizer = self.proposer(t0 + i, recursive=recursive, stalled=stalled, categorical=categorical)
            if not (started or recursive):
                # TPE waits for the GP's space-filling start (its own random start would be wasted)
                optimizer = self.gp
            swap = _untried_swap(root, with_batch, rng) if stalled and optimizer is self.tpe else None
            out.extend([swap] if swap is not None else optimizer.suggest(root, with_batch, 1, rng))
        return out

    def promotion(self, space: Space, history: History, paused: Sequence[Config]) -> int | None:
        """The GP across fidelities' pick (tuned ``promotions="model"``), where it proposes
        new configurations too; else None, the rung's own."""
        if self._promotions != "model" or self.fidelity is None:
            return None
        root = convert(space)
        if analyze(root).recursive or not _across_fidelities(history):
            return None
        return self._fidelity.promotion(root, history, paused)

    def recommend(self, space: Space, history: History) -> Config | None:
        """The GP's recommendation, by the GP that proposes on ``space`` (on yes/no decisions, the one
        with longer scales)."""
        root = convert(space)
        if self._binary_scale is not None and not analyze(root).recursive and only_two_option_choices(root):
            return self._binary_gp(self._binary_scale).recommend(root, history)
        return self.gp.recommend(root, history)


def _across_fidelities(history: History) -> bool:
    """Whether the model across fidelities proposes: one objective without
    constraints, a target fidelity and some value measured below it."""
    single = not any(o.losses or o.constraints for o in history.complete)
    return single and has_low_fidelity(history)


def _two_objectives(history: History) -> bool:
    """Whether the history's trials carry two objectives' losses (a study's trials all carry as many)."""
    return any(len(o.losses) == 2 for o in history.complete)


def _untried_swap(root: Space, history: History, rng: np.random.Generator) -> Config | None:
    """The first of the incumbent's option swaps (:func:`treefarm.optimizers.gp.incumbent_swaps`)
    that the history has not seen, for a stalled turn; None without one."""
    complete = [o for o in history.complete if math.isfinite(o.loss)]
    if not complete:
        return None
    configs = [o.config for o in complete]
    seen = history.seen()
    swaps = incumbent_swaps(root, configs, np.array([o.loss for o in complete]), rng)
    return next((c for c in swaps if c not in seen), None)
