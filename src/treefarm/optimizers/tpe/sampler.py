"""TPE's policy: prior draws for a start-up, then for each member of a batch a
product turn (one :class:`~treefarm.optimizers.tpe.proposal.Proposal` from the
good and bad columns) or a joint turn (the multivariate view); see the package
docstring of :mod:`treefarm.optimizers.tpe`."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...exceptions import ConfigError
from ...space import Config, Space, analyze, convert, sample
from ...validation import check_bool, check_int, check_nonnegative, check_positive
from ..base import History, Observation, Optimizer, variant
from ..unseen import unseen
from .constraints import constraint_splits
from .parzen import Parzen
from .pooled import node_columns
from .proposal import ColumnPair, Proposal, common_numeric
from .split import Columns, Tied, columns, concat, split, tenth, weighted_columns

__all__ = ["HYPEROPT_OPTIONS", "HYPEROPT_TUNED", "JOINT_MAX_NUMBERS", "JOINT_MIN_NUMBERS", "TPE"]

Gamma = float | Callable[[int], int]
#: The fewest and the most always-active numbers for which ``TPE()`` takes joint turns (package docstring).
JOINT_MIN_NUMBERS, JOINT_MAX_NUMBERS = 3, 10
#: :meth:`TPE.hyperopt`'s options and tuned settings (Bergstra et al. 2011, as hyperopt runs it).
HYPEROPT_OPTIONS: dict[str, Any] = {"gamma": 0.25, "n_candidates": 24, "n_startup": 20, "prior_weight": 1.0}
HYPEROPT_TUNED: dict[str, Any] = {
    "bounds_as_neighbours": True, "forget": None, "joint_every": None, "rank_weights": 0.0, "always_joint": 0
}


class TPE(Optimizer):
    """Tree-structured Parzen Estimator (see :mod:`treefarm.optimizers.tpe` and ``docs/design/tpe.md``).

    Parameters
    ----------
    gamma:
        The fraction of trials that make ``l(x)`` (``ceil(gamma n)``), or a
        function of ``n`` giving their number. Lower it to exploit the very
        best trials harder on a long study; raise it on a noisy objective.
    n_candidates:
        Draws from ``l(x)`` per decision: more is greedier and slower.
    n_startup:
        Completed trials before the model is used (random draws until then):
        raise it on a space of many decisions, lower it on a short budget.
    prior_weight:
        Weight of the prior component relative to one observation: raise it
        to keep exploring the whole space longer.
    multivariate:
        Every turn joint: one estimator over the always-active numbers, for
        numbers known to interact (rather than every ``joint_every``-th turn).
    constant_liar:
        Count pending trials as bad observations, so parallel workers spread
        out; ``False`` only when pending trials should not steer suggestions.

    Notes
    -----
    The tuned settings (:attr:`Optimizer.tuned`, the benchmark's variants, not
    options): ``forget`` (linear forgetting: all but the newest ``forget``
    observations of an estimator weigh less with age, hyperopt's ``LF = 25``;
    ``None``, the paper's equal weights), ``bounds_as_neighbours`` (whether a
    parameter's bounds count as neighbours of its lowest and highest
    observations in the bandwidth rule, the paper's; ``False`` is hyperopt's
    code and Optuna's ``consider_endpoints=False``), ``joint_every`` (every
    ``joint_every``-th trial is a joint turn when 3 to 10 numbers are active in
    every trial; ``None`` for none), ``rank_weights`` (the power ``p`` of the
    good trials' rank weights in the numeric estimators of ``l``: the ``i``-th
    best of ``k`` weighs ``(ln(k + 1/2) - ln i) ** p``, tied losses sharing
    their mean rank; ``0``, the paper's equal weights), ``always_joint`` (with
    3 to ``always_joint`` numbers active in every trial, every turn is joint;
    ``0`` for never) and ``constraints`` (``"ctpe"``: one density ratio per
    constraint scoring the candidates, c-TPE,
    :mod:`treefarm.optimizers.tpe.constraints`; ``"rank"``: the constraints only
    in the feasible-first Pareto order that is the loss). ``auto``'s TPE turns
    run with the paper's bandwidths, equal weights and no joint turns.
    """

    searches_recursive = True
    tuned = ("forget", "bounds_as_neighbours", "joint_every", "rank_weights", "always_joint", "constraints")
    _forget: int | None = 25
    _bounds_as_neighbours: bool = False
    _joint_every: int | None = 4
    _rank_weights: float = 3.0
    _always_joint: int = 5
    _constraints: str = "ctpe"

    def __init__(
        self,
        *,
        gamma: Gamma = 0.25,
        n_candidates: int = 24,
        n_startup: int = 10,
        prior_weight: float = 1.0,
        multivariate: bool = False,
        constant_liar: bool = True,
    ) -> None:
        if not callable(gamma) and not (isinstance(gamma, (int, float)) and 0 < gamma < 1):
            raise ConfigError(f"gamma must be in (0, 1) or a function of n, but got gamma={gamma!r}")
        check_int("n_candidates", n_candidates)
        check_int("n_startup", n_startup, minimum=0)
        check_positive("prior_weight", prior_weight)
        check_bool("multivariate", multivariate)
        check_bool("constant_liar", constant_liar)
        self.gamma = gamma
        self.n_candidates = n_candidates
        self.n_startup = n_startup
        self.prior_weight = float(prior_weight)
        self.multivariate = multivariate
        self.constant_liar = constant_liar

    def check_tuned(self) -> None:
        super().check_tuned()
        rank_weights = self._rank_weights
        check_nonnegative("rank_weights", rank_weights)
        if not math.isfinite(rank_weights):
            raise ConfigError(f"rank_weights must be a finite number >= 0, but got rank_weights={rank_weights!r}")
        self._rank_weights = float(rank_weights)
        check_bool("bounds_as_neighbours", self._bounds_as_neighbours)
        check_int("forget", self._forget, or_none=True)
        check_int("joint_every", self._joint_every, or_none=True)
        check_int("always_joint", self._always_joint, minimum=0)
        if self._constraints not in ("rank", "ctpe"):
            raise ConfigError(f"constraints must be 'rank' or 'ctpe', but got constraints={self._constraints!r}")

    @classmethod
    def hyperopt(cls, **options: object) -> TPE:
        """The TPE of Bergstra et al. 2011 as hyperopt documents it: gamma 0.25, 24
        candidates, 20 start-up trials, the prior weighing as one observation,
        the bounds as neighbours, every observation weighing 1 (no forgetting, no rank weights)
        and no joint turns; ``options`` override any of the constructor's."""
        return variant(cls, HYPEROPT_TUNED, **(HYPEROPT_OPTIONS | options))

    def n_below(self, n: int) -> int:
        """How many of ``n`` completed trials make ``l(x)``: ``ceil(gamma n)``,
        at least 1 (``suggest`` takes fewer when losses tie across the boundary,
        see :func:`treefarm.optimizers.tpe.split.strictly_below`)."""
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
        template = self._template(root, complete, rng)
        joint, every = self._turns(root, template.objective.good, template.objective.bad)
        template = dataclasses.replace(template, joint=joint)
        explore = functools.partial(sample, root, rng) if template.tied is not None else None
        first = len(history.complete) + len(history.failed) + len(history.pending)
        for _ in range(n):
            if every is not None and (first + len(out)) % every == every - 1:
                with_batch = History(history.complete, history.failed, (*history.pending, *out))
                out.extend(self._joint_view().suggest(space, with_batch, 1, rng))
                continue
            extra = [*history.failed, *((*history.pending, *out) if self.constant_liar else ())]
            proposal = _with_bad(template, extra)
            out.append(unseen(root, proposal, [*seen, *out], rng, explore=explore))
        return out

    def _template(self, root: Space, complete: Sequence[Observation], rng: np.random.Generator) -> Proposal:
        """The proposal from the completed trials alone: the good and the worse
        (:func:`~treefarm.optimizers.tpe.split.split`), each constraint's split with
        ``constraints="ctpe"``, and a recursive space's pooled columns; each batch
        member adds its failed and pending trials to the bad side (:func:`_with_bad`)."""
        good_and_worse = split(complete, self.n_below(len(complete)), self._rank_weights)
        good, ranked = weighted_columns(good_and_worse.good, good_and_worse.weights)
        splits = constraint_splits(complete, self.n_below) if self._constraints == "ctpe" else []
        tied = None
        if analyze(root).recursive:
            tied = Tied(node_columns(root, good_and_worse.good), node_columns(root, good_and_worse.worse))
        return Proposal(
            root=root,
            parzen=Parzen(self.n_candidates, self.prior_weight, self._forget, self._bounds_as_neighbours),
            objective=ColumnPair(good, columns(good_and_worse.worse)),
            rng=rng,
            ranked=ranked,
            tied=tied,
            constraints=[ColumnPair(columns(s.good), columns(s.worse)) for s in splits],
            gammas=[good_and_worse.gamma, *(s.gamma for s in splits)],
            joint=False,
        )

    def _turns(self, root: Space, good: Columns, bad: Columns) -> tuple[bool, int | None]:
        """Whether every turn is joint and, if not, every how many trials a joint
        turn comes (``None``: never), from the number of numeric addresses active
        in every completed trial: every turn with ``multivariate`` or with
        ``JOINT_MIN_NUMBERS`` to ``always_joint`` of them, every ``joint_every``-th
        with up to ``JOINT_MAX_NUMBERS`` (see the package docstring); none when
        ``joint_every`` is ``None``."""
        if self.multivariate:
            return True, None
        if self._joint_every is None:
            return False, None
        numbers = len(common_numeric(root, good, bad))
        if JOINT_MIN_NUMBERS <= numbers <= self._always_joint:
            return True, None
        return False, self._joint_every if JOINT_MIN_NUMBERS <= numbers <= JOINT_MAX_NUMBERS else None

    def _joint_view(self) -> TPE:
        """The optimizer of the joint turns: this TPE's settings with the
        multivariate estimator and Optuna's good set, ``min(ceil(0.1 n), 25)``
        (:func:`~treefarm.optimizers.tpe.split.tenth`)."""
        options = {k: v for k, v in vars(self).items() if not k.startswith("_")}
        tuned = self.tuned_settings() | {"joint_every": None}
        return variant(TPE, tuned, **(options | {"multivariate": True, "gamma": tenth}))


def _with_bad(template: Proposal, extra: Sequence[Config]) -> Proposal:
    """``template`` with the configurations ``extra`` (failed and, with a constant
    liar, pending trials) added to the bad side, and fits of its own (a proposal
    redrawn for the same batch member reuses them)."""
    worse = template.objective.bad
    bad = Columns(worse.size + len(extra), concat(worse.values, columns(extra).values))
    tied = template.tied
    if tied is not None:
        tied = Tied(tied.good, concat(tied.bad, node_columns(template.root, extra)))
    return dataclasses.replace(template, objective=ColumnPair(template.objective.good, bad), tied=tied, fits={})
