"""The study: ask/tell over a storage.

A study is a named record in a storage plus the space and optimizer the
caller brings. It holds no algorithm logic: ``ask`` claims a trial in the
storage, derives the trial's random generator from the study seed and its
number, hands the history to the optimizer, and records the suggestion;
``tell`` records the outcome atomically. Because the optimizer is a function
of the stored history and the generator is a function of (seed, number), a
resumed study or a second process suggests exactly what the first would have.

The jobs behind this facade live in modules named for them: what a study is
and how a reopening is checked (:mod:`.identity`), the incremental view of
the trials (:mod:`.history`), never evaluating a point twice
(:mod:`.dedupe`), who runs a trial and the heartbeat (:mod:`.worker`),
failing dead workers' trials (:mod:`.recovery`) and the optimize loop
(:mod:`.loop`). Opening or reading a study never changes it.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..exceptions import StudyError, format_values
from ..execution.liveness import KeepAlive
from ..optimizers import History, Optimizer
from ..pruners import Pruner
from ..space import Config, build, validate
from ..storage import Storage, TrialRecord, TrialState
from ..validation import check_range
from . import artifacts, opening
from .asking import Asker
from .dedupe import Deduplicator
from .hinting import Hinting
from .history import TrialCache
from .loop import optimize
from .objectives import count_failure
from .outcome import Outcome, failure, from_exception, told, with_constraints
from .pruning import curves_for
from .recording import Recorder
from .recovery import REQUEUE_LOST, recover
from .results import Results
from .trial import Trial
from .warm import warm_author, warm_start_hints, warm_start_points

__all__ = ["Callback", "Study"]

Callback = Callable[["Study", TrialRecord], None]
STALE_FACTOR = 6
"""A trial is presumed dead after this many of its worker's heartbeat intervals without one."""


