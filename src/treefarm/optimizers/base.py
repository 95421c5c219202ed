"""The optimizer protocol: a stateless function of the history.

An optimizer sees the search space, the history (completed observations as
losses to minimize, failed and pending configurations) and a random
generator, and returns ``n`` configurations. It keeps no state between calls,
so a resumed study, or a second worker reading the same storage, suggests
exactly what the first would have. Whatever an optimizer caches between calls
(a fitted model's hyperparameters, say) may only speed it up, never change
its output.

Call order, from the study: ``suggest(space, history, n, rng)`` once per
asked batch; ``history.pending`` holds the configurations being evaluated
right now (including those asked earlier in the same batch), so an optimizer
can steer away from them.
"""

from __future__ import annotations

import abc
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, TypeVar

import numpy as np

from ..exceptions import ConfigError, StudyError, format_values
from ..space import Config, Space
from .hints import Hint

__all__ = ["GridExhaustedError", "History", "Observation", "Optimizer", "variant"]


class GridExhaustedError(StudyError):
    """Every point of the grid is in the history: the grid search is done."""


@dataclass(frozen=True)
class Observation:
    """A completed evaluation: its configuration and its loss (lower is better).

    ``loss_variance`` is the variance of ``loss`` as an estimate of the
    configuration's loss, when the objective knows it (a mean over k folds
    with sample variance s^2: s^2 / k); 0 means exact or unknown. A model
    that can (the GP) weighs each observation by it.

    With several objectives or constraints the observation is *ranked*
    (:meth:`ranked`, :attr:`is_ranked`): ``losses`` holds every objective's
    loss (each minimized), ``constraints`` the constraint values (feasible
    when every one is <= 0), and ``loss`` is no objective's loss but the
    trial's place in the Pareto order (:func:`treefarm.pareto.ranking_losses`),
    so that an optimizer made for one loss still prefers the front and feasible
    trials, while one made for several (NSGA-II) reads the vectors.

    ``fidelity`` is the resource at which ``loss`` was measured (the step of a
    learning curve's last report for a trial stopped early, or the trial's
    fidelity parameter); None means full fidelity. ``curve`` holds the
    ``(resource, loss)`` pairs the trial reported on its way, ascending in the
    resource, each loss signed as ``loss`` is (lower is better); a model
    across fidelities learns from them (:mod:`treefarm.optimizers.fidelity`).
    """

    config: Config
    loss: float
    loss_variance: float = 0.0
    losses: tuple[float, ...] = ()
    constraints: tuple[float, ...] = ()
    fidelity: float | None = None
    curve: tuple[tuple[float, float], ...] = ()

    @property
    def is_ranked(self) -> bool:
        """Whether ``loss`` is the trial's place in the Pareto order (``losses`` holds
        the objectives' losses) rather than the one objective's loss."""
        return bool(self.losses)

    def ranked(self, place: float, losses: Sequence[float], constraints: Sequence[float] = ()) -> Observation:
        """This observation in a study of several objectives or constraints: each
        objective's ``losses``, the ``constraints``, and as ``loss`` its ``place`` in the
        Pareto order (:func:`treefarm.pareto.ranking_losses`)."""
        return replace(
            self, loss=float(place), losses=tuple(map(float, losses)), constraints=tuple(map(float, constraints))
        )


@dataclass(frozen=True)
class History:
    """What an optimizer may know: completed, failed and pending evaluations.

    ``complete`` is ordered by trial number. Losses are always minimized: the
    study negates the values of a maximization before they get here.
    ``hints`` are the person's beliefs about where to look (see
    :mod:`treefarm.optimizers.hints`); the study applies them to every
    suggestion, and a model-based optimizer may also weigh them itself.
    ``max_fidelity`` is the target resource (a budget-setting pruner's
    ``max_resource``, or a declared fidelity's highest value) and
    ``min_fidelity`` the smallest one; both None when the study has no
    fidelities, and every observation then counts at full fidelity.
    """

    complete: Sequence[Observation] = ()
    failed: Sequence[Config] = ()
    pending: Sequence[Config] = field(default_factory=tuple)
    hints: Sequence[Hint] = ()
    max_fidelity: float | None = None
    min_fidelity: float | None = None

    def at_one_fidelity(self, min_points: int = 5) -> History:
        """This history with only the observations of one fidelity, for an optimizer
        that does not model fidelities: the highest holding at least ``min_points``
        of them, else the one holding the most (the rule of Falkner, Klein & Hutter,
        "BOHB: Robust and Efficient Hyperparameter Optimization at Scale", 2018), so
        that a cheap evaluation is never ranked against a full one. An observation
        without a fidelity counts at ``max_fidelity``; a history without one is kept."""
        if self.max_fidelity is None:
            return self
        top = self.max_fidelity
        at = Counter(top if o.fidelity is None else o.fidelity for o in self.complete)
        if len(at) < 2:
            return self
        enough = [f for f in sorted(at, reverse=True) if at[f] >= min_points]
        chosen = enough[0] if enough else max(at, key=lambda f: (at[f], f))
        return replace(self, complete=tuple(o for o in self.complete if (top if o.fidelity is None else o.fidelity) == chosen))

    @property
    def n_complete(self) -> int:
        return len(self.complete)

    def losses(self) -> np.ndarray:
        """The losses of ``complete``, shape (n_complete,)."""
        return np.fromiter((o.loss for o in self.complete), dtype=float, count=len(self.complete))

    def loss_matrix(self) -> np.ndarray:
        """The objectives' losses of ``complete``, shape (n_complete, m): the
        ``losses`` of each observation, or its single ``loss``."""
        rows = [o.losses or (o.loss,) for o in self.complete]
        m = max((len(r) for r in rows), default=1)
        if any(len(r) != m for r in rows):
            raise ValueError(f"every observation must have {m} losses, but got lengths {sorted({len(r) for r in rows})}")
        return np.array(rows, dtype=float).reshape(len(rows), m)

    def constraint_matrix(self) -> np.ndarray | None:
        """The constraint values of ``complete``, shape (n_complete, k), or None
        when no observation has any (a missing row counts as feasible)."""
        k = max((len(o.constraints) for o in self.complete), default=0)
        if k == 0:
            return None
        return np.array([o.constraints if len(o.constraints) == k else (0.0,) * k for o in self.complete], dtype=float)

    def seen(self) -> set[Config]:
        """Every configuration evaluated, failed or pending (to avoid duplicates)."""
        return {o.config for o in self.complete} | set(self.failed) | set(self.pending)

    def with_pending(self, configs: Sequence[Config]) -> History:
        """This history with ``configs`` pending too (a batch's earlier points,
        a redrawn duplicate); the hints and everything else kept."""
        return replace(self, pending=(*self.pending, *configs))


