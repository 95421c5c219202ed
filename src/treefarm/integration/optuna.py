"""An Optuna sampler that runs treefarm's optimizers: ``TreefarmSampler(algo="gp")``.

An Optuna user swaps one line (``optuna.create_study(sampler=TreefarmSampler("gp"))``)
and their define-by-run objective is searched by treefarm's GP, TPE,
annealing or random search. Per trial (Optuna's call order):

1. ``infer_relative_search_space``: the parameters every completed trial
   has, with one distribution each (Optuna's intersection search space;
   single-valued ones left out, they make no decision);
2. ``sample_relative``: that space becomes a treefarm family of primitives
   (:mod:`treefarm.integration.optuna_space`), the study's trials a
   :class:`~treefarm.optimizers.History` (complete trials with a finite
   value are observations, values negated for ``maximize``; failed, pruned
   and non-finite ones are failed configurations; running and waiting ones
   are pending, so parallel workers spread out), and the optimizer suggests
   one configuration for all of them jointly;
3. ``sample_independent``: a parameter outside that space (a conditional one,
   or one whose range changed) is suggested by the same optimizer on its own,
   from the trials that have it with the same distribution.

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
from optuna.search_space import intersection_search_space
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState

from ..exceptions import StudyError
from ..optimizers import History, Observation, Optimizer, make_optimizer
from ..space import Config, Family, Space
from .optuna_space import from_decision, single_value, to_decision, to_space

__all__ = ["TreefarmSampler", "trials_to_history"]

_PENDING = (TrialState.RUNNING, TrialState.WAITING)


def _member(i: int) -> str:
    """The config address of the ``i``-th parameter of a family made by :func:`_space_of`."""
    return str(i)


def _space_of(distributions: Sequence[BaseDistribution]) -> Space:
    """A positional family with one primitive per distribution (addressed "0", "1", ...)."""
    return Family([to_space(d) for d in distributions], kind="list")


def _config_of(trial: FrozenTrial, search_space: Mapping[str, BaseDistribution]) -> Config | None:
    """The trial's decisions on ``search_space``, or None if it lacks a parameter
    there or drew it from another distribution."""
    decisions: dict[str, Any] = {}
    for i, (name, distribution) in enumerate(search_space.items()):
        if trial.distributions.get(name) != distribution:
            return None
        decisions[_member(i)] = to_decision(distribution, trial.params[name])
    return Config.trusted(decisions)


def trials_to_history(
    trials: Sequence[FrozenTrial],
    search_space: Mapping[str, BaseDistribution],
    *,
    direction: StudyDirection = StudyDirection.MINIMIZE,
    exclude: int | None = None,
) -> History:
    """Optuna trials as the treefarm history of ``search_space`` (see the module docstring).

    Trials without every parameter of the space (with the same distribution)
    are left out, as is trial number ``exclude`` (the one being sampled).
    """
    sign = -1.0 if direction == StudyDirection.MAXIMIZE else 1.0
    complete: list[Observation] = []
    failed: list[Config] = []
    pending: list[Config] = []
    for trial in trials:
        if trial.number == exclude:
            continue
        config = _config_of(trial, search_space)
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
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise StudyError(f"seed must be an integer >= 0 or None, but got seed={seed!r}")
        self.algo = algo
        self.seed = seed
        self._optimizer = make_optimizer(algo)
        self._seed = seed if seed is not None else secrets.randbits(63)

    def __repr__(self) -> str:
        return f"TreefarmSampler({self._optimizer!r}, seed={self.seed!r})"

    def _rng(self, trial: FrozenTrial, salt: int) -> np.random.Generator:
        return np.random.default_rng([self._seed, trial.number, salt])

    def _suggest(
        self,
        study: optuna.Study,
        trial: FrozenTrial,
        search_space: Mapping[str, BaseDistribution],
        salt: int,
    ) -> dict[str, Any]:
        """One configuration of ``search_space`` from the optimizer, as Optuna parameter values."""
        self._raise_error_if_multi_objective(study)
        history = History()
        if self._optimizer.needs_history:
            trials = study.get_trials(deepcopy=False)
            history = trials_to_history(trials, search_space, direction=study.direction, exclude=trial.number)
        space = _space_of(list(search_space.values()))
        config = self._optimizer.suggest(space, history, 1, self._rng(trial, salt))[0]
        return {
            name: from_decision(distribution, config[_member(i)])
            for i, (name, distribution) in enumerate(search_space.items())
        }

    def infer_relative_search_space(
        self, study: optuna.Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        """The intersection search space of the completed trials, without single-valued parameters."""
        completed = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        return {
            name: distribution
            for name, distribution in intersection_search_space(completed).items()
            if not distribution.single()
        }

    def sample_relative(
        self, study: optuna.Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        """All parameters of ``search_space`` suggested jointly by the optimizer."""
        self._raise_error_if_multi_objective(study)
        if not search_space:
            return {}
        return self._suggest(study, trial, search_space, salt=0)

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
        return self._suggest(study, trial, {param_name: param_distribution}, salt)[param_name]
