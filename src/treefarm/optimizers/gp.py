"""Bayesian optimization with a Gaussian process: the sample-efficient optimizer.

One suggestion (Brochu et al. 2010; Snoek et al. 2012; seeds/004):

1. While fewer than ``n_startup`` trials are complete, a space-filling start:
   the points of a scrambled Sobol sequence in the encoded cube, in order
   (a maximin choice among random draws was tried first: it puts every point
   on the boundary, and a symmetric objective then looks flat to the model).
2. Otherwise encode the completed configurations (:class:`UnitEncoding`),
   fit the GP (:func:`treefarm.bo.models.gp.fit_gp`: Matérn-5/2 ARD, MAP
   hyperparameters, integers and one-hot groups rounded inside the kernel),
   condition it on the pending configurations at their posterior mean (the
   kriging believer of seeds/004, so parallel workers diverge), and maximize
   the acquisition (log-EI by default) from candidates: prior draws plus
   mutations and crossovers of the best configurations
   (:mod:`treefarm.optimizers.candidates`), refined by L-BFGS-B over their
   active continuous columns and a local search over integer levels and
   options (:func:`treefarm.bo.maximize.maximize`).

Conditional spaces: an inactive column holds a constant outside [0, 1]
(:data:`treefarm.encoding.INACTIVE`), so two configurations that differ in
which branch is taken are far apart in the kernel, while two that take the
same branch are compared on the columns they share (Lévesque et al. 2017).

Recursive spaces (grammars): the columns are the addresses that the observed
and candidate derivation trees use, so the same kernel compares two trees
position by position, an address present in only one of them counting as a
large difference. Structure moves come only from the candidates (a tree
changes by mutation, crossover or a fresh prior draw); the continuous
refinement then tunes the numbers inside the chosen tree. The candidates are
scored on the columns of the observed and pending trees plus one column that
stands for all the others (:mod:`treefarm.encoding.trees`; the same
distances, so the same acquisition values), and only the best-scoring ones
get their own columns (:mod:`treefarm.optimizers.gp_trees`): the prior draws alone bring
thousands of addresses no observation has.

The kernel on those columns has one shared length scale. An ARD scale per
column, tried first, has more hyperparameters than there are observations
(most columns are inactive in most trees), and with it the GP did not
improve on its random start on a small integer-sum grammar within 25
evaluations. With the shared scale, best forecast RMSE on the kernel-search
grammar at 60 evaluations, 3 seeds: 2.33/3.12/1.37 (random 3.43/3.48/3.13,
TPE 3.58/3.48/3.20).
Tree kernels (Weisfeiler-Lehman features) and the thesis's level-by-level
choice of join options are the untried alternatives.

Refits (seeds/004's "refit every k trials"): the hyperparameters are fitted
from scratch, with restarts, at every refit point, and in between the GP is
conditioned on all observations with the last refit point's hyperparameters
and output transform (one Cholesky, no optimization). The refit points are every trial up to
:data:`REFIT_ALL` trials, then every ``s`` trials with ``s`` doubling as the
history doubles, about a tenth of it (:func:`refit_point`). The fit at a refit
point ``m`` is a pure function of the first ``m`` complete trials (its
restarts are seeded by their hash), so caching it changes no result: a
resumed or parallel run that misses the cache recomputes the same
hyperparameters. 100 observations in 6 dimensions: ~70 ms CPU for a fit from
scratch every 8 trials, ~2 ms for the Cholesky otherwise.

Stalls (the GP that notices it is stuck): on a multimodal objective log-EI
can collapse onto the incumbent's basin, proposing ever smaller refinements
of it while better basins go unvisited. A suggestion counts as stalled when
the best loss has not improved by more than :data:`STALL_IMPROVEMENT` of the
losses' range on the model's (warped) scale for :data:`STALL_PATIENCE`
evaluations *and* the acquisition's
maximizer lies within :data:`STALL_DISTANCE` of an evaluated point
(:func:`collapsed`). A suggestion made 10, 13, 16, ... evaluations after
the last improvement (one in :data:`EXPLORE_EVERY` from :data:`STALL_PATIENCE`
on, :func:`explores`; pending trials and earlier points of the batch count
as evaluations made) is then, if its proposal collapsed, a Thompson draw
(Thompson 1933; Kandasamy et al. 2018) over the space-covering candidates
only, never the incumbent's neighbours: one joint posterior sample picks the
point it believes best, which lands in an unexplored basin as often as the
model's uncertainty allows (the explore step of a trust-region restart,
Eriksson et al. 2019, TuRBO, without its local state). The suggestions in
between keep log-EI's proposal: a stalled search cannot tell a local basin
from the global one, and replacing every collapsed proposal stopped the
refinement of the right one (Branin's regret stayed at 2.5e-4 where the
refined runs reach 1e-6). Measured (bench/RESULTS.md, "The GP's stall rule,
rate-limited"; 18 problems, 10 seeds, median regret at 100): exploring on one
stalled suggestion in 3 had a lower median than exploring on every one on 15,
lower beyond noise on 6 (Branin 7.8e-7 against 2.5e-4, BBOB f10 1.7 against
6.2), higher beyond noise on none; never exploring was worse beyond noise on
Branin and BBOB f7 and by median where a basin must be left (f22 0.13 against
0.007). Both conditions are functions of the history,
so a resumed study stalls where the first one did.

On a space with joins an explore first asks what the model cannot: the
incumbent's settings on each other option of each join it visits
(:func:`treefarm.optimizers.candidates.option_swaps`; the decisions only the
new branch has come from the best trial that took it), the swap with the
highest acquisition first, each at most once; a Thompson draw once none is
left. The branches' columns are apart in the kernel (inactive ones far
outside the cube), so a branch tried early at poor shared settings looks bad
everywhere: on the Quickstart (seeds 0-9, 100 trials) the GP stayed on SGD
in 3 of 10 runs; with the swaps in none (bench/RESULTS.md, "Stalled on one
branch").

Output transform: the warp of :mod:`treefarm.bo.models.gp.transform` (for
heavy tails: a diverged training run) bends a smooth objective with a large
range, such as an ill-conditioned quadratic, into a plateau with a dip, and
the model then finds unexplored corners as promising as the valley. At each
refit both the warp and plain standardization are fitted, and the model whose
leave-one-out means order the better half of the trials best is kept
(:func:`treefarm.bo.models.gp.loo_rank`); ``output="warp"`` is the previous
behaviour. Measured in bench/RESULTS.md ("Output transform by leave-one-out
ranking").

Heteroscedastic noise: an observation that says how precise its loss is
(:attr:`Observation.loss_variance`, e.g. a mean over k folds with spread s:
s^2 / k) gets that variance on its diagonal, on top of the fitted noise
(:func:`treefarm.bo.models.gp.fit_gp`'s ``y_var``), so a trial whose folds
disagree pulls the posterior less than one whose folds agree, and the
incumbent is then the best posterior mean. With every variance 0 (no trial
has folds) the model and the suggestions are exactly the homoscedastic ones.

Batches of ``n`` are chosen one at a time, each conditioning the model on the
previous ones at their posterior mean. A configuration already evaluated,
failed or pending is never suggested while an unseen candidate remains.

Search hints (:mod:`treefarm.optimizers.hints`): the acquisition is weighted
by the hints' prior raised to the power beta / n (πBO, Hvarfner et al. 2022;
:mod:`treefarm.optimizers.hint_prior`), and draws from the good hints'
windows join the candidates, so the acquisition optimizer starts inside
them; the study's window draws (:func:`treefarm.optimizers.hints.apply_hints`)
stay on unless ``hint_draws=False``. A hint of credibility 0 changes neither.
Measured (bench/RESULTS.md, "Search hints with the GP"): draws only, πBO only
and both, 3 seeds on Hartmann-6 and Styblinski-Tang-8, πBO only best in 3 of
4 cells, too few seeds to change the default. With the stall rule exploring on
every stalled suggestion a hinted run's refinement was cut short once the hint
had brought it near the optimum; rate-limited, the refinement goes on ("Hints
and warm starts with the rate-limited stall rule").
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..bo.models.threads import one_blas_thread
from ..encoding import UnitEncoding
from ..exceptions import ConfigError
from ..space import Config, Join, Space, addresses, analyze, convert, sample
from .base import History, Observation, Optimizer
from .candidates import neighbours, option_swaps
from .hint_prior import BETA, hint_log_density, hint_windows
from .hints import Hint, hint_draw
from .options import check_bool, check_int

__all__ = ["GP"]

#: Fitted noise variance (on the model's standardized scale) above which an
#: objective counts as noisy: about 3% of the observed spread in standard
#: deviation, where a single lucky observation starts to mislead.
NOISY = 1e-3

#: Up to this many complete trials the hyperparameters are refitted for every suggestion.
REFIT_ALL = 20
#: Scratch fits kept per optimizer (a study needs one; a few serve interleaved studies).
_CACHED_FITS = 8

_ACQUISITIONS = ("ei", "logei", "pi", "logpi", "ucb", "ts", "mes")
_HINT_PRIORS = ("judged", "plain", "off")
#: Candidates drawn from the good hints' windows per suggestion (split between the hints).
HINT_CANDIDATES = 64

#: Evaluations without a significant improvement before a collapsed acquisition counts as a stall
#: (ten: the issue's stuck runs proposed nothing better for 50).
STALL_PATIENCE = 10
#: An improvement smaller than this fraction of the losses' range (max - min) is not one.
STALL_IMPROVEMENT = 1e-3
#: While stalled, one suggestion in this many explores; the others keep refining the incumbent.
EXPLORE_EVERY = 3
#: Acquisitions whose value at a point depends only on its distances to the
#: observed and placed rows (not on the encoding's width, as UCB's schedule
#: does, nor on other candidates, as MES's and Thompson's): on trees they are
#: computed on narrowed columns (:mod:`treefarm.optimizers.gp_trees`).
NARROWABLE = frozenset({"ei", "logei", "pi", "logpi"})
#: A proposal this close to an evaluated point (root-mean-square over the encoded columns) has
#: collapsed onto it: 1% of the unit cube's side.
STALL_DISTANCE = 1e-2


def evaluations_since_improvement(
    losses: np.ndarray, *, relative: float = STALL_IMPROVEMENT, warped: bool = True
) -> int:
    """How many of the last losses (n,) came after the last significant
    improvement of the best: one that lowers the running best by more than
    ``relative`` times the range of the losses, on the model's scale (the
    warp of :mod:`treefarm.bo.models.gp.transform`, fitted on all of them) or,
    with ``warped=False``, on the raw scale. On the raw scale one diverged
    evaluation sets the range, and on a heavy-tailed objective (an
    ill-conditioned quadratic spans 1e7) every later refinement counts as no
    improvement at all, so the GP's stall rule uses the model's scale."""
    from ..bo.models.gp.transform import OutputTransform

    if len(losses) == 0:
        return 0
    t = OutputTransform.fit(losses)(losses) if warped else np.asarray(losses, dtype=float)
    threshold = relative * float(np.ptp(t))
    last, best = 0, math.inf
    for i, y in enumerate(t):
        if y < best - threshold:
            last, best = i, float(y)
    return len(losses) - 1 - last


def explores(since: int, every: int = EXPLORE_EVERY, *, patience: int = STALL_PATIENCE) -> bool:
    """Whether a suggestion made ``since`` evaluations after the last
    significant improvement may explore (if its proposal has also collapsed):
    at ``patience`` evaluations, and one in ``every`` after. Rate-limited so that
    the suggestions in between keep refining the incumbent, which on a
    one-bowl objective is still the way to a lower loss."""
    return since >= patience and (since - patience) % every == 0


def collapsed(x: np.ndarray, X: np.ndarray, *, width: int | None = None) -> bool:
    """Whether the proposal ``x`` (d,) lies within :data:`STALL_DISTANCE` of an
    evaluated row of ``X`` (n, d) (root-mean-square distance over the
    columns, or over ``width`` columns when ``X`` leaves out some where both are equal)."""
    if len(X) == 0:
        return False
    rms = np.sqrt(np.sum((X - x[None, :]) ** 2, axis=1) / (width or X.shape[1]))
    return bool(rms.min() < STALL_DISTANCE)


def refit_point(n: int) -> int:
    """The last refit point at or before ``n`` complete trials: ``n`` itself up
    to :data:`REFIT_ALL`, else the last multiple of ``s = 2^floor(log2(n / 10))``
    (s = 2 from 20 trials, 8 from 80, 64 from 640: about a tenth of n)."""
    if n <= REFIT_ALL:
        return n
    step = 2 ** math.floor(math.log2(n / 10))
    return n - n % step


def startup_size(n_decisions: int) -> int:
    """Trials in the space-filling start: one more than the number of
    decisions, at least 5 and at most 20 (a model needs about ``d + 1``
    points to say anything about ``d`` length scales)."""
    return int(min(max(5, n_decisions + 1), 20))


class GP(Optimizer):
    """Gaussian-process Bayesian optimization (see the module docstring).

    Parameters
    ----------
    acquisition:
        ``"logei"`` (default; log expected improvement, stable where EI
        underflows), ``"ei"``, ``"pi"``, ``"logpi"``, ``"ucb"`` (a lower
        confidence bound on the loss with the GP-UCB schedule), ``"ts"``
        (Thompson sampling on the candidates) or ``"mes"`` (max-value
        entropy search).
    kernel:
        ``"matern52"`` (default) or ``"rbf"``.
    n_startup:
        Trials of the space-filling start; by default :func:`startup_size`
        of the number of decisions (10 for a recursive space).
    deterministic:
        The objective has no noise: the GP's noise is fixed at its floor.
    n_candidates, n_local, n_starts:
        Prior draws and neighbours of the best configurations scored per
        suggestion, and how many of the best go on to the gradient step.
    explore_stalls:
        Replace a stalled suggestion by a Thompson draw over the
        space-covering candidates (see the module docstring).
    explore_every:
        While stalled, one suggestion in ``explore_every`` may explore
        (:func:`explores`); 1 explores on every stalled suggestion.
    output:
        The output transform (:func:`treefarm.bo.models.gp.fit_gp`): ``"auto"``
        (default; the warp and plain standardization both fitted at each
        refit, the one whose leave-one-out means order the better half of the
        trials best kept), ``"warp"`` or ``"standard"``.
    heteroscedastic:
        Model each observation's ``loss_variance`` as its own noise (see the
        module docstring); ``False`` ignores it.
    hint_prior:
        How the acquisition weighs search hints (πBO,
        :mod:`treefarm.optimizers.hint_prior`): ``"judged"`` (default; each
        hint's credibility judged by the trials in its window, and squared), ``"plain"``
        (the credibility as given) or ``"off"``. Log-EI, log-PI, EI, PI and
        MES can be weighted; UCB and Thompson sampling ignore it.
    prior_beta:
        πBO's beta: the prior's power is ``prior_beta / n`` after ``n`` observations.
    hint_draws:
        Whether the study also replaces some suggestions by draws from the
        good hints' windows (:func:`treefarm.optimizers.hints.apply_hints`).
    """

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
        explore_stalls: bool = True,
        explore_every: int = EXPLORE_EVERY,
        output: str = "auto",
        heteroscedastic: bool = True,
        hint_prior: str = "judged",
        prior_beta: float = BETA,
        hint_draws: bool = True,
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
        check_bool("explore_stalls", explore_stalls)
        check_int("explore_every", explore_every)
        from ..bo.models.gp.fit import OUTPUTS

        if output not in OUTPUTS:
            raise ConfigError(f"output must be one of {OUTPUTS}, but got output={output!r}")
        check_bool("heteroscedastic", heteroscedastic)
        check_bool("hint_draws", hint_draws)
        if hint_prior not in _HINT_PRIORS:
            raise ConfigError(f"hint_prior must be one of {_HINT_PRIORS}, but got hint_prior={hint_prior!r}")
        if not (isinstance(prior_beta, (int, float)) and math.isfinite(prior_beta) and prior_beta >= 0):
            raise ConfigError(f"prior_beta must be a finite number >= 0, but got prior_beta={prior_beta!r}")
        self.acquisition = acquisition
        self.kernel = kernel
        self.n_startup = n_startup
        self.deterministic = deterministic
        self.n_candidates = n_candidates
        self.n_local = n_local
        self.n_starts = n_starts
        self.explore_stalls = explore_stalls
        self.explore_every = explore_every
        self.output = output
        self.heteroscedastic = heteroscedastic
        self.hint_prior = hint_prior
        self.prior_beta = float(prior_beta)
        self.hint_draws = hint_draws
        self._fits: dict[tuple[str, str, tuple[str, ...]], Any] = {}

    def suggest(self, space: Space, history: History, n: int, rng: np.random.Generator) -> list[Config]:
        root = convert(space)
        recursive = analyze(root).recursive
        complete = [o for o in history.complete if math.isfinite(o.loss)]
        if len(complete) >= self.startup(root):
            configs = [o.config for o in complete]
            losses = np.array([o.loss for o in complete])
            y_var = self._y_var(complete)
            with one_blas_thread():
                return self._model_points(root, recursive, configs, losses, y_var, history, n, rng)
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

    def recommend(self, space: Space, history: History) -> Config | None:
        """The evaluated configuration with the lowest posterior mean when the
        fitted noise is significant (seeds/001's recommendation for noisy
        objectives); ``None`` (the best observed) otherwise."""
        from ..bo.models.gp import fit_gp

        root = convert(space)
        complete = [o for o in history.complete if math.isfinite(o.loss)]
        if self.deterministic or len(complete) < 3:
            return None
        configs = [o.config for o in complete]
        encoding = self._encoding(root, analyze(root).recursive, configs)
        X, _ = encoding.encode(configs)
        losses = np.array([o.loss for o in complete])
        with one_blas_thread():
            model = fit_gp(
                X,
                losses,
                _domain(encoding),
                kernel=_kernel(self.kernel, analyze(root).recursive),
                y_var=self._y_var(complete),
                output=self.output,
                rng=np.random.default_rng(0),
            )
            if not _is_noisy(model):
                return None
            return configs[int(np.argmin(model.predict(X)[0]))]

    def posterior_slice(
        self, space: Space, history: History, address: str, at: Config, *, n_grid: int = 50
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The GP's posterior along one numeric parameter, the others fixed at
        ``at`` (the 1-D posterior plot of seeds/003): grid values of
        ``address`` (n_grid,), posterior mean and standard deviation there,
        on the model's standardized scale (lower is better)."""
        from ..bo.models.gp import fit_gp
        from ..encoding import numeric_value

        root = convert(space)
        complete = [o for o in history.complete if math.isfinite(o.loss)]
        encoding = self._encoding(root, analyze(root).recursive, [o.config for o in complete] + [at])
        if address not in encoding.start or encoding.columns[encoding.start[address]].option is not None:
            raise ConfigError(
                f"address must name a numeric parameter of the space, but got address={address!r}"
            )
        X, _ = encoding.encode([o.config for o in complete])
        losses = np.array([o.loss for o in complete])
        kernel = _kernel(self.kernel, analyze(root).recursive)
        column = encoding.start[address]
        node = encoding.columns[column].node
        grid = np.linspace(0.0, 1.0, n_grid)
        with one_blas_thread():
            model = fit_gp(
                X,
                losses,
                _domain(encoding),
                kernel=kernel,
                y_var=self._y_var(complete),
                output=self.output,
                rng=np.random.default_rng(0),
            )
            mean, std = model.slice_1d(encoding.encode([at])[0][0], column, grid)
        return np.array([numeric_value(node, u) for u in grid], dtype=float), mean, std  # type: ignore[arg-type]

    def _encoding(self, root: Space, recursive: bool, configs: Sequence[Config]) -> UnitEncoding:
        return UnitEncoding.for_configs(root, configs) if recursive else UnitEncoding(root)

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

    def _candidates(
        self,
        root: Space,
        flat: UnitEncoding | None,
        configs: list[Config],
        losses: np.ndarray,
        hints: Sequence[Hint],
        rng: np.random.Generator,
    ) -> tuple[list[Config], int]:
        """Space-covering candidates (scrambled Sobol points decoded by the
        encoding of a non-recursive space, or prior draws for a recursive one,
        ``flat=None``) followed by neighbours of the five best and draws from
        the windows of the good ``hints`` with a positive credibility, and how
        many of them cover the space."""
        parents = [configs[i] for i in np.argsort(losses, kind="stable")[:5]]
        if flat is None:
            cover = sample(root, rng, n=self.n_candidates)
        else:
            from ..bo.maximize import sobol_candidates

            cover = flat.decode_many(sobol_candidates(flat.dim, self.n_candidates, rng))
        good = [h for h in hints if h.weight > 0 and h.credibility > 0] if self.hint_prior != "off" else []
        hinted = [hint_draw(root, good[i % len(good)], rng) for i in range(HINT_CANDIDATES if good else 0)]
        return [*cover, *neighbours(root, parents, self.n_local, rng), *hinted], len(cover)

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
    ) -> list[Config]:
        """``n`` points from one fit: each chosen point joins the model at its
        posterior mean (kriging believer) before the next is chosen."""
        from ..bo.acquisition import LOG_ACQUISITIONS, PriorWeighted, make_acquisition
        from ..bo.maximize import maximize
        from ..bo.models.gp import gp_with_params

        if recursive and self.acquisition in NARROWABLE and not self._weighs_hints(history.hints):
            from .gp_trees import tree_points

            return tree_points(self, root, configs, losses, y_var, history, n, rng)
        pending = list(history.pending)
        flat = None if recursive else UnitEncoding(root)
        candidates, n_cover = self._candidates(root, flat, configs, losses, history.hints, rng)
        encoding = flat or UnitEncoding.for_configs(root, [*configs, *pending, *candidates])
        X, _ = encoding.encode(configs)
        params, transform = self._fit_at_refit_point(root, recursive, configs, losses, y_var, encoding)
        model = gp_with_params(
            X,
            losses,
            _domain(encoding),
            params,
            transform,
            kernel=_kernel(self.kernel, recursive),
            y_var=y_var,
        )
        if pending:
            Xp, _ = encoding.encode(pending)
            model = model.condition_on(Xp, model.predict(Xp)[0])
        best = _incumbent(model, X)
        Xc, Ac = encoding.encode(candidates)
        free = Ac & ~_join_columns(encoding)[None, :]
        seen = history.seen()
        log_prior = self._hint_log_prior(encoding, history.hints, configs, losses)
        # the history part of the stall test, once per suggestion: it fits the warp
        # pending trials count as suggestions made since: k workers at one history explore one in three
        since = evaluations_since_improvement(losses) + len(pending) if self.explore_stalls else 0
        out: list[Config] = []
        swaps: list[Config] | None = None  # the incumbent's option swaps, made at the first explore
        for i in range(n):
            no_progress = self.explore_stalls and explores(since + i, self.explore_every)
            acq = make_acquisition(
                self.acquisition, model, best=best, n_observed=len(losses), rng=rng, candidates=Xc
            )
            if log_prior is not None:
                acq = PriorWeighted(
                    acq,
                    log_prior,
                    self.prior_beta / len(losses),
                    log_space=self.acquisition in LOG_ACQUISITIONS,
                )
            if self.acquisition == "ts":
                x = Xc[int(np.argmax(acq(Xc, grad=False)[0]))]
            else:
                x, _ = maximize(
                    acq, _domain(encoding, joins=False), Xc, free=free, n_starts=self.n_starts, rng=rng
                )
            if no_progress and collapsed(x, X):
                if swaps is None:
                    swaps = [] if recursive else incumbent_swaps(root, configs, losses, rng)
                untried = [c for c in swaps if c not in seen]
                if untried:
                    Xs, _ = encoding.encode(untried)
                    x = Xs[int(np.argmax(acq(Xs, grad=False)[0]))]
                else:
                    x = _explore(model, Xc[:n_cover], X, best, rng)
            config = encoding.decode(x)
            if config in seen:
                config = _best_unseen(acq, Xc, candidates, seen) or _unseen_draw(root, seen, rng)
            out.append(config)
            seen.add(config)
            Xo, _ = encoding.encode([config])
            model = model.condition_on(Xo, model.predict(Xo)[0])
        return out

    def _weighs_hints(self, hints: Sequence[Hint]) -> bool:
        """Whether some hint weighs on the acquisition (:meth:`_hint_log_prior`)."""
        return self.hint_prior != "off" and any(h.credibility > 0 for h in hints)

    def _hint_log_prior(
        self, encoding: UnitEncoding, hints: Sequence[Hint], configs: list[Config], losses: np.ndarray
    ) -> Any:
        """log pi over encoded points for the πBO weight, or None when no hint
        with a positive credibility is there or the acquisition cannot be weighted."""
        from ..bo.acquisition import WEIGHTABLE

        if self.hint_prior == "off" or self.acquisition not in WEIGHTABLE:
            return None
        complete = list(zip(configs, losses.tolist()))
        windows = hint_windows(encoding, hints, complete, judged=self.hint_prior == "judged")
        return hint_log_density(windows) if windows else None

    def _fit_at_refit_point(
        self,
        root: Space,
        recursive: bool,
        configs: list[Config],
        losses: np.ndarray,
        y_var: np.ndarray | None,
        encoding: UnitEncoding,
    ) -> Any:
        """The hyperparameters and output transform fitted from scratch on the
        first :func:`refit_point` complete trials, cached under their hash and
        the columns of ``encoding`` (the suggestion's) that their addresses use
        (two spaces may share configurations). The restarts' generator is
        seeded by that hash and the trials are encoded on their own, so the
        result depends on them alone, never on the cache's state."""
        from ..bo.models.gp import fit_gp

        m = refit_point(len(configs))
        digest = hashlib.sha256(f"{self.kernel} {self.deterministic} {losses[:m].tobytes().hex()}".encode())
        prefix_var = None if y_var is None or not np.any(y_var[:m] > 0.0) else y_var[:m]
        if prefix_var is not None:
            digest.update(prefix_var.tobytes())
        for config in configs[:m]:
            digest.update(config.to_json().encode())
        used = set().union(*(config.keys() for config in configs[:m]))
        key = (digest.hexdigest(), self.output, _fingerprint(encoding, used))
        if key not in self._fits:
            prefix = self._encoding(root, recursive, configs[:m])
            X, _ = prefix.encode(configs[:m])
            model = fit_gp(
                X,
                losses[:m],
                _domain(prefix),
                kernel=_kernel(self.kernel, recursive),
                deterministic=self.deterministic,
                y_var=prefix_var,
                output=self.output,
                rng=np.random.default_rng(int.from_bytes(digest.digest()[:8], "little")),
            )
            while len(self._fits) >= _CACHED_FITS:
                self._fits.pop(next(iter(self._fits)))
            self._fits[key] = (model.params, model.transform)
        return self._fits[key]


