"""An Optuna sampler that runs treefarm's optimizers: ``TreefarmSampler(algo="gp")``; and a way in
from Optuna: :func:`import_study` copies an Optuna study into treefarm (see
:mod:`treefarm.integration.optuna_import`).

An Optuna user swaps one line (``optuna.create_study(sampler=TreefarmSampler("gp"))``)
and their define-by-run objective is searched by treefarm's GP, TPE,
annealing or random search. Per trial (Optuna's call order):

1. ``infer_relative_search_space``: the parameters of the completed trials
   with one distribution each (single-valued ones left out, they make no
   decision) that are either in every completed trial (Optuna's
   intersection search space) or present exactly when a categorical one
   takes one value: define-by-run's conditional parameters
   (:mod:`treefarm.integration.optuna_tree`);
2. ``sample_relative``: that space becomes a treefarm family of primitives
   (:mod:`treefarm.integration.optuna_space`), in which a categorical with
   conditional parameters is a join over its choices, the study's trials a
   :class:`~treefarm.optimizers.History` (complete trials with a finite
   value are observations, values negated for ``maximize``; failed, pruned
   and non-finite ones are failed configurations; running and waiting ones
   are pending, so parallel workers spread out), and the optimizer suggests
   one configuration for all of them jointly;
3. ``sample_independent``: a parameter outside that space (new, nested
   deeper than one categorical, present under several of its values, or one
   whose range changed) is suggested by the same optimizer on its own, from
   the trials that have it with the same distribution.

Like treefarm's own studies, the sampler keeps no state between calls: a
suggestion's generator comes from the sampler's seed and the trial number,
so the same seed gives the same suggestions in a resumed study or another
process, whatever the order of the calls (``reseed_rng`` changes nothing).
"""

from __future__ import annotations

import math
import secrets
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState

from ..exceptions import StudyError
from ..optimizers import History, Observation, Optimizer, make_optimizer
from ..pareto import ranking_losses
from ..space import Config
from ..validation import check_callable, check_int
from .optuna_import import import_study, imported_space
from .optuna_space import single_value
from .optuna_tree import Tree, consistent_union, infer_tree

__all__ = ["TreefarmSampler", "import_study", "imported_space", "trials_to_history"]

_PENDING = (TrialState.RUNNING, TrialState.WAITING)


def trials_to_history(
    trials: Sequence[FrozenTrial],
    tree: Tree | Mapping[str, BaseDistribution],
    *,
    direction: StudyDirection = StudyDirection.MINIMIZE,
    directions: Sequence[StudyDirection] | None = None,
    exclude: int | None = None,
    constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
) -> History:
    """Optuna trials as the treefarm history of ``tree`` (a search space is a flat tree).

    Trials without a parameter the tree asks of them (with the same
    distribution) are left out, as is trial number ``exclude`` (the one being
    sampled); see the module docstring for the states. With several
    ``directions``, or constraints (``constraints_func(trial)`` when given, else
    those the trial holds: Optuna's ``trial.constraints``, set by
    ``trial.set_constraint`` or by an Optuna sampler's ``constraints_func``), each observation carries every
    objective's loss and the constraints, and its ``loss`` is its place in the
    Pareto order (:class:`~treefarm.optimizers.Observation`).
    """
    tree = tree if isinstance(tree, Tree) else Tree.flat(tree)
    signs = np.array([-1.0 if d == StudyDirection.MAXIMIZE else 1.0 for d in (directions or [direction])])
    complete: list[Observation] = []
    rows: list[tuple[float, ...]] = []
    constraints: list[tuple[float, ...]] = []
    failed: list[Config] = []
    pending: list[Config] = []
    for trial in trials:
        config = None if trial.number == exclude else tree.config(trial)
        if config is None:
            continue
        values = trial.values if trial.state == TrialState.COMPLETE else None
        if values is not None and len(values) == len(signs) and all(map(math.isfinite, values)):
            losses = tuple(float(v) for v in np.asarray(values) * signs)
            complete.append(Observation(config, losses[0]))
            rows.append(losses)
            constraints.append(_constraints(trial, constraints_func))
        elif trial.state in _PENDING:
            pending.append(config)
        else:
            failed.append(config)
    if complete and (len(signs) > 1 or any(constraints)):
        k = max(map(len, constraints))
        C = np.array([c + (0.0,) * (k - len(c)) for c in constraints]) if k else None
        keys = ranking_losses(np.array(rows), C)
        complete = [o.ranked(key, row, c) for o, key, row, c in zip(complete, keys, rows, constraints)]
    return History(tuple(complete), tuple(failed), tuple(pending))


