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

import os
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..exceptions import ConfigError, StudyError
from ..optimizers import History, Optimizer, make_optimizer
from ..space import Config, Space, build, convert, params, sample, validate
from ..storage import JSON, Storage, StudyRecord, TrialRecord, TrialState, open_storage
from ..storage.checks import owner_of
from .dedupe import Deduplicator
from .history import TrialCache
from .identity import DEFAULT_ALGO, creation_attrs, reconcile
from .loop import optimize
from .outcome import Outcome, failure, from_exception, from_result
from .recovery import recover
from .trial import Trial
from .worker import identity

__all__ = ["Callback", "Study"]

Callback = Callable[["Study", TrialRecord], None]
DIRECTIONS = ("minimize", "maximize")
STALE_FACTOR = 6
"""A trial is presumed dead after this many of its worker's heartbeat intervals without one."""


def _check_space(space: Any) -> Space:
    root = convert(space)
    if not sample(root, np.random.default_rng(0)):
        raise StudyError(
            "a study's space must hold at least one decision (a Real, Int, Choice or Join), "
            f"but got space={space!r}"
        )
    return root


class Study:
    """An optimization run persisted in a storage; see the module docstring.

    Make one with :meth:`create` or :meth:`load`, never the constructor.
    """

    def __init__(
        self,
        record: StudyRecord,
        storage: Storage,
        space: Space,
        optimizer: Optimizer,
        *,
        heartbeat_interval: float,
        requeue_interrupted: bool,
    ) -> None:
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
        self.requeue_interrupted = requeue_interrupted
        self._cache = TrialCache(storage, record.study_id, space, sign=self._sign(1.0), name=record.name)
        self._dedupe = Deduplicator(space)
        self._check_dupes = self._dedupe.rules or optimizer.needs_history
        self._running: set[int] = set()
        self._stop_requested = False

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
        seed: int | None = None,
        load_if_exists: bool = False,
        allow_space_change: bool = False,
        heartbeat_interval: float = 10.0,
        requeue_interrupted: bool = False,
    ) -> Study:
        """Create a study (or reopen it, with ``load_if_exists``) in ``storage``.

        ``storage`` is a path or URL (``"runs.db"``, ``"sqlite:///runs.db"``,
        ``"postgresql://..."``), a :class:`Storage`, or None for memory.
        A new study takes ``algo`` (default ``"tpe"``), ``direction`` (default
        ``"minimize"``) and ``seed`` (None draws one and stores it, so the study
        stays reproducible when resumed). A reopened one keeps what it stored:
        see :mod:`treefarm.study.identity` for what is checked and recorded.
        Trials not finished after ``STALE_FACTOR`` heartbeat intervals are
        presumed dead by any worker's recovery.
        """
        if direction is not None and direction not in DIRECTIONS:
            raise StudyError(f"direction must be one of {list(DIRECTIONS)}, but got direction={direction!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise StudyError(f"seed must be an integer >= 0 or None, but got seed={seed!r}")
        root = _check_space(space)
        optimizer = make_optimizer(algo if algo is not None else DEFAULT_ALGO)
        store = open_storage(storage)
        record = store.create_study(
            name if name is not None else f"study-{secrets.token_hex(4)}",
            direction=direction or "minimize",
            seed=seed if seed is not None else secrets.randbits(63),
            attrs=creation_attrs(root, optimizer),
            load_if_exists=load_if_exists,
        )
        optimizer = reconcile(
            store,
            record,
            root,
            algo=algo,
            direction=direction,
            seed=seed,
            allow_space_change=allow_space_change,
        )
        return cls(
            record,
            store,
            root,
            optimizer,
            heartbeat_interval=heartbeat_interval,
            requeue_interrupted=requeue_interrupted,
        )

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
    ) -> Study:
        """Open an existing study to resume it or read it: its seed, direction and
        optimizer are the stored ones (``algo`` replaces the optimizer, recorded)."""
        store = open_storage(storage)
        record = store.get_study(name)
        root = _check_space(space)
        optimizer = reconcile(
            store, record, root, algo=algo, direction=None, seed=None, allow_space_change=allow_space_change
        )
        return cls(
            record,
            store,
            root,
            optimizer,
            heartbeat_interval=heartbeat_interval,
            requeue_interrupted=requeue_interrupted,
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
        return self._record.direction

    @property
    def seed(self) -> int:
        return int(self._record.seed or 0)

    @property
    def storage(self) -> Storage:
        return self._storage

    @property
    def running(self) -> frozenset[int]:
        """The numbers of the trials this object has started and not finished."""
        return frozenset(self._running)

    @property
    def trials(self) -> list[TrialRecord]:
        """Every trial of the study, ordered by number."""
        return self._storage.get_trials(self.study_id)

    def _sign(self, value: float) -> float:
        return value if self.direction == "minimize" else -value

    @property
    def best_trial(self) -> TrialRecord:
        """The completed trial with the best value (the lowest number among ties);
        with none, the error quotes why the trials failed."""
        return self._cache.best()

    @property
    def recommended_trial(self) -> TrialRecord:
        """The completed trial the optimizer recommends as the optimum.

        For a noisy objective a lucky draw can make the best observed value
        misleading; an optimizer with a model (the GP) then recommends the
        evaluated point with the best posterior mean (seeds/001). Otherwise
        this is :attr:`best_trial`.
        """
        best = self.best_trial
        config = self.optimizer.recommend(self.space, self.history())
        if config is None:
            return best
        return next((t for t in self._cache.completed() if self._cache.config_of(t) == config), best)

    @property
    def best_value(self) -> float:
        value = self.best_trial.value
        assert value is not None
        return value

    @property
    def best_config(self) -> Config:
        return Config(self.best_trial.params)

    @property
    def best_params(self) -> Any:
        """The best configuration's parameters, arranged as the space arranges them,
        without calling any op (see :func:`treefarm.space.params`);
        ``build(study.space, study.best_config)`` builds the value itself."""
        return params(self.space, self.best_config)

    def history(self, *, exclude: int | None = None) -> History:
        """What the optimizer sees: completed, failed and pending configurations."""
        return self._cache.history(exclude=exclude)

    # ------------------------------------------------------------------ ask/tell
    def rng_for(self, number: int) -> np.random.Generator:
        """The generator of trial ``number``: a function of the study seed and the number only."""
        return np.random.default_rng([self.seed, number])

    def ask(self) -> Trial:
        """Start a trial: an enqueued configuration if any, else the optimizer's suggestion.

        The trial is RUNNING in storage when this returns. If building its
        value raises, the trial is recorded FAILED and the error propagates.
        """
        trial = self.ask_within(None)
        assert trial is not None
        return trial

    def ask_within(self, budget: int | None) -> Trial | None:
        """:meth:`ask`, or None when the study already has ``budget`` claimed trials
        (every state but waiting), counted atomically across all processes."""
        claimed = self._claim(budget)
        if claimed is None:
            return None
        number, config = claimed
        try:
            value = build(self.space, config)
        except BaseException as exc:
            self.finish(number, from_exception(exc))
            raise
        return Trial(self, number, config, value)

    def _claim(self, budget: int | None) -> tuple[int, Config] | None:
        """Claim a RUNNING trial and fix its configuration in storage; an enqueued
        configuration that no longer fits the space fails its trial and the next is taken."""
        me = identity()
        attrs: dict[str, JSON] = {"worker": me, "stale_after": self.stale_after}
        while True:
            record = self._storage.claim_trial(self.study_id, system_attrs=attrs, budget=budget)
            if record is None:
                return None
            self._running.add(record.number)
            if not record.params:
                config = self._suggest(record.number)
                self._storage.set_trial_params(self.study_id, record.number, config.to_dict())
                break
            try:
                config = validate(self.space, record.params)
                break
            except ConfigError as exc:
                self.finish(record.number, failure(str(exc)))
        self._cache.remember(record.number, config)
        return record.number, config

    def _suggest(self, number: int) -> Config:
        rng = self.rng_for(number)
        if not self._check_dupes:
            history = self.history(exclude=number) if self.optimizer.needs_history else History()
            return self.optimizer.suggest(self.space, history, 1, rng)[0]
        return self._dedupe.suggest(self.optimizer, self.history(exclude=number), rng)

    def enqueue(self, config: Mapping[str, Any], *, user_attrs: Mapping[str, Any] | None = None) -> int:
        """Queue a configuration (a warm start, a point hint) to be evaluated before any
        suggestion; it is validated against the space first. Returns its trial number."""
        checked = validate(self.space, config)
        record = self._storage.create_trial(
            self.study_id, params=checked.to_dict(), state=TrialState.WAITING, system_attrs={"enqueued": True}
        )
        for key, value in (user_attrs or {}).items():
            self._storage.set_trial_user_attr(self.study_id, record.number, key, value)
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
    ) -> TrialRecord:
        """Record the outcome of a trial: a value (or mapping with ``"loss"``),
        an exception, or an explicit state (``"failed"``, ``"pruned"``).

        A trial can be told once: telling it again raises
        :class:`~treefarm.TrialStateError` and leaves storage unchanged. A
        trial handle of another study is refused, naming both studies.
        """
        if isinstance(trial, Trial) and not self._same_study(trial.study):
            raise StudyError(
                "tell needs a trial of this study, but got "
                f"study={self.name!r}, trial_study={trial.study.name!r}, number={trial.number}"
            )
        number = trial.number if isinstance(trial, Trial) else trial
        if exception is not None:
            outcome = from_exception(exception)
        elif state is not None and TrialState(state) is not TrialState.COMPLETE:
            outcome = failure(f"told {TrialState(state).value}", state=TrialState(state))
        else:
            outcome = from_result(value)
        return self.finish(number, outcome)

    def finish(self, number: int, outcome: Outcome) -> TrialRecord:
        """Record ``outcome`` for trial ``number``; for a trial this object started,
        only while it is still this process's (see the storage's "Ownership")."""
        system_attrs = dict(outcome.system_attrs)
        config = self._cache.known_config(number) if self._dedupe.rules else None
        if config is not None:
            system_attrs["canonical"] = self._dedupe.key(config)
        owner = identity()["token"] if number in self._running else None
        try:
            return self._storage.finish_trial(
                self.study_id,
                number,
                state=outcome.state,
                value=outcome.value,
                user_attrs=outcome.user_attrs,
                system_attrs=system_attrs,
                owner=owner if isinstance(owner, str) else None,
            )
        finally:
            self._running.discard(number)

    # ----------------------------------------------------------------- recovery
    def recover(self) -> list[int]:
        """Fail RUNNING trials whose worker is gone (see :mod:`treefarm.study.recovery`),
        re-queueing them if the study was opened with ``requeue_interrupted``."""
        return recover(self._storage, self.study_id, grace=self.stale_after, requeue=self.requeue_interrupted)

    def fail_running(self, reason: str) -> None:
        """Fail every trial this process still runs in this study (an interruption):
        those this object started, and any other RUNNING trial carrying this process's token."""
        token = identity()["token"]
        mine = {
            r.number
            for r in self._storage.get_trials(self.study_id, states=[TrialState.RUNNING])
            if owner_of(r.system_attrs) == token
        }
        for number in sorted(self._running | mine):
            self._running.add(number)
            try:
                self.finish(number, failure(reason))
            except StudyError:
                continue

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
        requeue_lost: int = 1,
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
        )

    # ----------------------------------------------------------------- export
    def to_dataframe(self) -> Any:
        """The trials as a pandas DataFrame (needs pandas: ``pip install treefarm[pandas]``)."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise StudyError("to_dataframe needs pandas: pip install 'treefarm[pandas]'") from exc
        from .export import trial_rows

        return pd.DataFrame(trial_rows(self.trials))

    def __repr__(self) -> str:
        return f"Study(name={self.name!r}, direction={self.direction!r}, optimizer={self.optimizer!r})"