def incumbent_swaps(
    root: Space, configs: Sequence[Config], losses: np.ndarray, rng: np.random.Generator
) -> list[Config]:
    """The best configuration on each other option of each join it visits
    (:func:`treefarm.optimizers.candidates.option_swaps`), the other trials,
    best first, lending the decisions a new branch needs; none without joins."""
    ranked = [configs[i] for i in np.argsort(losses, kind="stable")]
    return option_swaps(root, ranked[0], ranked[1:], rng)


def _explore(
    model: Any,
    cover: np.ndarray,
    X: np.ndarray,
    best: float,
    rng: np.random.Generator,
    *,
    width: int | None = None,
) -> np.ndarray:
    """A stalled suggestion's replacement: the best point of one Thompson
    draw over the space-covering candidates (c, d) that are not within
    :data:`STALL_DISTANCE` of an evaluated row of ``X`` (all of them if none
    is; the distance as in :func:`collapsed`)."""
    from ..bo.acquisition import make_acquisition

    squared = (cover**2).sum(axis=1)[:, None] + (X**2).sum(axis=1)[None, :] - 2.0 * cover @ X.T
    rms = np.sqrt(np.maximum(squared.min(axis=1), 0.0) / (width or X.shape[1]))
    far = cover[rms >= STALL_DISTANCE] if (rms >= STALL_DISTANCE).any() else cover
    thompson = make_acquisition("ts", model, best=best, n_observed=len(X), rng=rng)
    return far[int(np.argmax(thompson(far, grad=False)[0]))]