def _constraints(trial: FrozenTrial, constraints_func: Callable[[FrozenTrial], Sequence[float]] | None) -> tuple[float, ...]:
    """The trial's constraint values: ``constraints_func``'s, else those stored with the trial."""
    values = tuple(float(c) for c in (trial.constraints.values() if constraints_func is None else constraints_func(trial)))
    if any(math.isnan(c) for c in values):
        raise StudyError(f"constraint values must not be NaN, but got constraints={list(values)} (trial {trial.number})")
    return values


class TreefarmSampler(BaseSampler):
    """Optuna sampler running a treefarm optimizer; see the module docstring.

    ``algo`` is an optimizer name (``"tpe"``, ``"gp"``, ``"anneal"``,
    ``"random"``) or an :class:`~treefarm.optimizers.Optimizer` such as
    ``treefarm.GP(acquisition="ucb")``; ``seed`` None draws one. A study with
    several objectives is searched on its Pareto order (``"nsga2"`` reads the
    vectors themselves). Constraints (feasible when each is <= 0) make
    infeasible trials rank after feasible ones: those the objective sets with
    Optuna's ``trial.set_constraint(key, value)`` (which Optuna's own
    ``study.best_trials`` reads too), or ``constraints_func(trial) -> [c1, ...]``,
    called on the completed trials whenever the sampler reads them (a function of
    the trial, so every process computes the same values; Optuna 5 deprecates
    its samplers' ``constraints_func`` for ``set_constraint``, and it is not stored).
    """

    def __init__(
        self,
        algo: str | Optimizer = "tpe",
        *,
        seed: int | None = None,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
    ) -> None:
        check_int("seed", seed, 0, error=StudyError, or_none=True)
        check_callable("constraints_func", constraints_func, error=StudyError, or_none=True)
        self.algo = algo
        self.seed = seed
        self.constraints_func = constraints_func
        self._optimizer = make_optimizer(algo)
        self._seed = seed if seed is not None else secrets.randbits(63)

    def __repr__(self) -> str:
        return f"TreefarmSampler({self._optimizer!r}, seed={self.seed!r})"

    def _rng(self, trial: FrozenTrial, salt: int) -> np.random.Generator:
        return np.random.default_rng([self._seed, trial.number, salt])

    def _suggest(self, study: optuna.Study, trial: FrozenTrial, tree: Tree, salt: int) -> dict[str, Any]:
        """One configuration of ``tree`` from the optimizer, as Optuna parameter values."""
        history = History()
        if self._optimizer.needs_history:
            trials = study.get_trials(deepcopy=False)
            history = trials_to_history(
                trials, tree, directions=study.directions, exclude=trial.number, constraints_func=self.constraints_func
            )
        config = self._optimizer.suggest(tree.space(), history, 1, self._rng(trial, salt))[0]
        return tree.params(config)

    @staticmethod
    def _completed(study: optuna.Study) -> list[FrozenTrial]:
        return study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))

    def infer_relative_search_space(
        self, study: optuna.Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        """The parameters of the completed trials that fit a tree: those every trial
        has, and those present exactly when a categorical takes one value
        (:mod:`treefarm.integration.optuna_tree`); single-valued ones left out."""
        completed = self._completed(study)
        union = consistent_union(completed)
        return {name: union[name] for name in infer_tree(union, completed).names()}

    def sample_relative(
        self, study: optuna.Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        """The parameters of ``search_space`` suggested jointly by the optimizer
        (of a conditional parameter, only those of the chosen branch)."""
        tree = infer_tree(search_space, self._completed(study))
        if not tree.top:
            return {}
        return self._suggest(study, trial, tree, salt=0)

    def sample_independent(
        self,
        study: optuna.Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        """One parameter outside the relative space, suggested on its own."""
        if param_distribution.single():
            return single_value(param_distribution)
        salt = zlib.crc32(param_name.encode()) + 1
        return self._suggest(study, trial, Tree.flat({param_name: param_distribution}), salt)[param_name]
