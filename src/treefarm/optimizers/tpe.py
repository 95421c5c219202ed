"""The Tree-structured Parzen Estimator, native on conditional and recursive spaces.

Bergstra, Bardenet, Bengio & Kégl (2011), "Algorithms for hyper-parameter
optimization"; the defaults are hyperopt's, as seeds/000 documents them,
but for the start-up length, the bandwidths at the bounds and forgetting
(below):

- the completed trials are split at the quantile ``gamma = 0.25`` of their
  losses: the best ``ceil(gamma n)`` make ``l(x)``, the rest ``g(x)``; the
  seed's ``y < y*`` for l and ``y >= y*`` for g sends losses tied across the
  boundary to g
  (hyperopt's code takes ``ceil(gamma sqrt(n))``, at most 25, and Optuna's
  ``min(ceil(0.1 n), 25)``; either is a ``gamma`` function away);
- maximizing expected improvement is maximizing ``l(x) / g(x)``: 24
  candidates are drawn from ``l`` and the one with the largest ratio wins;
- the first trials are random draws from the prior: 20 in the seed, 10 by
  default here (Optuna's). Measured over 69 problems (the synthetic and
  tuning sets, the 24 BBOB functions in 2-d and 10-d, 12 in 20-d; 10 seeds,
  ``bench/RESULTS.md``, "treefarm's TPE with 10 start-up trials"): lower
  median than 20 start-up trials on 39, on 27 of the 43 that were not in
  the first screen of the setting, beyond noise lower on 2 and higher on 1;
  against Optuna's default ``TPESampler`` higher beyond noise on 1 problem
  instead of 9;
- a kernel's bandwidth is the distance to its farther neighbour among the
  observations, clipped (the "magic clip", range / min(100, n + 1)); the
  seed also counts the parameter's bounds as neighbours, which gives the
  lowest and highest observations a kernel as wide as their distance to
  the bound. Without it (hyperopt's code, Optuna's
  ``consider_endpoints=False``; ``bounds_as_neighbours=False``, the
  default here), over the 66 numeric and 3 tuning problems above (10
  seeds, ``bench/RESULTS.md``, "Bandwidths at the bounds"): lower median
  than with the bounds on 40 of 66 numeric problems, beyond noise higher on
  one (BBOB f1 2-d), and lower than Optuna's TPE beyond noise on 11
  instead of 5; on twelve BBOB functions in 20-d that no setting was chosen
  on, lower on 6, beyond noise lower on 1 and higher on none (a coin's toss
  that costs nothing);
- densities are Parzen estimators mixing the prior with equal weight
  (:mod:`treefarm.bo.models.parzen`).

Tree structure: ``l`` and ``g`` are tree-structured densities, a product over
the addresses a configuration visits, ``l(x) = prod_a l_a(x_a)``, each
``l_a`` (``g_a``) built only from the good (bad) trials in which address
``a`` was active; a join's option is one more factor, so the parameters under
an option are drawn only when that option is, and never modelled as
independent of the branch they live in. A recursive space is the same
product over the positions of a derivation tree.

A candidate is a whole configuration — a :func:`treefarm.space.walk` that
draws each decision it reaches from ``l_a`` — and the candidate with the
largest ``log l(x) - log g(x) = sum_a log l_a(x_a) - log g_a(x_a)`` wins, as
the seed's "draw candidates from l(x), keep the largest l(x)/g(x)" reads.
In a recursive space most positions deep in a tree were reached by few
trials, and a position no good trial reached would otherwise fall back to
the prior. There the estimators are tied: ``l_a`` and ``g_a`` are built from
the values the same grammar node took at every position of the good and bad
trials (hierarchical pooling; the kernel-search grammar's period, say, is
learnt from any good tree with a periodic factor). Measured on the two
grammar benchmarks, 100 evaluations, 20 seeds: see ``bench/RESULTS.md``.

Hyperopt and Optuna's univariate sampler instead keep, at each address
separately, its own best of 24 draws: the per-address mode of the ratio,
which is greedier than the whole-configuration choice and was measured worse:
1.6-3x the median regret on each of the six synthetic functions at 100
evaluations over 30 seeds (``bench/RESULTS.md``, the TPE ablation).

Joint turns (``joint_every=4``, not in the seed): every fourth trial, counted
over the whole history (so a resumed study and a second worker agree), is
proposed by a joint view, the multivariate estimator below over the numbers
active in every trial with Optuna's good set ``min(ceil(0.1 n), 25)``: Optuna
5's default ``TPESampler``. The product recombines good coordinates and wins
on separable and many multimodal problems; the joint view samples around
whole good points and wins where coordinates interact or an optimum must be
refined (Rosenbrock, Ackley, BBOB f12, f13, f24 in 10-d). Measured
(``bench/RESULTS.md``, "Joint turns"; 60 seeds), against the product alone:
on 24 BBOB functions in 10-d lower median on 19, beyond noise lower on 3 and
higher on none; on the 24 in 5-d, a dimension no choice had seen (30 seeds),
lower on 17, beyond noise 1 and none. Only with ``JOINT_MIN_NUMBERS = 3`` to
``JOINT_MAX_NUMBERS = 10`` such numbers, bounds set from the same readings:
in 2-d the product had the lower median on 15 of 24; in 20-d, turns every
third trial had the lower median on 3 of 12 and were higher beyond noise on
2 (more numbers than good points make the joint kernels a local search); with
one number the joint view is the product with a smaller good set
(``gamma=0.1``, measured worse). Against Optuna's TPE over 69 problems, the
product alone was higher beyond noise on 7 and ``TPE()`` is on 2.

Observations weigh equally in the seed; the default here is hyperopt's
code's and Optuna's linear forgetting, ``forget=25``, which down-weights all
but the 25 newest observations of each estimator (failed and pending ones
count as newest). Without it TPE locks onto one category: on
``{"x": Real(-5, 5), "y": Int(0, 100), "c": Choice("a", "b", "c")}`` with
loss ``(x - 1)**2 / 10 + ((y - 30) / 30)**2 + {"a": 0.6, "b": 0.0, "c": 0.3}[c]``,
the random start-up trials of the best option ``b`` had poor ``x`` and ``y``
and sit in ``g`` for good, so ``l(b) / g(b) < 1``; no candidate with ``b``
wins, ``b`` never joins ``l``, and one option took 179-180 of the 180 model
draws, the wrong one in 3 of 10 seeds (200 evaluations). With forgetting
the start-up's verdict on ``b`` fades and 0 of 10 seeds stay on a wrong
option. :meth:`TPE.hyperopt` keeps the seed's settings exactly.

Failed trials and, with ``constant_liar``, pending ones count as bad
observations (in ``g``): a configuration being evaluated elsewhere is made
less attractive, so parallel workers spread out, and a region that crashes
is avoided.

``multivariate=True`` replaces the product over addresses, for the numeric
addresses active in every trial, by one joint estimator: a mixture
whose components are the observations' points with the per-dimension
bandwidths (Falkner, Klein & Hutter 2018, BOHB's KDE; Optuna's multivariate
TPE), so correlated parameters are proposed together.
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
    trace,
    walk,
)
from ..space.config import Decision, Scalar
from .base import History, Optimizer
from .options import check_bool, check_int, check_positive
from .unseen import unseen

__all__ = ["TPE"]

Gamma = float | Callable[[int], int]
#: The fewest and the most always-active numbers for which ``TPE()`` takes joint turns (module docstring).
JOINT_MIN_NUMBERS, JOINT_MAX_NUMBERS = 3, 10
_Columns = tuple[int, dict[str, list[Scalar]]]
_Key = TypeVar("_Key", str, int)
#: Good and bad values per decision node (its identity), over all the positions it was reached at.
_Tied = tuple[dict[int, list[Scalar]], dict[int, list[Scalar]]]


class TPE(Optimizer):
    """Tree-structured Parzen Estimator (see the module docstring).

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
        ``None`` (the seed's equal weights) keeps every weight at 1.
    bounds_as_neighbours:
        Whether a parameter's bounds count as neighbours of its lowest and
        highest observations in the bandwidth rule (the seed's); ``False``,
        the default, is hyperopt's code and Optuna's ``consider_endpoints=False``.
    joint_every:
        Every ``joint_every``-th trial is a joint turn (Optuna's multivariate
        view, see the module docstring) when 3 to 10 numbers are active in
        every trial; ``None`` for none. Ignored with ``multivariate=True``,
        where every turn is joint.
    """

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
    ) -> None:
        if not callable(gamma) and not (isinstance(gamma, (int, float)) and 0 < gamma < 1):
            raise ConfigError(f"gamma must be in (0, 1) or a function of n, but got gamma={gamma!r}")
        check_int("n_candidates", n_candidates)
        check_int("n_startup", n_startup, minimum=0)
        check_positive("prior_weight", prior_weight)
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
        self.gamma = gamma
        self.n_candidates = n_candidates
        self.n_startup = n_startup
        self.prior_weight = float(prior_weight)
        self.multivariate = multivariate
        self.constant_liar = constant_liar
        self.forget = forget
        self.bounds_as_neighbours = bounds_as_neighbours
        self.joint_every = joint_every

    @classmethod
    def hyperopt(cls, **options: object) -> TPE:
        """The seed's TPE (seeds/000, Bergstra et al. 2011): gamma 0.25, 24
        candidates, 20 start-up trials, the prior weighing as one observation,
        the bounds as neighbours, every observation weighing 1 (no forgetting);
        ``options`` override any of them."""
        settings: dict[str, object] = {
            "gamma": 0.25,
            "n_candidates": 24,
            "n_startup": 20,
            "prior_weight": 1.0,
            "bounds_as_neighbours": True,
            "forget": None,
            "joint_every": None,
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
        good = [complete[i].config for i in np.sort(order[:k])]
        worse = [complete[i].config for i in np.sort(order[k:])]
        below, (n_worse, worse_columns) = _columns(good), _columns(worse)
        recursive = analyze(root).recursive
        tied_good = _node_columns(root, good) if recursive else {}
        tied_worse = _node_columns(root, worse) if recursive else {}
        every = self.joint_every if self._has_joint_turns(root, below, (n_worse, worse_columns)) else None
        first = len(history.complete) + len(history.failed) + len(history.pending)
        for _ in range(n):
            if every is not None and (first + len(out)) % every == every - 1:
                with_batch = History(history.complete, history.failed, (*history.pending, *out))
                out.extend(self._joint_view().suggest(space, with_batch, 1, rng))
                continue
            extra = [*history.failed, *((*history.pending, *out) if self.constant_liar else ())]
            above = (n_worse + len(extra), _concat(worse_columns, _columns(extra)[1]))
            tied = (tied_good, _concat(tied_worse, _node_columns(root, extra))) if recursive else None
            propose = functools.partial(self._propose, root, below, above, rng, tied)
            out.append(unseen(root, propose, [*seen, *out], rng))
        return out

    def _has_joint_turns(self, root: Space, below: _Columns, above: _Columns) -> bool:
        """Whether every ``joint_every``-th suggestion is the joint view's: when
        set, when this TPE is not itself multivariate, and when
        ``JOINT_MIN_NUMBERS`` to ``JOINT_MAX_NUMBERS`` numeric addresses were
        active in every completed trial (see the module docstring)."""
        if self.joint_every is None or self.multivariate:
            return False
        return JOINT_MIN_NUMBERS <= len(_common_numeric(root, below, above)) <= JOINT_MAX_NUMBERS

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
    ) -> Config:
        """The best of ``n_candidates`` whole configurations drawn from ``l``.

        Candidate ``j`` is walk ``j`` through the space, taking at each address
        it reaches the ``j``-th of that address's draws from ``l_a``; its score
        is ``sum_a log l_a(x_a) - log g_a(x_a)`` over the addresses it visits.
        Each address's draws and log ratios are computed once, in one array
        call, the first time a walk reaches it. With ``tied`` (a recursive
        space), an address no good trial reached uses its node's estimators
        pooled over every position (see the module docstring)."""
        fixed = self._joint(root, below, above, rng) if self.multivariate else {}
        flat = _flat_addresses(root)
        if flat is not None:
            return self._propose_flat(root, flat, below, above, fixed, rng)
        pools: dict[tuple[str, tuple[int, ...]], tuple[list[Scalar], np.ndarray]] = {}
        configs: list[Config] = []
        scores = np.zeros(self.n_candidates)
        for j in range(self.n_candidates):

            def decide(address: str, node: Decision, allowed: tuple[int, ...], j: int = j) -> Scalar:
                if address in fixed:
                    return fixed[address]
                key = (address, allowed)
                if key not in pools:
                    good, bad = below[1].get(address, []), above[1].get(address, [])
                    if not good and tied is not None:
                        good, bad = tied[0].get(id(node), []), tied[1].get(id(node), [])
                    pools[key] = self._draws(node, allowed, good, bad, rng)
                values, log_ratio = pools[key]
                scores[j] += log_ratio[j]
                return values[j]

            configs.append(walk(root, decide)[0])
        return configs[int(np.argmax(scores))]

    def _propose_flat(
        self,
        root: Space,
        flat: list[tuple[str, Decision]],
        below: _Columns,
        above: _Columns,
        fixed: dict[str, Scalar],
        rng: np.random.Generator,
    ) -> Config:
        """:meth:`_propose` for a space without joins, where every candidate
        visits every address: the same draws, in walk order, and the same
        winner, scored as arrays and built by a single walk."""
        columns: dict[str, list[Scalar]] = {}
        scores = np.zeros(self.n_candidates)
        for address, node in flat:
            if address not in fixed:
                good, bad = below[1].get(address, []), above[1].get(address, [])
                columns[address], log_ratio = self._draws(node, (), good, bad, rng)
                scores += log_ratio
        j = int(np.argmax(scores))
        chosen = {a: column[j] for a, column in columns.items()} | fixed
        return walk(root, lambda address, node, allowed: chosen[address])[0]

    def _draws(
        self,
        node: Decision,
        allowed: tuple[int, ...],
        good: list[Scalar],
        bad: list[Scalar],
        rng: np.random.Generator,
    ) -> tuple[list[Scalar], np.ndarray]:
        """``n_candidates`` draws from one address's ``l_a`` and their ``log l_a - log g_a``.

        An address no trial has reached is drawn from the space's prior, and
        adds nothing to a score (l and g are both the prior there)."""
        m = self.n_candidates
        if not good and not bad:
            return [draw_decision(node, allowed, rng) for _ in range(m)], np.zeros(m)
        if isinstance(node, (Real, Int)):
            l_est, g_est = self._numeric(node, good), self._numeric(node, bad)
            x = np.clip(l_est.sample(rng, m), node.low, node.high)
            log_ratio = l_est.logpdf(x) - g_est.logpdf(x)
            values: list[Scalar] = [int(v) for v in np.round(x)] if isinstance(node, Int) else x.tolist()
            return values, log_ratio
        labels, prior = _options(node, allowed)
        index = {label: i for i, label in enumerate(labels)}
        l_cat, g_cat = self._categorical(prior, index, good), self._categorical(prior, index, bad)
        draws = l_cat.sample(rng, m)
        return [labels[d] for d in draws.tolist()], l_cat.logpdf(draws) - g_cat.logpdf(draws)

    def _numeric(self, node: Real | Int, values: list[Scalar]) -> NumericParzen:
        weights = forgetting_weights(len(values), self.forget)
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
        self, root: Space, below: _Columns, above: _Columns, rng: np.random.Generator
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
        l_dims = [self._numeric(nodes[a], good.get(a, [])) for a in common]
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
    order, from the configs where the address was active. Consecutive configs
    with the same addresses are transposed at once (one run for a flat space),
    so this costs O(total decisions) with little Python per decision."""
    columns: dict[str, list[Scalar]] = {}
    rows = (config.to_dict() for config in configs)
    for keys, run in itertools.groupby(rows, key=tuple):
        for address, values in zip(keys, zip(*(tuple(row.values()) for row in run))):
            columns.setdefault(address, []).extend(values)
    return len(configs), columns


def _strictly_below(sorted_losses: np.ndarray, k: int) -> int:
    """How many losses lie strictly below ``y*``, the best loss outside the
    ``k`` best: ``k`` unless ties straddle the boundary, which all go to g
    (seeds/000: l for ``y < y*``, g for ``y >= y*``). A plateau of equal
    losses larger than the quantile then leaves l to the prior, so the search
    moves off it instead of sampling it over and over."""
    if k >= len(sorted_losses):
        return k
    return int(np.searchsorted(sorted_losses, sorted_losses[k], side="left"))


def _node_columns(root: Space, configs: Sequence[Config]) -> dict[int, list[Scalar]]:
    """Each decision node's values across ``configs`` at every position where
    they reached it, keyed by the node's identity (a recursive space visits one
    node at many addresses). A config the space no longer accepts adds nothing."""
    columns: dict[int, list[Scalar]] = {}
    for config in configs:
        try:
            decisions = trace(root, config)
        except ConfigError:
            continue
        for address, node in decisions:
            columns.setdefault(id(node), []).append(config[address])
    return columns


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
