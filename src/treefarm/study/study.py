"""The study: ask/tell over a storage.

A study is a named record in a storage plus the space and optimizer the
caller brings. It holds no algorithm logic: ``ask`` claims a trial in the
storage, derives the trial's random generator from the study seed and its
number, hands the history to the optimizer, and records the suggestion;
``tell`` records the outcome atomically. Because the optimizer is a function
of the stored history and the generator is a function of (seed, number), a
resumed study or a second process suggests exactly what the first would have.

The jobs behind this facade live in modules named for them: the study's
state and life cycle (:mod:`.core`), what it found (:mod:`.results`), its
hints (:mod:`.hinting`), what a study is and how a reopening is checked
(:mod:`.identity`), the incremental view of the trials (:mod:`.cache`),
never evaluating a point twice (:mod:`.dedupe`), who runs a trial and the
heartbeat (:mod:`treefarm.execution.liveness`), failing dead workers' trials
(:mod:`.recovery`), warm starts (:mod:`.warm`) and the optimize loop
(:mod:`.loop`). Opening or reading a study never changes it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..exceptions import StudyError, format_values
from ..execution.base import ExecutorLike
from ..fidelity import Fidelity
from ..optimizers import Optimizer
from ..pruners import Pruner
from ..space import Config, build, validate
from ..storage import InMemoryStorage, Storage, TrialRecord, TrialState
from ..validation import check_bool, check_positive, check_range, is_integer
from .ask.fidelities import FIDELITY, reconcile
from .hinting import Hinting
from .results import Results
from .run.loop import Asking, optimize
from .run.loop_arguments import check_total
from .run.remote_trial import StudyAddress
from .run.talk import say_if_spent
from .state import opening
from .state.identity import same_study
from .state.objectives import count_failure
from .state.outcome import failure, from_exception, told, with_constraints
from .state.recovery import REQUEUE_LOST
from .state.warm import give_warm_start
from .tell.trial import Trial

__all__ = ["Callback", "Study", "asking_of", "check_max_cost"]

Callback = Callable[["Study", TrialRecord], None]


class Study(Results, Hinting):
    """An optimization run persisted in a storage; see the module docstring.

    Make one with :meth:`create` or :meth:`load`, never the constructor.
    """

    # ------------------------------------------------------------------ opening
    @classmethod
    def create(
        cls,
        name: str | None = None,
        *,
        space: Any,
        storage: str | os.PathLike[str] | Storage | None = None,
        algo: str | Optimizer | None = None,
        direction: str | None = None,
        directions: Sequence[str] | Mapping[str, str] | None = None,
        seed: int | None = None,
        load_if_exists: bool = False,
        allow_space_change: bool = False,
        heartbeat_interval: float = 10.0,
        requeue_interrupted: bool = False,
        warm_start: Sequence[Study] = (),
        warm_start_credibility: float = 0.0,
        pruner: Pruner | None = None,
        fidelity: Fidelity | None = None,
    ) -> Study:
        """Create a study (or reopen it, with ``load_if_exists``) in ``storage``.

        ``storage`` is a path or URL (``"runs.db"``, ``"sqlite:///runs.db"``,
        ``"postgresql://..."``), a :class:`Storage`, or None for memory.
        A new study takes ``algo`` (default ``"auto"``), ``direction`` (default
        ``"minimize"``) or ``directions`` (one per objective, for several:
        ``["minimize", "maximize"]``, or named: ``{"error": "minimize", "size":
        "minimize"}``, the names shown wherever values are; see :attr:`best_trials`;
        one of the two, never both) and ``seed`` (None draws one and stores it, so the study
        stays reproducible when resumed). A reopened one keeps what it stored:
        see :mod:`treefarm.study.state.identity` for what is checked and recorded.
        Trials not finished after ``STALE_FACTOR`` heartbeat intervals are
        presumed dead by any worker's recovery. ``pruner`` (see
        :mod:`treefarm.pruners`) answers ``trial.should_prune()``. ``fidelity`` (a
        :class:`~treefarm.Fidelity`) evaluates each trial at one fidelity, read by the
        objective as ``trial.fidelity``: see :mod:`treefarm.study.ask.fidelities`. ``warm_start`` studies give a
        new study their best configuration each, enqueued as its first trials,
        and with ``warm_start_credibility`` > 0 their best tenth as hints of that
        credibility, gated by how the enqueued best fares here (see
        :mod:`treefarm.study.state.warm`).
        """
        check_range("warm_start_credibility", warm_start_credibility, 0.0, 1.0)
        for flag, value in (
            ("load_if_exists", load_if_exists),
            ("allow_space_change", allow_space_change),
            ("requeue_interrupted", requeue_interrupted),
        ):
            check_bool(flag, value, error=StudyError)
        if isinstance(warm_start, (Study, str)) or not all(isinstance(source, Study) for source in warm_start):
            raise StudyError(
                "warm_start must be a list of studies (tf.Study.load opens one by name), "
                f"but got {format_values(warm_start=warm_start)}"
            )
        if isinstance(fidelity, Fidelity):
            fidelity.check_rungs()
        opened = opening.create(
            name,
            space=space,
            storage=storage,
            algo=algo,
            direction=direction,
            directions=directions,
            seed=seed,
            load_if_exists=load_if_exists,
            allow_space_change=allow_space_change,
        )
        study = cls(
            opened,
            heartbeat_interval=heartbeat_interval,
            requeue_interrupted=requeue_interrupted,
            pruner=pruner,
            fidelity=_fidelity(opened, fidelity),
        )
        sources = [s for i, s in enumerate(warm_start) if not any(same_study(s, t) for t in warm_start[:i])]
        if sources and opened.created:  # once, by the worker that made the study
            give_warm_start(study, sources, warm_start_credibility)
        return study

    @classmethod
    def load(
        cls,
        name: str,
        *,
        space: Any,
        storage: str | os.PathLike[str] | Storage,
        algo: str | Optimizer | None = None,
        allow_space_change: bool = False,
        heartbeat_interval: float = 10.0,
        requeue_interrupted: bool = False,
        pruner: Pruner | None = None,
        fidelity: Fidelity | None = None,
    ) -> Study:
        """Open an existing study to resume it or read it: its seed, direction and
        optimizer are the stored ones (``algo`` replaces the optimizer, recorded)."""
        check_bool("allow_space_change", allow_space_change, error=StudyError)
        check_bool("requeue_interrupted", requeue_interrupted, error=StudyError)
        opened = opening.load(
            name, space=space, storage=storage, algo=algo, allow_space_change=allow_space_change
        )
        return cls(
            opened,
            heartbeat_interval=heartbeat_interval,
            requeue_interrupted=requeue_interrupted,
            pruner=pruner,
            fidelity=_fidelity(opened, fidelity),
        )

    # ------------------------------------------------------------------ ask/tell
    def ask(self) -> Trial:
        """Start a trial: an enqueued configuration if any, else the optimizer's suggestion.

        The trial is RUNNING in storage when this returns. If building its
        value raises, the trial is recorded FAILED and the error propagates;
        if suggesting its configuration raises, the trial is recorded FAILED
        and :class:`~treefarm.SuggestionError` propagates.
        """
        trial = self.ask_within(None)
        assert trial is not None
        return trial

    def ask_within(self, budget: int | None) -> Trial | None:
        """:meth:`ask`, or None when the study already has ``budget`` claimed trials
        (every state but waiting), counted atomically across all processes."""
        claimed = self._claim_within(budget)
        return None if claimed is None else self._start_claimed(*claimed[:2])

    def _claim_within(self, budget: int | None) -> tuple[int, Config, bool] | None:
        """The storage's and the optimizer's part of :meth:`ask_within`: a RUNNING
        trial, its configuration and whether it re-runs a lost evaluation, or None
        when ``budget`` is spent. Errors here (the storage's,
        :class:`SuggestionError`) are never the objective's."""
        claimed = self._asker.claim(
            budget,
            max_cost=self.max_cost,
            claimed=self._recorder.running.add,
            lost=self._recorder.running.discard,
            fail=lambda n, reason: self.finish(n, failure(reason)),
        )
        if claimed is not None:
            self._keep_alive.ensure()  # the running trials are beaten until they are told
        return claimed

    def _start_claimed(self, number: int, config: Config) -> Trial:
        """The user's part of :meth:`ask_within`: the claimed trial with its built
        value; if building raises (an op of the user's), the trial is recorded
        FAILED and the error propagates."""
        try:
            value = build(self.space, config)
        except BaseException as exc:
            self.finish(number, from_exception(exc))
            raise
        return Trial(self, number, config, value)

    def enqueue(self, config: Mapping[str, Any], *, user_attrs: Mapping[str, Any] | None = None) -> int:
        """Queue a configuration (a warm start, a point hint) to be evaluated before any
        suggestion; it is validated against the space first. Returns its trial number."""
        checked = validate(self.space, config)
        record = self._storage.create_trial(
            self.study_id,
            params=checked.to_dict(),
            state=TrialState.WAITING,
            system_attrs={"enqueued": True},
            user_attrs=dict(user_attrs or {}),
        )
        return record.number

    def tell(
        self,
        trial: Trial | int,
        value: object = None,
        *,
        state: TrialState | str | None = None,
        exception: BaseException | None = None,
        constraints: Sequence[float] | float | None = None,
    ) -> TrialRecord:
        """Record the outcome of a trial: a value (a sequence of one per objective
        in a study with several, or a mapping with it under ``"loss"``), an
        exception, or an explicit state (``"failed"``, ``"pruned"``).
        ``constraints`` (or the mapping's ``"constraints"``) are the trial's
        constraint values, satisfied when each is <= 0.

        What is no result at all (None, a string, another count of values than
        the study has objectives, constraints that are not numbers) raises
        :class:`~treefarm.StudyError` and leaves the trial running, to be told
        again; a NaN or infinite value fails it. A trial can be told once: telling it again raises
        :class:`~treefarm.TrialStateError` and leaves storage unchanged. A
        trial handle of another study is refused, naming both studies.
        """
        if isinstance(trial, Trial) and not same_study(self, trial.study):
            raise StudyError(
                "tell needs a trial of this study, but got "
                f"study={self.name!r}, trial_study={trial.study.name!r}, number={trial.number}"
            )
        if not isinstance(trial, Trial) and not is_integer(trial):
            raise StudyError(f"tell needs a Trial or a trial number, but got {format_values(trial=trial)}")
        number = trial.number if isinstance(trial, Trial) else trial
        outcome = with_constraints(told(value, state=state, exception=exception), constraints)
        outcome = count_failure(outcome, self.objectives) or outcome
        if outcome.malformed:  # a typo, not a failure: the trial stays running to be told again
            raise StudyError(
                f"{outcome.system_attrs['fail_reason']}; trial {number} was not told and is still running: "
                "tell it a value, state='failed' or exception="
            )
        return self.finish(number, outcome)

    # ----------------------------------------------------------------- optimize
    def optimize(
        self,
        objective: Callable[..., Any],
        n_trials: int | None = None,
        *,
        n_new_trials: int | None = None,
        timeout: float | None = None,
        n_jobs: int = 1,
        backend: str = "process",
        catch: Sequence[type[BaseException]] = (Exception,),
        callbacks: Iterable[Callback] = (),
        target: float | None = None,
        patience: int | None = None,
        executor: ExecutorLike | None = None,
        requeue_lost: int = REQUEUE_LOST,
        progress: bool | None = None,
        max_cost: float | None = None,
    ) -> None:
        """Evaluate ``objective`` on suggested configurations until a rule stops it.

        ``n_trials`` is the study's total: trials are claimed only while the
        study has fewer than ``n_trials`` claimed trials (running, complete,
        failed or pruned), counted atomically across every process sharing the
        storage, so N workers given ``n_trials=B`` make B trials between them.
        ``n_new_trials`` bounds what this call adds. See :func:`.loop.optimize`
        for the objective's contract, ``n_jobs`` and the other rules. ``executor``
        (a ``distributed.Client``, or any object with a ``concurrent.futures``-like
        ``submit``) runs the evaluations on its workers; a trial whose worker dies
        is failed and its configuration queued again up to ``requeue_lost`` times.
        Each finished trial is logged (logger ``treefarm.trials``, INFO), a run whose
        trials all fail or that a rule stops is announced (``treefarm``, WARNING), and
        ``progress`` shows a bar (None: when standard error is a terminal or in a
        notebook; see :mod:`treefarm.study.run.talk`).

        ``max_cost`` is the study's cost budget, in the units of its cost: the
        steps its learning curves report, or its :class:`~treefarm.Fidelity`'s cost.
        Trials are claimed only while the study's trials have spent less (summed
        atomically across every process, a trial at a fidelity reserving its cost
        when claimed), and a running learning curve is stopped at its next report
        (``trial.should_prune()``) once it is spent, so the budget is overrun by at
        most one trial's fidelity or one step per running trial.
        """
        self._stop_requested = False
        self.max_cost = check_max_cost(max_cost, self.fidelity)
        self._cost_spent = False
        check_total(n_trials)
        say_if_spent(self.storage, self.study_id, n_trials, self.max_cost)
        optimize(
            self,
            asking_of(self),
            objective,
            n_trials=n_trials,
            n_new_trials=n_new_trials,
            timeout=timeout,
            n_jobs=n_jobs,
            backend=backend,
            catch=catch,
            callbacks=callbacks,
            target=target,
            patience=patience,
            executor=executor,
            requeue_lost=requeue_lost,
            progress=progress,
        )

    def worker_address(self) -> StudyAddress | None:
        """Where a worker of an executor opens this study to report a learning curve (see
        :mod:`.run.remote_trial`): its database, with this run's pruner and cost budget;
        None for a study in memory, which no other process can open."""
        if isinstance(self.storage, InMemoryStorage):
            return None
        from ..storage.sql import SQLStorage

        if not isinstance(self.storage, SQLStorage) or self.storage.location.dialect == "memory":
            return None
        return StudyAddress(self.storage.url, self.name, self.space, self.pruner, self.max_cost, _open_on_worker)

    def __repr__(self) -> str:
        objectives = self.objectives
        several = objectives.several or objectives.names is not None
        directions = f"directions={objectives.argument!r}" if several else f"direction={objectives.directions[0]!r}"
        return f"Study(name={self.name!r}, {directions}, optimizer={self.optimizer!r})"