class Optimizer(abc.ABC):
    """Suggests configurations from the history; see the module docstring for the contract.

    ``needs_history`` tells the study whether to load the trials at all: an
    optimizer that ignores them (random search) then costs no storage reads.
    ``hint_draws`` tells it whether to pass every suggestion through the
    hints' window draws and bad-hint redraws
    (:func:`treefarm.optimizers.hints.apply_hints`); an optimizer that honours
    hints on its own may turn them off. ``uses_fidelities`` tells it whether the
    optimizer models evaluations made at several fidelities (it then sees all of
    them); one that does not sees only the points of one fidelity
    (:func:`treefarm.study.ask.fidelities.model_view`).

    ``tuned`` names the settings the benchmark chose between: not constructor
    options (the losing variants are the benchmark's, not a user's choice), each
    kept as the class attribute ``_<name>`` with the value every instance runs at
    unless :func:`variant` built it otherwise; a study stores them with the
    options and reopens with them (:func:`treefarm.optimizers.registry.from_spec`).
    """

    needs_history: bool = True
    hint_draws: bool = True
    uses_fidelities: bool = False
    #: Whether it searches a recursive space (unboundedly many decisions): the
    #: others refuse one naming the registered optimizers that do
    #: (:func:`treefarm.optimizers.scope.refuse_recursive`).
    searches_recursive: ClassVar[bool] = False
    tuned: ClassVar[tuple[str, ...]] = ()

    @abc.abstractmethod
    def suggest(self, space: Space, history: History, n: int, rng: np.random.Generator) -> list[Config]:
        """``n`` configurations of ``space`` to evaluate next."""

    def exhausted(self, space: Space, history: History) -> bool:
        """Whether every configuration this optimizer would ever suggest is in the
        history (a grid's points): the study then stops claiming new trials. An
        optimizer of an unbounded stream says False without reading the history."""
        return False

    def promotion(self, space: Space, history: History, paused: Sequence[Config]) -> int | None:
        """In a study with a fidelity whose rung has a promotion due, which of the
        configurations ``paused`` there (the rung's own pick, the best at it, first) to
        continue to the rung above: its index; None leaves the rung's pick. Only an
        optimizer that models fidelities (``uses_fidelities``) is asked."""
        return None

    def recommend(self, space: Space, history: History) -> Config | None:
        """The configuration to report as the optimum when it is not simply the
        best observed one (for a noisy objective, the evaluated point with the
        best model prediction); ``None`` means the best observed."""
        return None

    def tuned_settings(self) -> dict[str, Any]:
        """This optimizer's tuned settings by name (see the class docstring)."""
        return {name: getattr(self, f"_{name}") for name in self.tuned}

    def check_tuned(self) -> None:
        """Refuse a tuned setting out of its range (ConfigError naming it); :func:`variant`
        calls it after setting them. Here: each is a JSON value, as a study stores it;
        a subclass checks its own ranges too."""
        for name, value in self.tuned_settings().items():
            try:
                json.dumps(value, allow_nan=False)
            except (TypeError, ValueError):
                raise ConfigError(f"a tuned setting must be a JSON value, but got {name}={value!r}") from None

    def __repr__(self) -> str:
        params = [f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_")]
        changed = [f"{k}={v!r}" for k, v in self.tuned_settings().items() if v != getattr(type(self), f"_{k}")]
        return f"{type(self).__name__}({', '.join(params + changed)})"


O = TypeVar("O", bound=Optimizer)


def variant(cls: type[O], tuned: Mapping[str, Any], /, **options: Any) -> O:
    """``cls(**options)`` running at the tuned settings ``tuned`` (by name, among
    ``cls.tuned``): a variant the benchmark measures, or a stored study's optimizer
    as it ran. ConfigError names a setting the class does not have or a bad value."""
    unknown = sorted(set(tuned) - set(cls.tuned))
    if unknown:
        raise ConfigError(
            f"tuned settings must be among {list(cls.tuned)} of {cls.__name__}, but got "
            f"{format_values(**{name: tuned[name] for name in unknown})}"
        )
    optimizer = cls(**options)
    for name, value in tuned.items():
        setattr(optimizer, f"_{name}", value)
    optimizer.check_tuned()
    return optimizer