def _fingerprint(encoding: UnitEncoding, addresses: set[str]) -> tuple[str, ...]:
    """The encoding's columns of ``addresses`` as text: address and bounds or options of each."""
    return tuple(
        f"{c.address}={c.node.labels if isinstance(c.node, Join) else c.node!r}:{c.option}"
        for c in encoding.columns
        if c.address in addresses
    )


def _kernel(name: str, recursive: bool) -> Any:
    """The kernel: ARD, or for a recursive space one shared length scale over
    the address-wise columns (there are more columns than observations, and
    most are inactive in most trees)."""
    from ..bo.models.gp import make_kernel
    from ..bo.models.gp.kernels import Stationary

    kernel = make_kernel(name)
    return type(kernel)(ard=False) if recursive and isinstance(kernel, Stationary) else kernel


def _domain(encoding: UnitEncoding, *, joins: bool = True, outside: bool = False) -> Any:
    """The model's view of the columns; without join groups for the
    acquisition optimizer, which must not switch a branch (that would
    activate columns the start does not have); with ``outside``, one more
    continuous column (:meth:`TreeColumns.outside`)."""
    from ..bo.models.domain import Domain

    join = _join_columns(encoding)
    groups = [g for g in encoding.categorical_groups() if joins or not join[g[0]]]
    return Domain(
        continuous=np.append(encoding.continuous(), [True] if outside else []).astype(bool),
        integer_levels=np.append(encoding.integer_levels(), [0] if outside else []).astype(int),
        categorical_groups=tuple(groups),
    )


