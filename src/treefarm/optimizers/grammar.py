"""Grammar search: evolution of derivation trees, guided by a model of good productions.

Made for recursive spaces, where address-wise models (TPE per address, the
GP's unit cube) see two equal subtrees at different depths as unrelated
parameters. Each suggestion after ``n_startup`` distinct prior draws:

1. splits the completed observations into the best ``gamma`` fraction
   (good) and the rest (bad), as TPE does (Bergstra et al., 2011), for the
   model of step 4;
2. makes ``n_candidates`` children of good parents (the best of each of the
   best ``gamma`` fraction of structures, below; biased towards the best
   by ``greed``) by the moves of genetic
   programming on derivation trees — hoist, wrap and regrow of a subtree and
   numeric steps (:mod:`treefarm.optimizers.anneal_moves`), subtree crossover
   of two good parents (:func:`treefarm.optimizers.variation.crossover`) —
   and a few fresh prior draws (``p_prior``), so the search never stops
   exploring;
3. drops every child whose expression was already evaluated, failed, is
   pending or is another child's (equal under the ops' declared rules: the
   canonical form of :mod:`treefarm.space.canonical`);
4. returns the child with the largest ``log l(x) - log g(x)`` over its bag of
   productions (:mod:`treefarm.encoding.productions`,
   :mod:`treefarm.bo.models.bernoulli`), a TPE whose density sees where in a
   tree a production is only through its parent and grandparent, so what
   was learnt at one depth applies at every depth.

The parents are loss levels, not configurations: the good fraction is taken
of the best configuration of each *structure* (its decisions other than
numbers: which expression), so one structure whose constants keep improving
by a little cannot fill the good set with near copies of itself;
and structures whose losses agree to ``digits`` (:data:`DIGITS`, 6) significant digits are
one parent, the one with the fewest decisions (lexicographic parsimony
pressure, Luke & Panait, 2002). Equal losses are, almost always, equal
functions on the data: ``0 * A`` for any ``A``, a protected division by zero.
The figures that chose these rules are the design page
``docs/design/grammar.md``.

Neutral subtrees (:func:`neutral_subtrees`): an evaluated configuration at a
parent's loss level that differs from it only inside one subtree shows that
the subtree does not matter there (the ``A`` of ``0 * A``); the parent's
mutations then force their decision outside every such subtree, where a
change can still change the function (neutrality in genetic programming:
Galván-López & Poli, 2006). Both rules act only on evaluated losses, so the
search stays a function of the history.

Constants fitted inside a structure: with probability ``p_constants``, the
suggestion takes a good structure with numeric decisions, uniformly, keeps
it and moves only the numbers of its best configuration, by a (1+1)
evolution strategy whose step size follows the 1/5th success rule replayed
over the evaluations of that structure
(:mod:`treefarm.optimizers.structure_constants`): the step widens while
moving the constants pays and narrows around their optimum. An operation
applied to continuous spaces makes a structure a function of its
constants. On spaces without numbers both rules change nothing.

Stateless: everything comes from the history and the generator; the cache of
canonical forms and features only saves recomputing them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np

from ..bo.models.bernoulli import log_ratio, log_ratio_weights
from ..encoding.productions import feature_matrix, productions
from ..space import Config, Space, analyze, canonical, convert, has_rules, sample
from ..space.config import Scalar
from ..validation import check_int, check_positive, check_range
from .anneal_moves import neighbour
from .base import History, Observation, Optimizer
from .structure_constants import has_numbers, numbers, step_numbers, step_size, structure
from .variation import crossover

__all__ = ["GrammarSearch"]

#: Draws tried for a suggestion new to the history before a duplicate is accepted.
MAX_TRIES = 50
#: Cached canonical forms and features kept before the cache is emptied.
CACHE_SIZE = 200_000
#: Significant digits two losses share to be one level (see the module docstring).
DIGITS = 6


class GrammarSearch(Optimizer):
    """Model-guided evolution on derivation trees (see the module docstring).

    Parameters
    ----------
    n_startup:
        Prior draws first: more on a grammar whose good expressions are rare
        among short ones.
    n_candidates:
        Children scored by the model per suggestion: more is greedier.
    gamma:
        The good fraction, the parents: lower exploits the best few harder.
    p_prior:
        The share of children drawn fresh from the prior: raise it when runs
        settle on one structure too early.
    digits:
        How many significant digits two losses share to be one level: fewer
        on a noisy objective, so noise does not rank structures.

    Notes
    -----
    The tuned settings (:attr:`Optimizer.tuned`, the benchmark's variants, not
    options): ``greed`` biases the choice of a parent towards the best (the good
    parent at rank ``floor(n_good u^greed)`` for a uniform ``u``; 1 is uniform over
    the good ones), ``p_crossover`` the share of children made by crossover,
    ``p_constants`` the chance of a constants-only step of a good structure,
    ``scale`` the numeric step of a mutation on the unit scale (and the first
    step of a structure's constants), ``rate`` the chance that each other
    decision of a mutated child moves too.

    The defaults were chosen on the 15 targets of ``bench/harness/symbolic.py``'s
    suite with ``kernel_search`` and ``symbolic_regression`` (30 seeds) and
    checked on its two held-out sets (``docs/design/grammar.md``): ``gamma`` 0.1,
    4 candidates and 6 digits (0.25, 8 and 12 before) had a lower median on
    13 of the 17 screened targets and on 6 and 8 of the 14 of each held-out
    set, none higher beyond noise: most of the screened gain did not carry over.
    """

    searches_recursive = True
    tuned = ("p_crossover", "p_constants", "scale", "rate", "greed")
    _p_crossover: float = 0.25
    _p_constants: float = 0.2
    _scale: float = 0.2
    _rate: float = 0.2
    _greed: float = 6.0

    def __init__(
        self,
        *,
        n_startup: int = 10,
        n_candidates: int = 4,
        gamma: float = 0.1,
        p_prior: float = 0.05,
        digits: int = DIGITS,
    ) -> None:
        check_int("n_startup", n_startup)
        check_int("n_candidates", n_candidates)
        check_range("gamma", gamma, 0.0, 1.0)
        check_positive("gamma", gamma)
        check_range("p_prior", p_prior, 0.0, 1.0)
        check_int("digits", digits)
        self.n_startup = n_startup
        self.n_candidates = n_candidates
        self.gamma = gamma
        self.p_prior = p_prior
        self.digits = digits
        self._cache: dict[tuple[Space, Config], tuple[str, frozenset[str]]] = {}
        self._structures: dict[tuple[Space, Config], frozenset[tuple[str, Scalar]]] = {}

    def check_tuned(self) -> None:
        super().check_tuned()
        check_range("p_crossover", self._p_crossover, 0.0, 1.0)
        check_range("p_constants", self._p_constants, 0.0, 1.0)
        check_positive("scale", self._scale)
        check_range("rate", self._rate, 0.0, 1.0)
        check_positive("greed", self._greed)

    def suggest(self, space: Space, history: History, n: int, rng: np.random.Generator) -> list[Config]:
        root = convert(space)
        analyze(root)
        rules = has_rules(root)
        seen = {self._key(root, c, rules) for c in history.seen()}
        ordered = [o for o in history.complete if math.isfinite(o.loss)]
        complete = sorted(ordered, key=lambda o: o.loss)
        out: list[Config] = []
        for _ in range(n):
            if len(complete) < self.n_startup:
                config = self._fresh(root, seen, rules, lambda: sample(root, rng))
            else:
                config = self._evolve(root, complete, ordered, seen, rules, rng)
            seen.add(self._key(root, config, rules))
            out.append(config)
        return out

    def _entry(self, root: Space, config: Config, rules: bool) -> tuple[str, frozenset[str]]:
        """The canonical key and the productions of ``config`` (cached)."""
        entry = self._cache.get((root, config))
        if entry is None:
            if len(self._cache) > CACHE_SIZE:
                self._cache.clear()
            key = canonical(root, config) if rules else config.to_json()
            entry = self._cache[(root, config)] = (key, productions(root, config))
        return entry

    def _key(self, root: Space, config: Config, rules: bool) -> str:
        return self._entry(root, config, rules)[0]

    def _structure(self, root: Space, config: Config) -> frozenset[tuple[str, Scalar]]:
        """The structure of ``config`` (cached)."""
        found = self._structures.get((root, config))
        if found is None:
            if len(self._structures) > CACHE_SIZE:
                self._structures.clear()
            found = self._structures[(root, config)] = structure(root, config)
        return found

    def _fresh(self, root: Space, seen: set[str], rules: bool, draw: Callable[[], Config]) -> Config:
        """The first of ``MAX_TRIES`` draws that is new to ``seen`` (else the last)."""
        for _ in range(MAX_TRIES):
            config = draw()
            if self._key(root, config, rules) not in seen:
                break
        return config

    def _evolve(
        self,
        root: Space,
        complete: list[Observation],
        ordered: list[Observation],
        seen: set[str],
        rules: bool,
        rng: np.random.Generator,
    ) -> Config:
        n_good = max(1, math.ceil(self.gamma * len(complete)))
        parents = self._parents(root, complete)
        good = [o.config for o in parents]
        fitted = [c for c in good if has_numbers(root, c)] if rng.random() < self._p_constants else []
        if fitted:
            centre = fitted[int(rng.integers(len(fitted)))]
            sigma = self._sigma(root, centre, ordered)
            config = self._fresh(root, seen, rules, lambda: step_numbers(root, centre, rng, sigma))
            if self._key(root, config, rules) not in seen:
                return config
        children = self._children(root, parents, complete, seen, rules, rng)
        if not children:
            return self._fresh(root, seen, rules, lambda: sample(root, rng))
        bags = [self._entry(root, o.config, rules)[1] for o in complete]
        vocabulary = {f: j for j, f in enumerate(sorted(set().union(*bags)))}
        w1, w0 = log_ratio_weights(
            feature_matrix(bags[:n_good], vocabulary), feature_matrix(bags[n_good:], vocabulary)
        )
        X = feature_matrix([self._entry(root, c, rules)[1] for c in children], vocabulary)
        scores = log_ratio(X, w1, w0)
        top = np.flatnonzero(scores >= scores.max() - 1e-12)
        return children[int(top[int(rng.integers(len(top)))])]

    def _sigma(self, root: Space, centre: Config, ordered: list[Observation]) -> float:
        """The numeric step of ``centre``'s structure: the 1/5th rule over its evaluations."""
        mine = self._structure(root, centre)
        mates = [o for o in ordered if self._structure(root, o.config) == mine]
        points = np.array([numbers(root, o.config) for o in mates])
        return step_size(points, [o.loss for o in mates], self._scale)

    def _parents(self, root: Space, complete: list[Observation]) -> list[Observation]:
        """The good ``gamma`` fraction of the loss levels, best first, each by
        the smallest best observation of a structure at that level."""
        ranked: dict[frozenset[tuple[str, Scalar]], Observation] = {}
        for o in complete:
            ranked.setdefault(self._structure(root, o.config), o)
        levels: dict[float, Observation] = {}
        for o in ranked.values():
            level = _level(o.loss, self.digits)
            if level not in levels or len(o.config) < len(levels[level].config):
                levels[level] = o
        best = list(levels.values())
        return best[: max(1, math.ceil(self.gamma * len(best)))]

    def _children(
        self,
        root: Space,
        parents: list[Observation],
        complete: list[Observation],
        seen: set[str],
        rules: bool,
        rng: np.random.Generator,
    ) -> list[Config]:
        """Up to ``n_candidates`` distinct children new to ``seen``."""
        good = [o.config for o in parents]
        children: dict[str, Config] = {}
        avoided: dict[int, frozenset[str]] = {}
        at_level: dict[float, list[Observation]] = {}
        for o in complete:
            at_level.setdefault(_level(o.loss, self.digits), []).append(o)
        for _ in range(self.n_candidates):
            u = rng.random()
            i = int(len(good) * rng.random() ** self._greed)
            parent = good[i]
            if u < self.p_prior:
                child = sample(root, rng)
            elif u < self.p_prior + self._p_crossover and len(good) > 1:
                child = crossover(root, parent, good[int(rng.integers(len(good)))], rng)
            else:
                if i not in avoided:
                    avoided[i] = neutral_subtrees(parents[i], at_level[_level(parents[i].loss, self.digits)], self.digits)
                child = neighbour(root, parent, rng, scale=self._scale, rate=self._rate, avoid=avoided[i])
            key = self._key(root, child, rules)
            if key not in seen:
                children.setdefault(key, child)
        return list(children.values())


def _level(loss: float, digits: int) -> float:
    """``loss`` to ``digits`` significant digits: equal levels are taken for the same function on the data."""
    return float(f"{loss:.{digits}g}")


def neutral_subtrees(parent: Observation, complete: list[Observation], digits: int = DIGITS) -> frozenset[str]:
    """The addresses of ``parent``'s subtrees whose change left the loss unchanged:
    for each other evaluated configuration with the parent's loss level that
    differs from it only inside one proper subtree of it (its decisions at
    that address and below), that subtree. A configuration that differs in
    two sibling subtrees says nothing: ``x * 1`` against ``1 * x`` is the same
    function, not a node that does not matter."""
    found = set()
    mine, level = parent.config, _level(parent.loss, digits)
    for o in complete:
        if o.config is mine or _level(o.loss, digits) != level:
            continue
        differ = [a for a in {*mine, *o.config} if mine.get(a) != o.config.get(a)]
        if not differ:
            continue
        shared = itertools.takewhile(lambda parts: len(set(parts)) == 1, zip(*(a.split(".") for a in differ)))
        at = ".".join(parts[0] for parts in shared)
        if at in mine and not all(a == at or a.startswith(at + ".") for a in mine):
            found.add(at)
    return frozenset(found)
