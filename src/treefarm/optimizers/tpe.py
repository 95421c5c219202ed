"""The Tree-structured Parzen Estimator, native on conditional and recursive spaces.

Bergstra, Bardenet, Bengio & Kégl (2011), "Algorithms for hyper-parameter
optimization": the completed trials are split at the quantile ``gamma`` of
their losses, the best make a density ``l(x)`` and the rest ``g(x)``, and
since maximizing expected improvement is maximizing ``l(x) / g(x)``, the
candidate drawn from ``l`` with the largest ratio wins. The first
``n_startup`` trials are prior draws.

Tree structure: ``l`` and ``g`` are products over the addresses a
configuration visits, ``l(x) = prod_a l_a(x_a)``, each ``l_a`` built only
from the trials in which address ``a`` was active; a join's option is one
more factor, so the parameters under an option are drawn only when that
option is. A recursive space is the same product over the positions of a
derivation tree, with the estimators of one grammar node pooled over every
position it takes (hierarchical pooling), since deep positions are reached
by few trials; there a long study's good trials can narrow the model onto
expressions already tried, and once its proposals keep repeating, a draw
from the prior takes their place (:func:`treefarm.optimizers.unseen.unseen`).
A candidate is a whole configuration (a
:func:`treefarm.space.walk` drawing each decision from ``l_a``), scored by
``sum_a log l_a(x_a) - log g_a(x_a)``; hyperopt's and Optuna's univariate
samplers keep each address's own best draw instead, which is greedier.

Densities are Parzen estimators mixing the prior (:mod:`treefarm.bo.models.parzen`);
bandwidths are the distance to the farther neighbour, clipped ("magic
clip"); observations are down-weighted by linear forgetting beyond the
``forget`` newest (hyperopt's code and Optuna's), so the start-up's verdict
on an option fades. The numeric estimators of ``l`` weigh their good trials
by rank as well (``rank_weights``: CMA-ES's recombination weights, Hansen
2016, cubed), so candidates are drawn mostly around the best few points at
the same bandwidths. Failed trials and, with ``constant_liar``, pending ones
count in ``g``, so parallel workers spread out. Every ``joint_every``-th
trial is a joint turn: one multivariate estimator over the numbers active in
every trial (Falkner, Klein & Hutter 2018, BOHB's KDE; Optuna's multivariate
TPE), which samples around whole good points where coordinates interact; with
few such numbers (``always_joint``, 5) every turn is.
With ``constraints="ctpe"`` each constraint the trials carry gets a density
ratio of its own and the candidate's score becomes c-TPE's
(:mod:`treefarm.optimizers.tpe_constraints`, Watanabe & Hutter 2023).
What was measured to choose each default is the design page
``docs/design/tpe.md``.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from ..bo.models.parzen import (
    CategoricalParzen,
    NumericParzen,
    forgetting_weights,
    logsumexp_rows,
    numeric_parzen,
)
from ..exceptions import ConfigError
from ..space import (
    Choice,
    Config,
    Int,
    Join,
    Real,
    Space,
    addresses,
    analyze,
    convert,
    draw_decision,
    sample,
    walk,
)
from ..space.config import Decision, Scalar
from ..validation import check_bool, check_int, check_nonnegative, check_positive
from .base import History, Optimizer
from .tpe_constraints import constrained_scores, constraint_splits
from .tpe_pooled import node_columns
from .unseen import unseen

__all__ = ["TPE"]

Gamma = float | Callable[[int], int]
#: The fewest and the most always-active numbers for which ``TPE()`` takes joint turns (module docstring).
JOINT_MIN_NUMBERS, JOINT_MAX_NUMBERS = 3, 10
_Columns = tuple[int, dict[str, list[Scalar]]]
_Key = TypeVar("_Key", str, int)
#: Good and bad values per decision node (its identity), over all the positions it was reached at.
_Tied = tuple[dict[int, list[Scalar]], dict[int, list[Scalar]]]
_Estimator = NumericParzen | CategoricalParzen
_Fitted = tuple[_Estimator, _Estimator, list[tuple[_Estimator, _Estimator] | None], list[Scalar]]
#: A constraint's good and worse columns (address -> values).
_Split = tuple[dict[str, list[Scalar]], dict[str, list[Scalar]]]
#: The rank weight of each good value, per address (aligned with the good columns).
_Weights = dict[str, np.ndarray]


class TPE(Optimizer):
    """Tree-structured Parzen Estimator (see the module docstring and ``docs/design/tpe.md``).

    Parameters
    ----------
    gamma:
        The fraction of trials that make ``l(x)`` (``ceil(gamma n)``), or a
        function of ``n`` giving their number.
    n_candidates:
        Draws from ``l(x)`` per decision.
    n_startup:
        Completed trials before the model is used (random draws until then).
    prior_weight:
        Weight of the prior component relative to one observation.
    multivariate:
        A joint estimator over the always-active numeric addresses.
    constant_liar:
        Count pending trials as bad observations.
    forget:
        Linear forgetting: all but the newest ``forget`` observations of an
        estimator weigh less with age (hyperopt's ``LF = 25``, the default);
        ``None`` (the paper's equal weights) keeps every weight at 1.
    bounds_as_neighbours:
        Whether a parameter's bounds count as neighbours of its lowest and
        highest observations in the bandwidth rule (the paper's); ``False``,
        the default, is hyperopt's code and Optuna's ``consider_endpoints=False``.
    rank_weights:
        The power ``p`` of the good trials' rank weights in the numeric
        estimators of ``l``: the ``i``-th best of ``k`` good trials weighs
        ``(ln(k + 1/2) - ln i) ** p`` (tied losses share their mean rank) times
        its forgetting weight. ``0`` weighs them equally (the paper's);
        ``auto``'s TPE turns keep ``0``.
    joint_every:
        Every ``joint_every``-th trial is a joint turn (Optuna's multivariate
        view, see the module docstring) when 3 to 10 numbers are active in
        every trial; ``None`` for none. Ignored with ``multivariate=True``,
        where every turn is joint.
    always_joint:
        When 3 to ``always_joint`` numbers are active in every trial, every
        turn is joint: the multivariate estimator at this TPE's ``gamma``, as
        ``multivariate=True``. ``0`` for never; ``joint_every=None`` turns
        joint turns off altogether; ``auto``'s TPE turns keep both off.
    constraints:
        With constraints: ``"rank"`` (the trials' place in the feasible-first
        Pareto order is the loss, as without) or ``"ctpe"`` (that, and one
        density ratio per constraint scoring the candidates, c-TPE: see
        :mod:`treefarm.optimizers.tpe_constraints`; the joint turns' numbers
        are chosen without them).
    """

    searches_recursive = True

    def __init__(
        self,
        *,
        gamma: Gamma = 0.25,
        n_candidates: int = 24,
        n_startup: int = 10,
        prior_weight: float = 1.0,
        multivariate: bool = False,
        constant_liar: bool = True,
        forget: int | None = 25,
        bounds_as_neighbours: bool = False,
        joint_every: int | None = 4,
        constraints: str = "ctpe",
        rank_weights: float = 3.0,
        always_joint: int = 5,
    ) -> None:
        if not callable(gamma) and not (isinstance(gamma, (int, float)) and 0 < gamma < 1):
            raise ConfigError(f"gamma must be in (0, 1) or a function of n, but got gamma={gamma!r}")
        check_int("n_candidates", n_candidates)
        check_int("n_startup", n_startup, minimum=0)
        check_positive("prior_weight", prior_weight)
        check_nonnegative("rank_weights", rank_weights)
        if not math.isfinite(rank_weights):
            raise ConfigError(f"rank_weights must be a finite number >= 0, but got rank_weights={rank_weights!r}")
        for name, flag in (
            ("multivariate", multivariate),
            ("constant_liar", constant_liar),
            ("bounds_as_neighbours", bounds_as_neighbours),
        ):
            check_bool(name, flag)
        if forget is not None:
            check_int("forget", forget)
        if joint_every is not None:
            check_int("joint_every", joint_every)
        check_int("always_joint", always_joint, minimum=0)
        if constraints not in ("rank", "ctpe"):
            raise ConfigError(f"constraints must be 'rank' or 'ctpe', but got constraints={constraints!r}")
        self.gamma = gamma
        self.n_candidates = n_candidates
        self.n_startup = n_startup
        self.prior_weight = float(prior_weight)
        self.multivariate = multivariate
        self.constant_liar = constant_liar
        self.forget = forget
        self.bounds_as_neighbours = bounds_as_neighbours
        self.joint_every = joint_every
        self.constraints = constraints
        self.rank_weights = float(rank_weights)
        self.always_joint = always_joint

    @classmethod
    def hyperopt(cls, **options: object) -> TPE:
        """The TPE of Bergstra et al. 2011 as hyperopt documents it: gamma 0.25, 24
        candidates, 20 start-up trials, the prior weighing as one observation,
        the bounds as neighbours, every observation weighing 1 (no forgetting, no rank weights);
        ``options`` override any of them."""
        settings: dict[str, object] = {
            "gamma": 0.25,
            "n_candidates": 24,
            "n_startup": 20,
            "prior_weight": 1.0,
            "bounds_as_neighbours": True,
            "forget": None,
            "joint_every": None,
            "rank_weights": 0.0,
            "always_joint": 0,
        }
        return cls(**(settings | options))  # type: ignore[arg-type]

    def n_below(self, n: int) -> int:
        """How many of ``n`` completed trials make ``l(x)``: ``ceil(gamma n)``,
        at least 1 (``suggest`` takes fewer when losses tie across the boundary,
        see ``_strictly_below``)."""
        below = self.gamma(n) if callable(self.gamma) else math.ceil(self.gamma * n)
        return int(min(max(below, 1), n))

    def suggest(self, space: Space, history: History, n: int, rng: np.random.Generator) -> list[Config]:
        root = convert(space)
        complete = [o for o in history.complete if math.isfinite(o.loss)]
        seen = [*(o.config for o in history.complete), *history.failed, *history.pending]
        out: list[Config] = []
        if len(complete) < max(self.n_startup, 1):
            for _ in range(n):
                out.append(unseen(root, functools.partial(sample, root, rng), [*seen, *out], rng))
            return out
        losses = np.array([o.loss for o in complete])
        order = np.argsort(losses, kind="stable")
        k = _strictly_below(losses[order], self.n_below(len(complete)))
        good_indices = np.sort(order[:k])
        good = [complete[i].config for i in good_indices]
        weights = rank_weights(losses[good_indices], self.rank_weights) if self.rank_weights else None
        below, ranked = _weighted_columns(good, weights)
        worse = [complete[i].config for i in np.sort(order[k:])]
        n_worse, worse_columns = _columns(worse)
        splits = constraint_splits(complete, self.n_below) if self.constraints == "ctpe" else []
        constrained = [(_columns(g)[1], _columns(b)[1]) for _, g, b in splits]
        gammas = [k / len(complete), *(gamma for gamma, _, _ in splits)]
        recursive = analyze(root).recursive
        tied_good = node_columns(root, good) if recursive else {}
        tied_worse = node_columns(root, worse) if recursive else {}
        joint, every = self._turns(root, below, (n_worse, worse_columns))
        explore = functools.partial(sample, root, rng) if recursive else None
        first = len(history.complete) + len(history.failed) + len(history.pending)
        for _ in range(n):
            if every is not None and (first + len(out)) % every == every - 1:
                with_batch = History(history.complete, history.failed, (*history.pending, *out))
                out.extend(self._joint_view().suggest(space, with_batch, 1, rng))
                continue
            extra = [*history.failed, *((*history.pending, *out) if self.constant_liar else ())]
            above = (n_worse + len(extra), _concat(worse_columns, _columns(extra)[1]))
            tied = (tied_good, _concat(tied_worse, node_columns(root, extra))) if recursive else None
            propose = functools.partial(
                self._propose, root, below, above, rng, tied, constrained, gammas, ranked, joint, {}
            )
            out.append(unseen(root, propose, [*seen, *out], rng, explore=explore))
        return out

    def _turns(self, root: Space, below: _Columns, above: _Columns) -> tuple[bool, int | None]:
        """Whether every turn is joint and, if not, every how many trials a joint
        turn comes (``None``: never), from the number of numeric addresses active
        in every completed trial: every turn with ``multivariate`` or with
        ``JOINT_MIN_NUMBERS`` to ``always_joint`` of them, every ``joint_every``-th
        with up to ``JOINT_MAX_NUMBERS`` (see the module docstring); none when
        ``joint_every`` is ``None``."""
        if self.multivariate:
            return True, None
        if self.joint_every is None:
            return False, None
        numbers = len(_common_numeric(root, below, above))
        if JOINT_MIN_NUMBERS <= numbers <= self.always_joint:
            return True, None
        return False, self.joint_every if JOINT_MIN_NUMBERS <= numbers <= JOINT_MAX_NUMBERS else None

    def _joint_view(self) -> TPE:
        """The optimizer of the joint turns: this TPE's settings with the
        multivariate estimator and Optuna's good set, ``min(ceil(0.1 n), 25)``
        (:func:`tenth`)."""
        return TPE(**(vars(self) | {"multivariate": True, "gamma": tenth, "joint_every": None}))

    def _propose(
        self,
        root: Space,
        below: _Columns,
        above: _Columns,
        rng: np.random.Generator,
        tied: _Tied | None = None,
        extra: Sequence[_Split] = (),
        gammas: Sequence[float] = (1.0,),
        ranked: _Weights | None = None,
        joint: bool = False,
        fits: dict[tuple[str, tuple[int, ...]], _Fitted | None] | None = None,
    ) -> Config:
        """The best of ``n_candidates`` whole configurations drawn from ``l``.

        Candidate ``j`` is walk ``j`` through the space, taking at each address
        it reaches the ``j``-th of that address's draws from ``l_a``; its score
        is ``sum_a log l_a(x_a) - log g_a(x_a)`` over the addresses it visits.
        Each address's draws and log ratios are computed once, in one array
        call, the first time a walk reaches it. With ``tied`` (a recursive
        space), an address no good trial reached uses its node's estimators
        pooled over every position (see the module docstring). ``extra`` holds
        each constraint's good and worse columns and ``gammas`` every term's good
        share (c-TPE, :func:`treefarm.optimizers.tpe_constraints.constrained_scores`);
        ``ranked`` the good values' rank weights per address (none: equal);
        with ``joint`` the always-active numbers are drawn together first, from
        the multivariate estimator (:meth:`_joint`). ``fits`` keeps the fitted
        estimators between proposals from the same columns (a node's pooled
        ones once for all its addresses), so a redrawn proposal refits nothing."""
        ranked = ranked or {}
        fits = {} if fits is None else fits
        fixed = self._joint(root, below, above, rng, ranked) if joint else {}
        flat = _flat_addresses(root)
        if flat is not None:
            return self._propose_flat(root, flat, below, above, fixed, rng, extra, gammas, ranked, fits)
        pools: dict[tuple[str, tuple[int, ...]], tuple[list[Scalar], np.ndarray]] = {}
        configs: list[Config] = []
        scores = np.zeros((len(gammas), self.n_candidates))
        for j in range(self.n_candidates):

            def decide(address: str, node: Decision, allowed: tuple[int, ...], j: int = j) -> Scalar:
                if address in fixed:
                    return fixed[address]
                key = (address, allowed)
                if key not in pools:
                    good, bad = below[1].get(address, []), above[1].get(address, [])
                    weights, fit_key = ranked.get(address), key
                    if not good and tied is not None:
                        good, bad = tied[0].get(id(node), []), tied[1].get(id(node), [])
                        weights, fit_key = None, key if extra else (f"@{id(node)}", allowed)
                    sides = [(g.get(address, []), b.get(address, [])) for g, b in extra]
                    if fit_key not in fits:
                        fits[fit_key] = self._fit(node, allowed, good, bad, sides, weights)
                    pools[key] = self._draws(node, allowed, fits[fit_key], rng, 1 + len(extra))
                values, log_ratio = pools[key]
                scores[:, j] += log_ratio[:, j]
                return values[j]

            configs.append(walk(root, decide)[0])
        return configs[int(np.argmax(constrained_scores(scores, gammas)))]

    def _propose_flat(
        self,
        root: Space,
        flat: list[tuple[str, Decision]],
        below: _Columns,
        above: _Columns,
        fixed: dict[str, Scalar],
        rng: np.random.Generator,
        extra: Sequence[_Split],
        gammas: Sequence[float],
        ranked: _Weights,
        fits: dict[tuple[str, tuple[int, ...]], _Fitted | None],
    ) -> Config:
        """:meth:`_propose` for a space without joins, where every candidate
        visits every address: the same draws, in walk order, and the same
        winner, scored as arrays and built by a single walk."""
        columns: dict[str, list[Scalar]] = {}
        scores = np.zeros((len(gammas), self.n_candidates))
        for address, node in flat:
            if address not in fixed:
                good, bad = below[1].get(address, []), above[1].get(address, [])
                sides = [(g.get(address, []), b.get(address, [])) for g, b in extra]
                if (address, ()) not in fits:
                    fits[address, ()] = self._fit(node, (), good, bad, sides, ranked.get(address))
                columns[address], log_ratio = self._draws(node, (), fits[address, ()], rng, 1 + len(extra))
                scores += log_ratio
        j = int(np.argmax(constrained_scores(scores, gammas)))
        chosen = {a: column[j] for a, column in columns.items()} | fixed
        return walk(root, lambda address, node, allowed: chosen[address])[0]

    def _draws(
        self, node: Decision, allowed: tuple[int, ...], fitted: _Fitted | None, rng: np.random.Generator, rows: int = 1
    ) -> tuple[list[Scalar], np.ndarray]:
        """``n_candidates`` draws from one address's ``l_a`` (``fitted``, :meth:`_fit`)
        and, per row of ``rows``, their ``log l_a - log g_a``: the objective's, then
        each constraint's.

        An address no trial has reached (``fitted`` is ``None``) is drawn from the
        space's prior, and adds nothing to a score (l and g are both the prior there)."""
        m = self.n_candidates
        ratios = np.zeros((rows, m))
        if fitted is None:
            return [draw_decision(node, allowed, rng) for _ in range(m)], ratios
        l_est, g_est, side_estimators, labels = fitted
        if isinstance(node, (Real, Int)):
            x = np.clip(l_est.sample(rng, m), node.low, node.high)
        else:
            x = l_est.sample(rng, m)
        ratios[0] = l_est.logpdf(x) - g_est.logpdf(x)
        for row, pair in enumerate(side_estimators, start=1):
            if pair is not None:
                ratios[row] = pair[0].logpdf(x) - pair[1].logpdf(x)
        if isinstance(node, Int):
            return [int(v) for v in np.round(x)], ratios
        if isinstance(node, Real):
            return x.tolist(), ratios
        return [labels[d] for d in x.tolist()], ratios

    def _fit(
        self,
        node: Decision,
        allowed: tuple[int, ...],
        good: list[Scalar],
        bad: list[Scalar],
        sides: Sequence[tuple[list[Scalar], list[Scalar]]] = (),
        ranked: np.ndarray | None = None,
    ) -> _Fitted | None:
        """The estimators :meth:`_draws` draws from and scores by: ``l_a`` from the
        ``good`` values (``ranked``: their rank weights in a numeric one), ``g_a``
        from the ``bad``, each constraint's pair of ``sides`` (``None`` where it has
        no value here) and a categorical node's labels; ``None`` where no trial
        reached the address."""
        if not good and not bad:
            return None
        estimate: Callable[[list[Scalar]], _Estimator]
        labels: list[Scalar] = []
        if isinstance(node, (Real, Int)):
            estimate = functools.partial(self._numeric, node)
        else:
            labels, prior = _options(node, allowed)
            estimate = functools.partial(self._categorical, prior, {label: i for i, label in enumerate(labels)})
        pairs = [(estimate(yes), estimate(no)) if yes or no else None for yes, no in sides]
        l_est = self._numeric(node, good, ranked) if isinstance(node, (Real, Int)) else estimate(good)
        return l_est, estimate(bad), pairs, labels

    def _numeric(self, node: Real | Int, values: list[Scalar], ranked: np.ndarray | None = None) -> NumericParzen:
        """The Parzen estimator of ``values`` with forgetting (and, given, rank) weights."""
        weights = forgetting_weights(len(values), self.forget)
        if ranked is not None:
            weights = weights * ranked
        return numeric_parzen(
            node,
            np.array(values, dtype=float),
            prior_weight=self.prior_weight,
            weights=weights,
            bounds_as_neighbours=self.bounds_as_neighbours,
        )

    def _categorical(
        self, prior: np.ndarray, index: dict[Scalar, int], values: list[Scalar]
    ) -> CategoricalParzen:
        weights = forgetting_weights(len(values), self.forget)
        known = np.array([v in index for v in values], dtype=bool)
        indices = np.array([index[v] for v in values if v in index], dtype=int)
        return CategoricalParzen.fit(prior, indices, prior_weight=self.prior_weight, weights=weights[known])

    def _joint(
        self, root: Space, below: _Columns, above: _Columns, rng: np.random.Generator, ranked: _Weights
    ) -> dict[str, Scalar]:
        """Values for the numeric addresses active in every trial, chosen jointly.

        ``l`` (or ``g``) may have no trial at all: ties straddling the split
        at the best loss send every trial to ``g`` (``_strictly_below``); the
        estimator is then the prior alone, as in the univariate product."""
        (_, good), (_, bad) = below, above
        nodes = dict(_numeric_addresses(root))
        common = _common_numeric(root, below, above)
        if len(common) < 2:
            return {}
        l_dims = [self._numeric(nodes[a], good.get(a, []), ranked.get(a)) for a in common]
        g_dims = [self._numeric(nodes[a], bad.get(a, [])) for a in common]
        k = rng.choice(len(l_dims[0].w), size=self.n_candidates, p=l_dims[0].w)
        X = [est.sample_components(rng, k) for est in l_dims]
        score = _joint_logpdf(l_dims, X) - _joint_logpdf(g_dims, X)
        i = int(np.argmax(score))
        out: dict[str, Scalar] = {}
        for a, column in zip(common, X):
            node = nodes[a]
            value = min(max(float(column[i]), node.low), node.high)
            out[a] = round(value) if isinstance(node, Int) else value
        return out


def _columns(configs: Sequence[Config]) -> _Columns:
    """The number of configs and each address's decisions across them, in
    order, from the configs where the address was active (see :func:`_weighted_columns`)."""
    return _weighted_columns(configs, None)[0]


def _weighted_columns(configs: Sequence[Config], weights: np.ndarray | None) -> tuple[_Columns, _Weights]:
    """:func:`_columns`, and given one weight per config, each address's weights
    aligned with its values. Consecutive configs with the same addresses are
    transposed at once (one run for a flat space), so this costs O(total
    decisions) with little Python per decision."""
    columns: dict[str, list[Scalar]] = {}
    weighted: dict[str, list[np.ndarray]] = {}
    start = 0
    for keys, group in itertools.groupby((config.to_dict() for config in configs), key=tuple):
        run = [tuple(row.values()) for row in group]
        for address, values in zip(keys, zip(*run)):
            columns.setdefault(address, []).extend(values)
            if weights is not None:
                weighted.setdefault(address, []).append(weights[start : start + len(run)])
        start += len(run)
    return (len(configs), columns), {address: np.concatenate(parts) for address, parts in weighted.items()}


def rank_weights(losses: np.ndarray, power: float) -> np.ndarray:
    """Each of ``k`` good trials' weight from its loss: ``(ln(k + 1/2) - ln r) ** power``
    for its rank ``r`` (1 the best; tied losses share their mean rank), scaled to
    mean 1 so that the good set weighs as much against the prior as unweighted.
    With ``power = 1`` these are CMA-ES's recombination weights (Hansen 2016), all
    positive; a larger power moves more of ``l``'s mass to the best points."""
    k = len(losses)
    if k == 0:
        return np.ones(0)
    _, tie, counts = np.unique(losses, return_inverse=True, return_counts=True)
    ranks = (np.cumsum(counts) - (counts - 1) / 2.0)[tie]  # 1 the best; a tie's mean rank
    log_w = power * np.log(math.log(k + 0.5) - np.log(ranks))
    # in logs, since a large power would overflow; floored so that no log of a weight is -inf
    w = np.maximum(np.exp(log_w - log_w.max()), np.finfo(float).tiny)
    return w / w.mean()


def _strictly_below(sorted_losses: np.ndarray, k: int) -> int:
    """How many losses lie strictly below ``y*``, the best loss outside the
    ``k`` best: ``k`` unless ties straddle the boundary, which all go to g
    (Bergstra et al. 2011: l for ``y < y*``, g for ``y >= y*``). A plateau of equal
    losses larger than the quantile then leaves l to the prior, so the search
    moves off it instead of sampling it over and over."""
    if k >= len(sorted_losses):
        return k
    return int(np.searchsorted(sorted_losses, sorted_losses[k], side="left"))


def _concat(a: dict[_Key, list[Scalar]], b: dict[_Key, list[Scalar]]) -> dict[_Key, list[Scalar]]:
    """Per-key concatenation, ``a``'s values first (the columns of the configs
    behind ``a`` followed by those behind ``b``: the worse trials' columns are
    built once per suggestion, not once per batch member)."""
    out = {key: list(values) for key, values in a.items()}
    for key, values in b.items():
        out.setdefault(key, []).extend(values)
    return out


def _joint_logpdf(dims: Sequence[NumericParzen], X: Sequence[np.ndarray]) -> np.ndarray:
    """Log density of the product-kernel mixture: components shared across dimensions."""
    total = sum(est.component_logpdf(x) for est, x in zip(dims, X))
    return logsumexp_rows(total + np.log(dims[0].w))


def _flat_addresses(root: Space) -> list[tuple[str, Decision]] | None:
    """(address, node) of every decision, in walk order, when the space has no
    join (so every configuration has them all); ``None`` otherwise."""
    if analyze(root).recursive:
        return None
    nodes = addresses(root)
    return None if any(isinstance(node, Join) for _, node in nodes) else nodes


def _numeric_addresses(root: Space) -> list[tuple[str, Real | Int]]:
    """(address, node) of the numeric decisions of a non-recursive space (none for a recursive one)."""
    if analyze(root).recursive:
        return []
    return [(a, nd) for a, nd in addresses(root) if isinstance(nd, (Real, Int))]


def _common_numeric(root: Space, below: _Columns, above: _Columns) -> list[str]:
    """The numeric addresses active in every trial behind ``below`` and ``above``."""
    (n_good, good), (n_bad, bad) = below, above
    return [
        a for a, _ in _numeric_addresses(root) if len(good.get(a, ())) == n_good and len(bad.get(a, ())) == n_bad
    ]


def tenth(n: int) -> int:
    """Optuna's good set for ``n`` trials, ``min(ceil(0.1 n), 25)``: the joint turns'."""
    return min(math.ceil(0.1 * n), 25)


def _options(node: Choice | Join, allowed: tuple[int, ...]) -> tuple[list[Scalar], np.ndarray]:
    """The decisions a categorical node may take and their prior probabilities."""
    if isinstance(node, Choice):
        labels = list(node.decisions())
        weights = np.array(node.weights if node.weights is not None else [1.0] * len(labels), dtype=float)
    else:
        labels = list(node.labels)
        w = np.array(node.weights if node.weights is not None else [1.0] * len(labels), dtype=float)
        weights = np.zeros(len(labels))
        weights[list(allowed)] = w[list(allowed)]
    return labels, weights / weights.sum()
