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
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ..exceptions import SpaceError
from ..space import Config, Space, addresses, analyze
from ..space.config import Decision
from .hints import Hint

__all__ = ["RECURSIVE_ALGOS", "History", "Observation", "Optimizer", "fixed_addresses", "refuse_recursive"]

#: The algorithms that search a recursive space, named in the error of those that cannot.
RECURSIVE_ALGOS = ("auto", "grammar", "tpe", "gp", "anneal", "nsga2", "random")


def refuse_recursive(root: Space, algo: str, needs: str) -> None:
    """Raise, for an optimizer that ``needs`` a kind of space a recursive ``root``
    is not, the error naming the algorithms that search it; nothing otherwise."""
    if analyze(root).recursive:
        raise SpaceError(
            f"algo={algo!r} needs {needs}, but got a recursive space={root!r}; search it with one of "
            f"algo={', '.join(map(repr, RECURSIVE_ALGOS))}"
        )


def fixed_addresses(root: Space, algo: str) -> list[tuple[str, Decision]]:
    """Every decision address of ``root`` (:func:`treefarm.space.addresses`), for
    an optimizer whose coordinates are that fixed list; a recursive space, which
    has unboundedly many, is refused (:func:`refuse_recursive`)."""
    refuse_recursive(root, algo, "a space with a fixed set of decisions (flat or conditional)")
    return addresses(root)


@dataclass(frozen=True)
class Observation:
    """A completed evaluation: its configuration and its loss (lower is better).

    ``loss_variance`` is the variance of ``loss`` as an estimate of the
    configuration's loss, when the objective knows it (a mean over k folds
    with sample variance s^2: s^2 / k); 0 means exact or unknown. A model
    that can (the GP) weighs each observation by it.

    With several objectives or constraints, ``losses`` holds every objective's
    loss (each minimized) and ``constraints`` the constraint values (feasible
    when every one is <= 0); ``loss`` is then the trial's place in the Pareto
    order (:func:`treefarm.pareto.ranking_losses`), so that an optimizer made
    for one loss still prefers the front and feasible trials, while one made for
    several (NSGA-II) reads the vectors.

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

    @property
    def n_complete(self) -> int:
        return len(self.complete)

    def losses(self) -> np.ndarray:
        """The losses of ``complete``, shape (n_complete,)."""
        return np.fromiter((o.loss for o in self.complete), dtype=float, count=len(self.complete))

    def loss_variances(self) -> np.ndarray:
        """The ``loss_variance`` of ``complete``, shape (n_complete,)."""
        return np.fromiter((o.loss_variance for o in self.complete), dtype=float, count=len(self.complete))

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
    (:func:`treefarm.study.fidelities.model_view`).
    """

    needs_history: bool = True
    hint_draws: bool = True
    uses_fidelities: bool = False

    @abc.abstractmethod
    def suggest(self, space: Space, history: History, n: int, rng: np.random.Generator) -> list[Config]:
        """``n`` configurations of ``space`` to evaluate next."""

    def exhausted(self, space: Space, history: History) -> bool:
        """Whether every configuration this optimizer would ever suggest is in the
        history (a grid's points): the study then stops claiming new trials. An
        optimizer of an unbounded stream says False without reading the history."""
        return False

    def recommend(self, space: Space, history: History) -> Config | None:
        """The configuration to report as the optimum when it is not simply the
        best observed one (for a noisy objective, the evaluated point with the
        best model prediction); ``None`` means the best observed."""
        return None

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({params})"