def _join_columns(encoding: UnitEncoding) -> np.ndarray:
    """(d,) True for the one-hot columns of join decisions."""
    return np.array([isinstance(c.node, Join) for c in encoding.columns], dtype=bool)


def _is_noisy(model: Any) -> bool:
    """Whether the fitted noise, or some observation's own, is significant (:data:`NOISY`)."""
    return bool(model.noise_var >= NOISY or np.any(model.v >= NOISY))


def _incumbent(model: Any, X: np.ndarray) -> float:
    """The value to improve on, on the model's scale: the best observation,
    or for a noisy model the best posterior mean at an observed point (an
    observation's luck is not an improvement target; seeds/001)."""
    if not _is_noisy(model):
        return float(np.min(model.y))
    return float(np.min(model.predict(X)[0]))


def _best_unseen(acq: Any, Xc: np.ndarray, candidates: list[Config], seen: set[Config]) -> Config | None:
    """The candidate with the highest acquisition that was never seen."""
    values, _ = acq(Xc, grad=False)
    for i in np.argsort(-values, kind="stable"):
        if candidates[int(i)] not in seen:
            return candidates[int(i)]
    return None


def _unseen_draw(root: Space, seen: set[Config], rng: np.random.Generator) -> Config:
    """A prior draw not seen yet, if one of a few is (the space may be exhausted)."""
    draws = sample(root, rng, n=32)
    return next((c for c in draws if c not in seen), draws[0])
