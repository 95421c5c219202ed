"""Bayesian optimization with a Gaussian process: the sample-efficient optimizer.

:class:`GP` holds the options and the policy; the model, the acquisitions,
their maximizer and the suggestion loop are the model-based core
(:mod:`treefarm.bo`). One suggestion (Brochu et al. 2010; Snoek et al. 2012):

1. While fewer than ``n_startup`` trials are complete, a space-filling start:
   the points of a scrambled Sobol sequence in the encoded cube (Sobol 1967;
   Owen 1998), in order.
2. Otherwise fit the GP on the encoded completed configurations
   (:func:`treefarm.bo.models.gp.fit_gp`: Matérn-5/2, MAP hyperparameters,
   integers and one-hot groups rounded inside the kernel, Garrido-Merchán
   and Hernández-Lobato 2020), from scratch at the refit points
   (:func:`treefarm.bo.refits.refit_point`) and with the last refit's hyperparameters in
   between, and let :func:`treefarm.bo.loop.suggest_batch` choose the batch
   from candidates: Sobol points (prior draws on a recursive space),
   mutations and crossovers of the best configurations and draws from the
   good hints' windows. The acquisition is log expected improvement by
   default (Jones et al. 1998 for EI; Ament et al. 2023, "Unexpected
   improvements to expected improvement", for its logarithm).

The policy: the stall rule (:func:`evaluations_since_improvement`,
:func:`explores`) lets one stalled suggestion in :data:`EXPLORE_EVERY`
replace a proposal collapsed onto an evaluated point by the incumbent on
another branch (:func:`incumbent_swaps`) or by a Thompson draw (Thompson
1933; Kandasamy et al. 2018); search hints weight the acquisition by their
prior raised to the power beta / n (πBO, Hvarfner et al. 2022); an
observation's own loss variance is its noise on the diagonal. What was
tried, with the figures, is the design page ``docs/design/gp.md``.
Past ``full_until`` complete trials the GP sees a bounded subset of them
(:mod:`treefarm.bo.subset`), so a suggestion's cost stops growing.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ..bo.loop import Rules, suggest_batch
from ..bo.models.threads import one_blas_thread
from ..bo.refits import Refits
from ..bo.subset import SUBSET_SIZE, EncodedRows
from ..bo.views import EncodedView, TreeView, encoded_domain, is_noisy
from ..encoding import TreeColumns, UnitEncoding
from ..exceptions import ConfigError
from ..space import Config, Space, addresses, analyze, convert, sample
from ..validation import check_bool, check_int
from .base import History, Observation, Optimizer
from .gp_objectives import has_several, suggest_several
from .gp_parts import (
    HINT_CANDIDATES,
    Candidates,
    CandidateSet,
    GPParts,
    HintPrior,
    Refitter,
    SpaceEncoding,
    Subset,
    TrustBox,
    kernel_for,
    only_choices,
    region_refused,
    say_region_refused,
    trust_candidates,
)
from .hints import BETA
from .stalls import EXPLORE_EVERY, STALL_IMPROVEMENT, STALL_PATIENCE, evaluations_since_improvement, explores
from .variation import option_swaps

if TYPE_CHECKING:
    from ..bo.acquisition.weighted import LogPrior
    from ..bo.models.domain import Domain
    from ..bo.models.gp import GaussianProcess, Kernel
    from ..bo.protocols import Acquisition, Model
    from ..bo.views import View

__all__ = [
    "EXPLORE_EVERY",
    "GP",
    "HINT_CANDIDATES",
    "STALL_IMPROVEMENT",
    "STALL_PATIENCE",
    "evaluations_since_improvement",
    "explores",
]

_ACQUISITIONS = ("ei", "logei", "pi", "logpi", "ucb", "ts", "mes")
_HINT_PRIORS = ("judged", "plain", "off")
_OBJECTIVES = ("rank", "ehvi")
_CHOICE_SCALES = ("option", "decision", "auto")

#: Acquisitions whose value at a point depends only on its distances to the
#: observed and placed rows (not on the encoding's width, as UCB's schedule
#: does, nor on other candidates, as MES's and Thompson's): on trees they are
#: computed on narrowed columns (:class:`treefarm.bo.views.TreeView`).
NARROWABLE = frozenset({"ei", "logei", "pi", "logpi"})
#: Up to this many complete trials the GP is fitted on all of them (a fresh suggestion at 1,000
#: trials takes 2-3 s on one core); beyond, on ``subset_size`` of them (:mod:`treefarm.bo.subset`).
FULL_UNTIL = 1000


def startup_size(n_decisions: int) -> int:
    """Trials in the space-filling start: one more than the number of
    decisions, at least 5 and at most 20 (a model needs about ``d + 1``
    points to say anything about ``d`` length scales)."""
    return int(min(max(5, n_decisions + 1), 20))


class GP(Optimizer):
    """Gaussian-process Bayesian optimization (see the module docstring and
    the design page ``docs/design/gp.md``).

    Parameters
    ----------
    acquisition:
        ``"logei"`` (default; log expected improvement, stable where EI
        underflows), ``"ei"``, ``"pi"``, ``"logpi"``, ``"ucb"`` (a lower
        confidence bound on the loss with the GP-UCB schedule), ``"ts"``
        (Thompson sampling on the candidates) or ``"mes"`` (max-value
        entropy search). Change it to reproduce a published method or to
        explore more (``"ucb"``, ``"ts"``) where log-EI settles early.
    kernel:
        ``"matern52"`` (default) or ``"rbf"``: ``"rbf"`` when the objective is
        known to be very smooth (infinitely differentiable).
    n_startup:
        Trials of the space-filling start; by default :func:`startup_size`
        of the number of decisions (10 for a recursive space). Raise it when
        the first trials say little (a rugged objective), lower it when every
        evaluation counts and the objective is smooth.
    deterministic:
        The objective has no noise (the same configuration always gives the
        same value): the GP's noise is fixed at its floor and the best observed
        configuration is the recommendation.
    n_candidates, n_local, n_starts:
        Prior draws and neighbours of the best configurations scored per
        suggestion, and how many of the best go on to the gradient step:
        the effort of a suggestion. Lower them when an evaluation costs
        seconds and the suggestion's own time matters; raise them on a space
        of many decisions.
    heteroscedastic:
        Model each observation's ``loss_variance`` (an objective's reported
        spread, as cross-validation folds give) as its own noise; ``False``
        ignores the variances.
    objectives:
        With several objectives or constraints: ``"rank"`` (default; one GP
        on each trial's place in the Pareto order, the cheaper) or ``"ehvi"``
        (one GP per objective and per constraint, expected hypervolume
        improvement times the probability of feasibility, ParEGO beyond two
        objectives: :mod:`treefarm.optimizers.gp_objectives`; ``acquisition``
        and the stall rule then apply to single-objective studies only), which
        spreads the front better on two objectives (``auto`` takes it there).
    full_until:
        Up to this many complete trials the GP is fitted on all of them; past
        it, on a bounded subset chosen from the history
        (:func:`treefarm.bo.subset.bounded_rows`: the best, the incumbent's
        neighbours and a spread of the rest), which bounds the cost of a
        suggestion; with several objectives (``"ehvi"``) every output's model
        sees that subset, the best being the first in the Pareto order.
        ``None`` always fits on all (the cost grows like n^3): for a long
        study whose evaluations cost far more than a suggestion.
    subset_size:
        The observations in that subset (the cost past ``full_until`` grows
        like its square and cube, no longer with the history).
    choice_scales:
        The kernel's length scales over a choice's one-hot columns on a
        non-recursive space: ``"option"`` (default; one per option),
        ``"decision"`` (one per choice, shared by its options: a Hamming
        distance weighted per decision, :class:`treefarm.bo.models.gp.Stationary`)
        or ``"auto"`` (``"decision"`` on a space made only of choices, no number
        and no join; ``"option"`` elsewhere), which ``algo="auto"`` uses.

    trust_after:
        On a space of reals only, with one objective: once this many trials
        are complete (and the space-filling start is), each suggestion
        maximizes the acquisition in a trust region around the best trial,
        shaped by the GP's length scales, that grows on successes and shrinks
        on failures (TuRBO's rules, :mod:`treefarm.bo.trust`); the suggestion
        after a restart of the region is the GP's global one. ``None``
        (default): the whole space throughout.
    Notes
    -----
    The tuned settings (:attr:`Optimizer.tuned`, the benchmark's variants, not
    options): ``explore_stalls`` (the stall rule: a stalled suggestion may
    become a Thompson draw over the space-covering candidates,
    :func:`treefarm.bo.loop.thompson_explore`), ``explore_every`` (while stalled,
    one suggestion in this many may explore, :func:`explores`), ``output``
    (:func:`treefarm.bo.models.gp.fit_gp`'s transform: ``"auto"`` fits the warp
    and plain standardization at each refit and keeps the one whose
    leave-one-out means order the better half of the trials best; ``"warp"``,
    ``"standard"``), ``hint_prior`` (πBO's weighing of search hints,
    :mod:`treefarm.optimizers.hints.pibo`: ``"judged"``, each hint's credibility
    judged by the trials in its window and squared; ``"plain"``, as given;
    ``"off"``), ``prior_beta`` (πBO's beta: the prior's power is
    ``prior_beta / n`` after ``n`` observations), ``hint_draws`` (some
    suggestions replaced by draws from the good hints' windows,
    :func:`treefarm.optimizers.hints.apply_hints`) and ``ehvi_exact`` (with
    ``objectives="ehvi"``, the most objectives scored by the closed form before
    ParEGO; 3 was lower than ParEGO on DTLZ2 when measured) and
    ``two_option_scale`` (with one length scale per choice, the unit a
    two-option choice's is counted in: 1 here, 2 where ``algo="auto"`` proposes
    on a space of two-option choices, :data:`treefarm.optimizers.auto.BINARY_SCALE`).
    """

    searches_recursive = True
    tuned = (
        "explore_stalls", "explore_every", "output", "hint_prior", "prior_beta", "hint_draws", "ehvi_exact",
        "two_option_scale",
    )
    _explore_stalls: bool = True
    _explore_every: int = EXPLORE_EVERY
    _output: str = "auto"
    _hint_prior: str = "judged"
    _prior_beta: float = BETA
    _hint_draws: bool = True
    _ehvi_exact: int = 2
    _two_option_scale: float = 1.0

    def __init__(
        self,
        *,
        acquisition: str = "logei",
        kernel: str = "matern52",
        n_startup: int | None = None,
        deterministic: bool = False,
        n_candidates: int = 512,
        n_local: int = 256,
        n_starts: int = 8,
        heteroscedastic: bool = True,
        objectives: str = "rank",
        full_until: int | None = FULL_UNTIL,
        subset_size: int = SUBSET_SIZE,
        choice_scales: str = "option",
        trust_after: int | None = None,
    ) -> None:
        if acquisition not in _ACQUISITIONS:
            raise ConfigError(
                f"acquisition must be one of {_ACQUISITIONS}, but got acquisition={acquisition!r}"
            )
        if kernel not in ("matern52", "rbf"):
            raise ConfigError(f"kernel must be 'matern52' or 'rbf', but got kernel={kernel!r}")
        for name, value in (("n_candidates", n_candidates), ("n_local", n_local), ("n_starts", n_starts)):
            check_int(name, value)
        if n_startup is not None:
            check_int("n_startup", n_startup)
        check_bool("deterministic", deterministic)
        check_int("full_until", full_until, or_none=True)
        check_int("subset_size", subset_size, minimum=4)
        if choice_scales not in _CHOICE_SCALES:
            raise ConfigError(f"choice_scales must be one of {_CHOICE_SCALES}, but got choice_scales={choice_scales!r}")
        check_int("trust_after", trust_after, minimum=0, or_none=True)
        check_bool("heteroscedastic", heteroscedastic)
        if objectives not in _OBJECTIVES:
            raise ConfigError(f"objectives must be one of {_OBJECTIVES}, but got objectives={objectives!r}")
        self.acquisition = acquisition
        self.kernel = kernel
        self.n_startup = n_startup
        self.deterministic = deterministic
        self.n_candidates = n_candidates
        self.n_local = n_local
        self.n_starts = n_starts
        self.heteroscedastic = heteroscedastic
        self.objectives = objectives
        self.full_until = full_until
        self.subset_size = subset_size
        self.choice_scales = choice_scales
        self.trust_after = trust_after
        self._refits = Refits()
        self._output_refits = Refits()
        self._rows = EncodedRows()
        self._said_no_region: set[str] = set()

    def check_tuned(self) -> None:
        super().check_tuned()
        from ..bo.models.gp.fit import OUTPUTS

        check_bool("explore_stalls", self._explore_stalls)
        check_int("explore_every", self._explore_every)
        check_bool("hint_draws", self._hint_draws)
        if self._ehvi_exact not in (2, 3):
            raise ConfigError(f"ehvi_exact must be 2 or 3, but got ehvi_exact={self._ehvi_exact!r}")
        if self._output not in OUTPUTS:
            raise ConfigError(f"output must be one of {OUTPUTS}, but got output={self._output!r}")
        if self._hint_prior not in _HINT_PRIORS:
            raise ConfigError(f"hint_prior must be one of {_HINT_PRIORS}, but got hint_prior={self._hint_prior!r}")
        beta = self._prior_beta
        if not (isinstance(beta, (int, float)) and math.isfinite(beta) and beta >= 0):
            raise ConfigError(f"prior_beta must be a finite number >= 0, but got prior_beta={beta!r}")
        unit = self._two_option_scale
        if not (isinstance(unit, (int, float)) and not isinstance(unit, bool) and math.isfinite(unit) and unit > 0):
            raise ConfigError(f"two_option_scale must be a finite number > 0, but got two_option_scale={unit!r}")

    @property
    def hint_draws(self) -> bool:  # type: ignore[override]
        """Whether the study replaces some suggestions by draws from the good hints' windows (tuned)."""
        return self._hint_draws

    @property
    def output(self) -> str:
        """The output transform the GP is fitted with (tuned; see the class docstring)."""
        return self._output

    def suggest(self, space: Space, history: History, n: int, rng: np.random.Generator) -> list[Config]:
        root = convert(space)
        recursive = analyze(root).recursive
        complete = [o for o in history.complete if math.isfinite(o.loss)]
        modelled, several = len(complete) >= self.startup(root), has_several(complete)
        if modelled and several and self.trust_after is not None:  # a trust region on one loss only
            say_region_refused(self.trust_after, "the trials carry several objectives", self._said_no_region)
        if modelled and self.objectives == "ehvi" and several:
            parts = self.parts(root, recursive, self._output_refits)
            with one_blas_thread():
                return suggest_several(
                    parts,
                    complete,
                    history,
                    n,
                    rng,
                    exact=self._ehvi_exact,
                    draw_unseen=lambda seen: _unseen_draw(root, seen, rng),
                )
        if modelled:
            configs = [o.config for o in complete]
            losses = np.array([o.loss for o in complete])
            y_var = self._y_var(complete)
            with one_blas_thread():  # a trust region on one loss, not on Pareto ranks
                return self._model_points(root, recursive, configs, losses, y_var, history, n, rng, trust=not several)
        out: list[Config] = []
        for _ in range(n):
            taken = [*(o.config for o in complete), *history.failed, *history.pending, *out]
            out.append(self._design_point(root, recursive, taken, history.seen() | set(out), rng))
        return out

    def _y_var(self, complete: Sequence[Observation]) -> np.ndarray | None:
        """The observations' loss variances (n,), or None when the option is off
        or none is positive (the homoscedastic model, unchanged)."""
        y_var = np.array([o.loss_variance for o in complete], dtype=float)
        return y_var if self.heteroscedastic and np.any(y_var > 0.0) else None

    def startup(self, space: Space) -> int:
        """Complete trials of the space-filling start: ``n_startup``, or
        :func:`startup_size` of the decisions (10 for a recursive space)."""
        root = convert(space)
        if self.n_startup is not None:
            return self.n_startup
        return 10 if analyze(root).recursive else startup_size(len(addresses(root)))

    def parts(self, space: Space, recursive: bool | None = None, refits: Refits | None = None) -> GPParts:
        """This GP's collaborators for one suggestion on ``space`` (:mod:`treefarm.optimizers.gp_parts`),
        built from its options; ``recursive`` when known (else analyzed); the fits are
        kept in ``refits`` (by default, the single loss's)."""
        root = convert(space)
        recursive = analyze(root).recursive if recursive is None else recursive
        encoding = SpaceEncoding.of(root, recursive)
        kernel = self._kernel(encoding.flat)
        return GPParts(
            encoding=encoding,
            candidates=Candidates(self.n_candidates, self.n_local, hinted=self._hint_prior != "off"),
            subset=Subset(self.full_until, self.subset_size, self._rows),
            hint_prior=HintPrior(self._hint_prior, self.acquisition),
            refitter=Refitter(encoding, kernel, self.kernel, self.deterministic, self.output, refits or self._refits),
            n_starts=self.n_starts,
            prior_beta=self._prior_beta,
        )

    def recommend(self, space: Space, history: History) -> Config | None:
        """The evaluated configuration with the lowest posterior mean when the
        fitted noise is significant (the best-mean recommendation for noisy
        objectives, Picheny et al. 2013); ``None`` (the best observed) otherwise.
        Past ``full_until`` trials, among and from the bounded subset (:class:`~.gp_parts.Subset`)."""
        root = convert(space)
        complete = [o for o in history.complete if math.isfinite(o.loss)]
        if self.deterministic or len(complete) < 3:
            return None
        parts = self.parts(root, analyze(root).recursive)
        keep = parts.subset.keep(parts.encoding, [o.config for o in complete], np.array([o.loss for o in complete]))
        complete = complete if keep is None else [complete[i] for i in keep]
        configs = [o.config for o in complete]
        with one_blas_thread():
            X, model = self._fit_all(root, complete, parts.encoding.for_configs(configs))
            if not is_noisy(model):
                return None
            return configs[int(np.argmin(model.predict(X)[0]))]

    def posterior_slice(
        self, space: Space, history: History, address: str, at: Config, *, n_grid: int = 50
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The GP's posterior along one numeric parameter, the others fixed at
        ``at`` (the 1-D posterior plot): grid values of
        ``address`` (n_grid,), posterior mean and standard deviation there,
        on the model's standardized scale (lower is better)."""
        from ..encoding import numeric_value

        root = convert(space)
        complete = [o for o in history.complete if math.isfinite(o.loss)]
        encoding = SpaceEncoding.of(root, analyze(root).recursive).for_configs([o.config for o in complete] + [at])
        if address not in encoding.start or encoding.columns[encoding.start[address]].option is not None:
            raise ConfigError(
                f"address must name a numeric parameter of the space, but got address={address!r}"
            )
        column = encoding.start[address]
        node = encoding.columns[column].node
        grid = np.linspace(0.0, 1.0, n_grid)
        with one_blas_thread():
            _, model = self._fit_all(root, complete, encoding)
            mean, std = model.slice_1d(encoding.encode([at])[0][0], column, grid)
        return np.array([numeric_value(node, u) for u in grid], dtype=float), mean, std  # type: ignore[arg-type]

    def _kernel(self, flat: UnitEncoding | None) -> Kernel:
        """The kernel on a space's flat encoding (``None``: a recursive space's)."""
        tie = self.choice_scales == "decision" or (self.choice_scales == "auto" and only_choices(flat))
        return kernel_for(self.kernel, flat, tie, self._two_option_scale)

    def _fit_all(
        self, root: Space, complete: Sequence[Observation], encoding: UnitEncoding
    ) -> tuple[np.ndarray, GaussianProcess]:
        """The encoded complete trials (n, d) and the GP fitted on all of them
        from scratch (restarts seeded by 0), for the recommendation and the plots."""
        from ..bo.models.gp import fit_gp

        X, _ = encoding.encode([o.config for o in complete])
        model = fit_gp(
            X,
            np.array([o.loss for o in complete]),
            encoded_domain(encoding),
            kernel=self._kernel(None if analyze(root).recursive else encoding),
            y_var=self._y_var(complete),
            output=self.output,
            rng=np.random.default_rng(0),
        )
        return X, model

    def _design_point(
        self, root: Space, recursive: bool, taken: list[Config], seen: set[Config], rng: np.random.Generator
    ) -> Config:
        """The next point of the start: the first unseen point, from position
        ``len(taken)`` on, of a scrambled Sobol sequence in the encoded cube
        whose scrambling seed is a function of the history (the smallest
        configuration's JSON), so every worker and every resumed run walks
        the same sequence. The very first point, and every point of a
        recursive space, is a prior draw."""
        if recursive or not taken:
            return _unseen_draw(root, seen, rng)
        from ..bo.maximize import sobol_candidates

        encoding = UnitEncoding(root)
        key = min(c.to_json() for c in taken)
        seed = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little")
        points = sobol_candidates(
            encoding.dim, 2 ** max(5, math.ceil(math.log2(len(taken) + 32))), np.random.default_rng(seed)
        )
        for x in points[len(taken) :]:
            config = encoding.decode(x)
            if config not in seen:
                return config
        return _unseen_draw(root, seen, rng)

    def _model_points(
        self,
        root: Space,
        recursive: bool,
        configs: list[Config],
        losses: np.ndarray,
        y_var: np.ndarray | None,
        history: History,
        n: int,
        rng: np.random.Generator,
        *,
        trust: bool = False,
    ) -> list[Config]:
        """``n`` points from one fit (:func:`treefarm.bo.loop.suggest_batch`), in the
        trust region's box when ``trust`` and one applies (:meth:`_trust_box`)."""
        parts = self.parts(root, recursive)
        region = self._trust_box(root, parts, configs, losses, y_var) if trust else None
        if region is None:
            candidates = parts.candidates.draw(parts.encoding, configs, losses, history.hints, rng)
        else:
            candidates = trust_candidates(parts, region, self.n_candidates, self.n_local, rng)
        view, log_prior = self._view(parts, configs, losses, y_var, history, candidates)
        rules = self._rules(root, recursive, configs, losses, len(history.pending), log_prior, rng)
        if region is not None:
            rules = replace(rules, box=(region.lower, region.upper), explores=lambda i: False)
        return suggest_batch(view, rules, n, history.seen(), rng)

    def _trust_box(
        self, root: Space, parts: GPParts, configs: list[Config], losses: np.ndarray, y_var: np.ndarray | None
    ) -> TrustBox | None:
        """The trust region's box around the best trial (:mod:`treefarm.bo.trust`), or None: no ``trust_after``,
        too few trials, a space with other than reals (said once), or a region that restarted at the last trial."""
        from ..bo.trust import box, replay

        flat = parts.encoding.flat
        if self.trust_after is None:
            return None
        refused = region_refused(flat)
        if refused is not None:
            say_region_refused(self.trust_after, refused, self._said_no_region)
            return None
        assert flat is not None  # region_refused names a recursive space, the one without a flat encoding
        start = max(self.trust_after, self.startup(root))
        if len(losses) < start:
            return None
        region = replay(losses, start, flat.dim)
        if region.restarted:
            return None
        keep = parts.subset.keep(parts.encoding, configs, losses)
        params, _ = parts.fitted(configs, losses, y_var, flat, bounded=keep is not None)
        center = flat.encode([configs[int(np.argmin(losses))]])[0][0]
        lower, upper = box(center, np.exp(params.theta[-flat.dim :]), region.length)
        return TrustBox(lower, upper, center)

    def _view(
        self,
        parts: GPParts,
        configs: list[Config],
        losses: np.ndarray,
        y_var: np.ndarray | None,
        history: History,
        candidates: CandidateSet,
    ) -> tuple[View, LogPrior | None]:
        """The suggestion's view and the hints' log prior over it: narrowed tree
        columns for a recursive space whose acquisition depends only on distances
        (:data:`NARROWABLE`) and that no hint weighs on, else one encoding of every row."""
        from ..bo.models.gp import gp_with_params

        space, pending, kernel = parts.encoding, list(history.pending), parts.refitter.kernel
        full = (configs, losses, y_var)
        keep = parts.subset.keep(space, configs, losses)
        if keep is not None:
            configs, losses = [configs[i] for i in keep], losses[keep]
            y_var = None if y_var is None else y_var[keep]
        rows = [*configs, *pending, *candidates.configs]
        narrowed = space.recursive and self.acquisition in NARROWABLE and not parts.hint_prior.weighs(history.hints)
        trees = TreeColumns(space.root, rows) if narrowed else None
        encoding = trees.encoding(configs) if trees is not None else space.for_configs(rows)
        fitted = parts.fitted(*full, encoding, bounded=keep is not None)

        def model_on(X: np.ndarray, domain: Domain) -> Model:
            return gp_with_params(X, losses, domain, *fitted, kernel=kernel, y_var=y_var)

        if trees is not None:
            return TreeView(trees, configs, pending, candidates.configs, candidates.n_cover, model_on), None
        view = EncodedView(encoding, configs, pending, candidates.configs, candidates.n_cover, model_on)
        return view, parts.hint_prior.log_prior(encoding, history.hints, configs, losses)

    def _rules(
        self,
        root: Space,
        recursive: bool,
        configs: list[Config],
        losses: np.ndarray,
        n_pending: int,
        log_prior: LogPrior | None,
        rng: np.random.Generator,
    ) -> Rules:
        """The GP's policy in the loop: its acquisition (weighted by the hints'
        prior, πBO), the stall rule, the incumbent's swaps and unseen draws."""
        from ..bo.acquisition import LOG_ACQUISITIONS, PriorWeighted, make_acquisition

        # the history part of the stall test, once per suggestion: it fits the warp
        # pending trials count as suggestions made since: k workers at one history explore one in three
        since = evaluations_since_improvement(losses) + n_pending if self._explore_stalls else 0

        def acquire(model: Model, best: float, Xc: np.ndarray) -> Acquisition:
            acq = make_acquisition(
                self.acquisition, model, best=best, n_observed=len(losses), rng=rng, candidates=Xc
            )
            if log_prior is None:
                return acq
            gamma = self._prior_beta / len(losses)
            return PriorWeighted(acq, log_prior, gamma, log_space=self.acquisition in LOG_ACQUISITIONS)

        return Rules(
            acquire=acquire,
            n_starts=self.n_starts,
            candidates_only=self.acquisition == "ts",
            explores=lambda i: self._explore_stalls and explores(since + i, self._explore_every),
            swaps=lambda: [] if recursive else incumbent_swaps(root, configs, losses, rng),
            draw_unseen=lambda seen: _unseen_draw(root, seen, rng),
        )


def incumbent_swaps(
    root: Space, configs: Sequence[Config], losses: np.ndarray, rng: np.random.Generator
) -> list[Config]:
    """The best configuration on each other option of each join it visits
    (:func:`treefarm.optimizers.variation.option_swaps`), the other trials,
    best first, lending the decisions a new branch needs; none without joins."""
    ranked = [configs[i] for i in np.argsort(losses, kind="stable")]
    return option_swaps(root, ranked[0], ranked[1:], rng)


def _unseen_draw(root: Space, seen: set[Config], rng: np.random.Generator) -> Config:
    """A prior draw not seen yet, if one of a few is (the space may be exhausted)."""
    draws = sample(root, rng, n=32)
    return next((c for c in draws if c not in seen), draws[0])