class Study(Results, Hinting):
    """An optimization run persisted in a storage; see the module docstring.

    Make one with :meth:`create` or :meth:`load`, never the constructor.
    """

    def __init__(
        self,
        opened: opening.Opened,
        *,
        heartbeat_interval: float,
        requeue_interrupted: bool,
        pruner: Pruner | None = None,
    ) -> None:
        record, storage, space, optimizer = opened.record, opened.storage, opened.space, opened.optimizer
        if isinstance(heartbeat_interval, bool) or not (
            isinstance(heartbeat_interval, (int, float)) and heartbeat_interval > 0
        ):
            raise StudyError(
                f"heartbeat_interval must be a number > 0, but got heartbeat_interval={heartbeat_interval!r}"
            )
        self._record = record
        self._storage = storage
        self.space = space
        self.optimizer = optimizer
        self.heartbeat_interval = float(heartbeat_interval)
        self.stale_after = STALE_FACTOR * self.heartbeat_interval
        self._recovered = -math.inf  # when recover() last ran (recover_due)
        self.requeue_interrupted = requeue_interrupted
        if pruner is not None and not isinstance(pruner, Pruner):
            raise StudyError(f"pruner must be a Pruner or None, but got pruner={pruner!r}")
        self.pruner = pruner
        self._cache = TrialCache(
            storage, record.study_id, space, sign=self._sign(1.0), name=record.name, directions=self.directions
        )
        dedupe = Deduplicator(space)
        self._recorder = Recorder(storage, record.study_id, self._cache, dedupe)
        self._keep_alive = KeepAlive(storage, record.study_id, lambda: self.running, self.heartbeat_interval)
        self._asker = Asker(
            storage, record.study_id, optimizer, self._cache, dedupe, seed=self.seed, stale_after=self.stale_after
        )
        self._stop_requested = False
        self._artifact_store: str | None = None

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
        directions: Sequence[str] | None = None,
        seed: int | None = None,
        load_if_exists: bool = False,
        allow_space_change: bool = False,
        heartbeat_interval: float = 10.0,
        requeue_interrupted: bool = False,
        warm_start: Sequence[Study] = (),
        warm_start_credibility: float = 0.0,
        pruner: Pruner | None = None,
    ) -> Study:
        """Create a study (or reopen it, with ``load_if_exists``) in ``storage``.

        ``storage`` is a path or URL (``"runs.db"``, ``"sqlite:///runs.db"``,
        ``"postgresql://..."``), a :class:`Storage`, or None for memory.
        A new study takes ``algo`` (default ``"auto"``), ``direction`` (default
        ``"minimize"``) or ``directions`` (one per objective, for several:
        ``["minimize", "maximize"]``; see :attr:`best_trials`) and ``seed`` (None draws one and stores it, so the study
        stays reproducible when resumed). A reopened one keeps what it stored:
        see :mod:`treefarm.study.identity` for what is checked and recorded.
        Trials not finished after ``STALE_FACTOR`` heartbeat intervals are
        presumed dead by any worker's recovery. ``pruner`` (see
        :mod:`treefarm.pruners`) answers ``trial.should_prune()``. ``warm_start`` studies give a
        new study their best configuration each, enqueued as its first trials,
        and with ``warm_start_credibility`` > 0 their best tenth as hints of that
        credibility, gated by how the enqueued best fares here (see
        :mod:`treefarm.study.warm`).
        """
        check_range("warm_start_credibility", warm_start_credibility, 0.0, 1.0)
        if isinstance(warm_start, (Study, str)) or not all(isinstance(source, Study) for source in warm_start):
            raise StudyError(
                "warm_start must be a list of studies (tf.Study.load opens one by name), "
                f"but got {format_values(warm_start=warm_start)}"
            )
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
            opened, heartbeat_interval=heartbeat_interval, requeue_interrupted=requeue_interrupted, pruner=pruner
        )
        sources = [s for i, s in enumerate(warm_start) if not any(s._same_study(t) for t in warm_start[:i])]
        if sources and opened.created:  # once, by the worker that made the study
            for point, source in warm_start_points(study.space, sources):
                study.enqueue(point, user_attrs={"warm_start": source})
            if warm_start_credibility > 0:
                for config, source in warm_start_hints(study.space, sources):
                    study.hint(config, credibility=warm_start_credibility, author=warm_author(source))
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
    ) -> Study:
        """Open an existing study to resume it or read it: its seed, direction and
        optimizer are the stored ones (``algo`` replaces the optimizer, recorded)."""
        opened = opening.load(
            name, space=space, storage=storage, algo=algo, allow_space_change=allow_space_change
        )
        return cls(
            opened, heartbeat_interval=heartbeat_interval, requeue_interrupted=requeue_interrupted, pruner=pruner
        )

    # --------------------------------------------------------------- properties
    @property
    def name(self) -> str:
        return self._record.name

    @property
    def study_id(self) -> int:
        return self._record.study_id

    @property
    def direction(self) -> str:
        """The direction of a single-objective study; a study with several
        objectives raises an error that points to :attr:`directions`."""
        if len(self.directions) > 1:
            raise StudyError(
                f"the study has {len(self.directions)} objectives: read study.directions, "
                f"not study.direction, but got name={self.name!r}"
            )
        return self._record.direction

    @property
    def directions(self) -> tuple[str, ...]:
        """One ``"minimize"``/``"maximize"`` per objective."""
        return tuple(self._record.directions)

    @property
    def seed(self) -> int:
        return int(self._record.seed or 0)

    @property
    def storage(self) -> Storage:
        return self._storage

    @property
    def running(self) -> frozenset[int]:
        """The numbers of the trials this object has started and not finished."""
        return frozenset(self._recorder.running)

    @property
    def trials(self) -> list[TrialRecord]:
        """Every trial of the study, ordered by number."""
        return self._storage.get_trials(self.study_id)

    def _sign(self, value: float) -> float:
        return value if self._record.direction == "minimize" else -value

    def history(self, *, exclude: int | None = None) -> History:
        """What the optimizer sees: completed, failed and pending configurations."""
        return self._cache.history(exclude=exclude)

    # ---------------------------------------------------------------- artifacts
    @property
    def artifact_store(self) -> str:
        """Where trials' artifacts go: a directory or an fsspec URL (see
        :mod:`treefarm.study.artifacts`); ``<file>.artifacts`` beside a SQLite file by default."""
        return self._artifact_store if self._artifact_store is not None else artifacts.default_root(self._storage)

    @artifact_store.setter
    def artifact_store(self, root: str | os.PathLike[str]) -> None:
        if not isinstance(root, (str, os.PathLike)) or not str(root).strip():
            raise StudyError(f"artifact_store must be a directory or an fsspec URL, but got {format_values(root=root)}")
        self._artifact_store = str(root)

    def artifacts(self, number: int) -> list[dict[str, Any]]:
        """The artifacts trial ``number`` saved: ``{"name", "size", "sha256"}`` each."""
        return artifacts.records(self._storage.get_trial(self.study_id, number).user_attrs)

    def load_artifact(self, number: int, name: str) -> bytes:
        """The content of trial ``number``'s artifact ``name`` (checked against its SHA-256)."""
        entry = next((a for a in self.artifacts(number) if a.get("name") == name), None)
        if entry is None:
            raise StudyError(
                f"the artifact must be one the trial saved, but got {format_values(trial=number, name=name)}; "
                f"it saved {[a.get('name') for a in self.artifacts(number)]}"
            )
        return artifacts.load(self.artifact_store, self.name, number, entry)

    # ------------------------------------------------------------------ ask/tell
    def rng_for(self, number: int) -> np.random.Generator:
        """The generator of trial ``number``: a function of the study seed and the number only."""
        return self._asker.rng_for(number)

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

    def _same_study(self, other: Study) -> bool:
        if other is self:
            return True
        same_storage = other.storage is self.storage or (
            getattr(other.storage, "url", None) is not None
            and getattr(other.storage, "url", None) == getattr(self.storage, "url", None)
        )
        return same_storage and other.name == self.name

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

        A trial can be told once: telling it again raises
        :class:`~treefarm.TrialStateError` and leaves storage unchanged. A
        trial handle of another study is refused, naming both studies.
        """
        if isinstance(trial, Trial) and not self._same_study(trial.study):
            raise StudyError(
                "tell needs a trial of this study, but got "
                f"study={self.name!r}, trial_study={trial.study.name!r}, number={trial.number}"
            )
        if not isinstance(trial, Trial) and (isinstance(trial, bool) or not isinstance(trial, int)):
            raise StudyError(f"tell needs a Trial or a trial number, but got {format_values(trial=trial)}")
        number = trial.number if isinstance(trial, Trial) else trial
        return self.finish(number, with_constraints(told(value, state=state, exception=exception), constraints))

    def should_prune(self, number: int) -> bool:
        """The pruner's decision for trial ``number`` at its last reported step (False
        without a pruner), from stored values only: finished trials from the cache (they
        never change), the unfinished ones read afresh."""
        if self.pruner is None:
            return False
        records = self._cache.finished_and_unfinished()
        return self.pruner.prune(curves_for(records, number, directions=self.directions))

    def finish(self, number: int, outcome: Outcome) -> TrialRecord:
        """Record ``outcome`` for trial ``number`` (see :mod:`treefarm.study.recording`);
        values that do not match the study's objectives in count fail the trial, saying so."""
        return self._recorder.finish(number, count_failure(outcome, self.directions) or outcome)

    # ----------------------------------------------------------------- recovery
    def recover(self, *, limit: int = REQUEUE_LOST) -> list[int]:
        """Fail RUNNING trials whose worker is gone (see :mod:`treefarm.study.recovery`),
        re-queueing them if the study was opened with ``requeue_interrupted``, each
        configuration at most ``limit`` times (``optimize``'s ``requeue_lost``)."""
        self._recovered = time.monotonic()
        return recover(
            self._storage, self.study_id, grace=self.stale_after, requeue=self.requeue_interrupted, limit=limit
        )

    def recover_due(self, *, limit: int = REQUEUE_LOST) -> list[int]:
        """:meth:`recover` if it has not run for ``stale_after`` seconds, else nothing: the
        optimize loop calls it before each claim, so a worker that outlives a dead one
        fails (and re-runs) the dead one's trial instead of only at its own start."""
        return self.recover(limit=limit) if time.monotonic() - self._recovered >= self.stale_after else []

    def fail_running(self, reason: str) -> None:
        """Fail every trial this process still runs in this study (an interruption)."""
        self._recorder.fail_running(reason)

    # ----------------------------------------------------------------- optimize
    def stop(self) -> None:
        """Ask a running ``optimize`` to stop after the trials in flight (from a callback)."""
        self._stop_requested = True

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

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
        executor: Any = None,
        requeue_lost: int = REQUEUE_LOST,
        progress: bool | None = None,
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
        notebook; see :mod:`treefarm.study.talk`).
        """
        self._stop_requested = False
        optimize(
            self,
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

    def __repr__(self) -> str:
        directions = f"direction={self.directions[0]!r}" if len(self.directions) == 1 else f"directions={list(self.directions)!r}"
        return f"Study(name={self.name!r}, {directions}, optimizer={self.optimizer!r})"
