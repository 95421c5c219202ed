"""The one-call API of the thesis: ``minimize(objective, space)``.

Two conventions for the objective:

- ``minimize(f, space)``: each configuration's built value ``x`` is passed to
  ``f`` and ``f(x)`` is the loss;
- ``minimize(f, op(f)(params))`` or ``minimize(None, space)``: the space's top
  node already applies the objective, so the built value *is* the loss (the
  thesis's ``search_space = f(param); minimize(f, search_space)``). This is
  detected when the space is an application of ``f`` itself, or when no
  objective is given.
"""

from __future__ import annotations

import itertools
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..exceptions import StorageError, StudyError, format_values
from ..execution.base import ExecutorLike
from ..fidelity import Fidelity
from ..optimizers import Optimizer
from ..pruners import Pruner
from ..space import Apply, Config, Op, convert
from ..storage import NotFoundError, Storage, TrialRecord, open_storage
from ..storage.url import StorageURL
from ..validation import check_int
from .study import Study

__all__ = ["DEFAULT_STORAGE", "Result", "minimize"]

#: Where ``minimize`` and the CLI keep trials when told nothing: a SQLite file in the working directory.
DEFAULT_STORAGE = "treefarm.db"
DEFAULT_EVALS = 100
"""``minimize``'s budget when neither ``max_evals`` nor ``n_trials`` is given."""


@dataclass(frozen=True)
class Result:
    """What ``minimize`` found: every trial, the best ones, and for one objective
    the best value, its configuration and its parameters (the decisions' values,
    no op called: see :func:`treefarm.space.params`).

    ``best_trials`` is the feasible Pareto front with several objectives (see
    :attr:`Study.best_trials`); there ``best_value``, ``best_config`` and
    ``best_params`` raise an error that points to it.
    """

    trials: Sequence[TrialRecord]
    study: Study
    best_trials: Sequence[TrialRecord]
    best: tuple[float, Config, Any] | None = field(default=None, repr=False)

    def _single(self) -> tuple[float, Config, Any]:
        if self.best is None:
            raise StudyError(
                f"the study has {len(self.study.directions)} objectives, so no single best value: "
                "read result.best_trials (the Pareto front)"
            )
        return self.best

    @property
    def best_value(self) -> float:
        return self._single()[0]

    @property
    def best_config(self) -> Config:
        return self._single()[1]

    @property
    def best_params(self) -> Any:
        return self._single()[2]

    @property
    def n_trials(self) -> int:
        """How many trials the study holds."""
        return len(self.trials)

    def __repr__(self) -> str:
        if self.best is None:
            front = [list(t.values or ()) for t in self.best_trials][:5]
            return (
                f"Result(best_trials={len(self.best_trials)} trials, front={front!r}"
                f"{'...' if len(self.best_trials) > 5 else ''}, n_trials={len(self.trials)}, study={self.study.name!r})"
            )
        return (
            f"Result(best_value={self.best_value!r}, best_config={dict(self.best_config)!r}, "
            f"n_trials={len(self.trials)}, study={self.study.name!r})"
        )


log = logging.getLogger("treefarm")


def default_name(objective: Callable[..., Any] | None, space: Any) -> str:
    """A new study's name: the objective's ``__name__`` (the applied function's when
    the space applies it), or ``"study"`` for a lambda or a nameless callable."""
    func: Any = objective.func if isinstance(objective, Op) else objective
    if func is None:
        root = convert(space)
        func = root.op.func if isinstance(root, Apply) else None
    name = getattr(func, "__name__", None)
    return name if isinstance(name, str) and name.isidentifier() else "study"


def where(storage: Storage) -> str:
    """Where a storage keeps its studies, for a person: a file's absolute path, a
    database's URL without its password, or that memory keeps nothing."""
    location = getattr(storage, "location", None)
    if isinstance(location, StorageURL):
        return str(location.path) if location.path is not None else location.shown
    return "memory (storage=None: gone when the process ends)"


def _create_named(base: str, storage: Storage, **options: Any) -> Study:
    """A new study named ``base``, or ``base-2``, ``base-3``... if taken (by an
    earlier call, or by another process racing to the same name)."""
    taken = {s.name for s in storage.list_studies()}
    for n in itertools.count(1):
        name = base if n == 1 else f"{base}-{n}"
        if name in taken:
            continue
        try:
            return Study.create(name, storage=storage, load_if_exists=False, **options)
        except StorageError:
            try:
                storage.get_study(name)
            except NotFoundError:
                raise
            taken.add(name)  # created meanwhile by another process: try the next
    raise AssertionError("unreachable")


def _identity(value: Any) -> Any:
    return value


