"""An Optuna sampler that runs treefarm's optimizers: ``TreefarmSampler(algo="gp")``.

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
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import optuna
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState

from ..exceptions import StudyError
from ..optimizers import History, Observation, Optimizer, make_optimizer
from ..space import Config
from ..validation import check_int
from .optuna_space import single_value
from .optuna_tree import Tree, consistent_union, infer_tree

__all__ = ["TreefarmSampler", "trials_to_history"]

_PENDING = (TrialState.RUNNING, TrialState.WAITING)


def trials_to_history(
    trials: Sequence[FrozenTrial],
    tree: Tree | Mapping[str, BaseDistribution],
    *,
    direction: StudyDirection = StudyDirection.MINIMIZE,
    exclude: int | None = None,
) -> History:
    """Optuna trials as the treefarm history of ``tree`` (a search space is a flat tree).

    Trials without a parameter the tree asks of them (with the same
    distribution) are left out, as is trial number ``exclude`` (the one being
    sampled); see the module docstring for the states.
    """
    tree = tree if isinstance(tree, Tree) else Tree.flat(tree)
    sign = -1.0 if direction == StudyDirection.MAXIMIZE else 1.0
    complete: list[Observation] = []
    failed: list[Config] = []
    pending: list[Config] = []
    for trial in trials:
        config = None if trial.number == exclude else tree.config(trial)
        if config is None:
            continue
        if trial.state == TrialState.COMPLETE and trial.value is not None and math.isfinite(trial.value):
            complete.append(Observation(config, sign * trial.value))
        elif trial.state in _PENDING:
            pending.append(config)
        else:
            failed.append(config)
    return History(tuple(complete), tuple(failed), tuple(pending))


class TreefarmSampler(BaseSampler):
    """Optuna sampler running a treefarm optimizer; see the module docstring.

    ``algo`` is an optimizer name (``"tpe"``, ``"gp"``, ``"anneal"``,
    ``"random"``) or an :class:`~treefarm.optimizers.Optimizer` such as
    ``treefarm.GP(acquisition="ucb")``; ``seed`` None draws one. Single
    objective only: a multi-objective study raises ``ValueError``.
    """

    def __init__(self, algo: str | Optimizer = "tpe", *, seed: int | None = None) -> None:
        check_int("seed", seed, 0, error=StudyError, or_none=True)
        self.algo = algo
        self.seed = seed
        self._optimizer = make_optimizer(algo)
        self._seed = seed if seed is not None else secrets.randbits(63)

    def __repr__(self) -> str:
        return f"TreefarmSampler({self._optimizer!r}, seed={self.seed!r})"

    def _rng(self, trial: FrozenTrial, salt: int) -> np.random.Generator:
        return np.random.default_rng([self._seed, trial.number, salt])

    def _suggest(self, study: optuna.Study, trial: FrozenTrial, tree: Tree, salt: int) -> dict[str, Any]:
        """One configuration of ``tree`` from the optimizer, as Optuna parameter values."""
        self._raise_error_if_multi_objective(study)
        history = History()
        if self._optimizer.needs_history:
            trials = study.get_trials(deepcopy=False)
            history = trials_to_history(trials, tree, direction=study.direction, exclude=trial.number)
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
        self._raise_error_if_multi_objective(study)
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