def _open_on_worker(address: StudyAddress) -> Study:
    """The study at ``address``, opened on a worker with the pruner and cost budget of the run
    that sent the trial."""
    study = Study.load(address.name, space=address.space, storage=address.url, pruner=address.pruner)
    study.max_cost = address.max_cost
    return study


def _fidelity(opened: opening.Opened, given: Fidelity | None) -> Fidelity | None:
    """The study's fidelity (stored when the study is made; see :func:`.fidelities.reconcile`)."""
    if given is not None and not isinstance(given, Fidelity):
        raise StudyError(f"fidelity must be a Fidelity or None, but got {format_values(fidelity=given)}")
    if given is not None and len(opened.record.directions) > 1:
        raise StudyError(
            "a fidelity parameter needs a study with one objective (several objectives use a "
            f"learning curve and a successive-halving pruner), but got directions={list(opened.record.directions)!r}"
        )
    fidelity = reconcile(opened.record.attrs.get(FIDELITY), given)
    if fidelity is not None and FIDELITY not in opened.record.attrs:
        opened.storage.set_study_attr(opened.record.study_id, FIDELITY, fidelity.to_json())
    return fidelity


def check_max_cost(max_cost: object, fidelity: Fidelity | None) -> float | None:
    """``max_cost`` as a float: a finite number > 0, at least the cheapest rung's cost."""
    if max_cost is None:
        return None
    check_positive("max_cost", max_cost, error=StudyError)
    if not math.isfinite(max_cost):  # type: ignore[arg-type]
        raise StudyError(f"max_cost must be a finite number > 0, but got max_cost={max_cost!r}")
    cheapest = fidelity.cost_of(fidelity.rungs[0]) if fidelity is not None else 0.0
    if float(max_cost) < cheapest:  # type: ignore[arg-type]
        raise StudyError(
            f"max_cost must be at least the cost of the lowest rung ({cheapest}), but got max_cost={max_cost!r}"
        )
    return float(max_cost)  # type: ignore[arg-type]


def asking_of(study: Study) -> Asking:
    """The two parts of ``study.ask_within`` that the optimize loop runs apart (see
    :class:`.loop.Asking`)."""
    return Asking(study._claim_within, study._start_claimed)