def _applies(space: Any, objective: Callable[..., Any] | None) -> bool:
    root = convert(space)
    if objective is None:
        return True
    # An op's own function; a bound method is a new object at each access, so equality, not identity.
    target = objective.func if isinstance(objective, Op) else objective
    return isinstance(root, Apply) and (root.op.func is target or root.op.func == target)


def _budget(max_evals: int | None, n_trials: int | None, max_cost: float | None) -> int | None:
    """The trial budget of :func:`minimize`: ``max_evals`` or its alias ``n_trials``, checked;
    by default :data:`DEFAULT_EVALS`, or none when a cost budget ends the run."""
    if max_evals is not None and n_trials is not None:
        raise StudyError(
            "the budget is max_evals or its alias n_trials, not both, but got "
            f"{format_values(max_evals=max_evals, n_trials=n_trials)}"
        )
    given = max_evals if n_trials is None else n_trials
    if given is None:
        return DEFAULT_EVALS if max_cost is None else None
    check_int("n_trials" if n_trials is not None else "max_evals", given, error=StudyError)
    return given


def minimize(
    objective: Callable[..., Any] | None,
    space: Any,
    *,
    algo: str | Optimizer | None = None,
    max_evals: int | None = None,
    n_trials: int | None = None,
    storage: str | os.PathLike[str] | Storage | None = DEFAULT_STORAGE,
    study_name: str | None = None,
    seed: int | None = None,
    direction: str | None = None,
    directions: Sequence[str] | Mapping[str, str] | None = None,
    n_jobs: int = 1,
    timeout: float | None = None,
    pruner: Pruner | None = None,
    executor: ExecutorLike | None = None,
    progress: bool | None = None,
    fidelity: Fidelity | None = None,
    max_cost: float | None = None,
) -> Result:
    """Optimize ``objective`` over ``space`` for ``max_evals`` trials (default 100; ``n_trials``,
    the name :meth:`Study.optimize` and Optuna use, is the same budget: give one or the other).

    Trials are kept in ``storage`` (a SQLite file ``treefarm.db`` by default;
    None keeps them in memory), in a new study named after the objective
    (``objective.__name__``, then ``-2``, ``-3``... if taken; the log says
    which). ``max_evals`` is the study's total: giving an
    existing ``study_name`` resumes that study, and trials already made there,
    by this process or any other sharing the storage, count towards it.
    ``algo`` and ``direction`` default to ``"auto"`` and ``"minimize"`` for a
    new study and to the stored ones for a resumed one; ``directions`` (one per
    objective) makes a study of several objectives, whose front is
    ``result.best_trials``.
    A storage given as a path or URL is closed on return (a SQLite file then holds
    every trial by itself, without its ``-wal``; ``result.study`` reconnects if used).
    An objective that takes ``trial`` can report and be stopped early by ``pruner``.
    ``executor`` (e.g. a Dask ``Client``) runs the evaluations on its workers, as in
    :meth:`Study.optimize`. ``progress`` shows a bar (None: on a terminal or in a
    notebook) and each trial is logged, as in :meth:`Study.optimize`. ``fidelity`` (a
    :class:`~treefarm.Fidelity`, read by the objective as ``trial.fidelity``) and ``max_cost``
    (the cost budget: then no trial budget unless one is given) are those of
    :meth:`Study.create` and :meth:`Study.optimize`.
    """
    budget = _budget(max_evals, n_trials, max_cost)
    store = open_storage(storage)
    options: dict[str, Any] = {
        "space": space,
        "algo": algo,
        "direction": direction,
        "directions": directions,
        "seed": seed,
        "pruner": pruner,
        "fidelity": fidelity,
    }
    try:
        if study_name is None:
            study = _create_named(default_name(objective, space), store, **options)
        else:
            study = Study.create(study_name, storage=store, load_if_exists=True, **options)
    except BaseException:
        if not isinstance(storage, Storage):
            store.close()
        raise
    log.info("minimize: study %r in %s (resume it with study_name=%r)", study.name, where(store), study.name)
    evaluate = _identity if _applies(space, objective) else objective
    assert evaluate is not None
    try:
        study.optimize(
            evaluate, budget, timeout=timeout, n_jobs=n_jobs, executor=executor, progress=progress, max_cost=max_cost
        )
        front = study.best_trials
        best = None
        if not study.objectives.several:
            trial = study.best_trial
            best = (study.best_value, Config(trial.params), study.best_params)
        return Result(trials=study.trials, study=study, best_trials=front, best=best)
    finally:
        if not isinstance(storage, Storage):  # opened here: closing a SQLite file copies its -wal into it
            study.storage.close()
