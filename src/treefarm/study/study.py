"""The study: ask/tell over a storage, and the ``optimize`` loop.

A study is a named record in a storage plus the space and optimizer the
caller brings. It holds no algorithm logic: ``ask`` reserves a trial number
in the storage, derives the trial's random generator from the study seed and
that number, hands the history to the optimizer, and records the suggestion;
``tell`` records the outcome atomically. Because the optimizer is a function
of the stored history and the generator is a function of (seed, number), a
resumed study or a second process suggests exactly what the first would have.

Finished trials never change, so the study keeps them in a cache and reads
from storage only trials at or after the oldest one it has seen unfinished:
the cost of an ``ask`` does not grow with the history for optimizers that
need none, and stays one indexed read for those that do.

Crash safety: each trial is written RUNNING before its objective starts and
kept alive by a heartbeat thread; when a study is opened or starts
optimizing, RUNNING trials whose heartbeat is stale, or whose worker process
on this host is gone, are marked FAILED (and re-queued if asked).
"""

from __future__ import annotations

import inspect
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..exceptions import ConfigError, StudyError
from ..optimizers import History, Observation, Optimizer, make_optimizer
from ..pruners import Pruner
from ..space import Config, Space, build, canonical, convert, has_rules, validate
from ..storage import Storage, StudyRecord, TrialRecord, TrialState, open_storage
from .outcome import Outcome, from_exception, from_result
from .parallel import Evaluator
from .pruning import curves_for, with_last_report
from .stopping import Stopper
from .trial import Trial

__all__ = ["Callback", "Study"]

Callback = Callable[["Study", TrialRecord], None]
DIRECTIONS = ("minimize", "maximize")


def _worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _failure(reason: str) -> Outcome:
    return Outcome(TrialState.FAILED, system_attrs={"fail_reason": reason})


class _Heartbeat:
    """A daemon thread beating for the trials this process is running."""

    def __init__(self, study: Study) -> None:
        self._study = study
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="treefarm-heartbeat", daemon=True)

    def _run(self) -> None:
        study = self._study
        while not self._stop.wait(study.heartbeat_interval):
            for number in list(study._running):
                try:
                    study._storage.heartbeat(study._id, number)
                except Exception:
                    continue

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


class Study:
    """An optimization run persisted in a storage; see the module docstring.

    Make one with :meth:`create` or :meth:`load`, never the constructor.
    """

    #: How many times a duplicate suggestion is drawn again before it is accepted.
    MAX_REDRAWS = 20
    #: Seconds between looks at an enqueue queue last seen empty.
    QUEUE_RECHECK = 1.0

    def __init__(
        self,
        record: StudyRecord,
        storage: Storage,
        space: Any,
        optimizer: Optimizer,
        *,
        heartbeat_interval: float,
        stale_after: float | None,
        requeue_interrupted: bool,
        pruner: Pruner | None = None,
    ) -> None:
        self._record = record
        self._storage = storage
        self._id = record.study_id
        self.space: Space = convert(space)
        self.optimizer = optimizer
        if not heartbeat_interval > 0:
            raise StudyError(
                f"heartbeat_interval must be > 0, but got heartbeat_interval={heartbeat_interval!r}"
            )
        self.heartbeat_interval = float(heartbeat_interval)
        self.stale_after = float(stale_after) if stale_after is not None else 6 * self.heartbeat_interval
        self.requeue_interrupted = requeue_interrupted
        if pruner is not None and not isinstance(pruner, Pruner):
            raise StudyError(f"pruner must be a Pruner or None, but got pruner={pruner!r}")
        self.pruner = pruner
        self._finished: dict[int, TrialRecord] = {}
        self._configs: dict[int, Config | None] = {}
        self._scan_from = 0
        self._running: set[int] = set()
        self._stop_requested = False
        self._queue_empty_until = 0.0
        self._rules = has_rules(self.space)
        self._dedupe = self._rules or optimizer.needs_history
        self._keys: dict[Config, str] = {}
        self.recover()

    # ------------------------------------------------------------------ opening
    @classmethod
    def create(
        cls,
        name: str | None = None,
        *,
        space: Any,
        storage: str | os.PathLike[str] | Storage | None = None,
        algo: str | Optimizer = "tpe",
        direction: str = "minimize",
        seed: int | None = None,
        load_if_exists: bool = False,
        heartbeat_interval: float = 10.0,
        stale_after: float | None = None,
        requeue_interrupted: bool = False,
        pruner: Pruner | None = None,
    ) -> Study:
        """Create a study (or load it, with ``load_if_exists``) in ``storage``.

        ``storage`` is a path or URL (``"runs.db"``, ``"sqlite:///runs.db"``,
        ``"postgresql://..."``), a :class:`Storage`, or None for memory.
        ``seed`` None draws one and stores it, so the study stays reproducible
        when resumed. ``stale_after`` (default six heartbeats) is how old a
        RUNNING trial's heartbeat may be before it is presumed dead.
        ``pruner`` (see :mod:`treefarm.pruners`) answers ``trial.should_prune()``.
        """
        if direction not in DIRECTIONS:
            raise StudyError(f"direction must be one of {list(DIRECTIONS)}, but got direction={direction!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise StudyError(f"seed must be an integer >= 0 or None, but got seed={seed!r}")
        root = convert(space)
        optimizer = make_optimizer(algo)
        store = open_storage(storage)
        name = name if name is not None else f"study-{secrets.token_hex(4)}"
        attrs = {"space": repr(root)[:4000], "algo": repr(optimizer)}
        record = store.create_study(
            name,
            direction=direction,
            seed=seed if seed is not None else secrets.randbits(63),
            attrs=attrs,
            load_if_exists=load_if_exists,
        )
        return cls(
            record,
            store,
            root,
            optimizer,
            heartbeat_interval=heartbeat_interval,
            stale_after=stale_after,
            requeue_interrupted=requeue_interrupted,
            pruner=pruner,
        )

    @classmethod
    def load(
        cls,
        name: str,
        *,
        space: Any,
        storage: str | os.PathLike[str] | Storage,
        algo: str | Optimizer = "tpe",
        heartbeat_interval: float = 10.0,
        stale_after: float | None = None,
        requeue_interrupted: bool = False,
        pruner: Pruner | None = None,
    ) -> Study:
        """Open an existing study to resume it or read it (its seed and direction are stored)."""
        store = open_storage(storage)
        return cls(
            store.get_study(name),
            store,
            space,
            make_optimizer(algo),
            heartbeat_interval=heartbeat_interval,
            stale_after=stale_after,
            requeue_interrupted=requeue_interrupted,
            pruner=pruner,
        )

    # --------------------------------------------------------------- properties
    @property
    def name(self) -> str:
        return self._record.name

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
    def trials(self) -> list[TrialRecord]:
        """Every trial of the study, ordered by number."""
        return self._storage.get_trials(self._id)

    def _sign(self, value: float) -> float:
        return value if self.direction == "minimize" else -value

    @property
    def best_trial(self) -> TrialRecord:
        """The completed trial with the best value (the lowest number among ties)."""
        self._sync()
        done = [t for t in self._finished.values() if t.state is TrialState.COMPLETE]
        if not done:
            raise StudyError(f"the study {self.name!r} has no completed trial yet")
        return min(done, key=lambda t: (self._sign(t.value or 0.0), t.number))

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
        done = (t for t in self._finished.values() if t.state is TrialState.COMPLETE)
        return next((t for t in sorted(done, key=lambda t: t.number) if self._config_of(t) == config), best)

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
        """The Python value built from the best configuration."""
        return build(self.space, self.best_config)

    # ------------------------------------------------------------------ history
    def _config_of(self, record: TrialRecord) -> Config | None:
        """The record's configuration validated against this study's space (None if it no longer fits)."""
        if record.number not in self._configs:
            try:
                self._configs[record.number] = validate(self.space, record.params)
            except ConfigError:
                self._configs[record.number] = None
        return self._configs[record.number]

    def _sync(self) -> list[TrialRecord]:
        """Read trials changed since the last sync; return the unfinished ones."""
        records = self._storage.get_trials(self._id, min_number=self._scan_from)
        unfinished = []
        for r in records:
            if r.state.is_finished:
                self._finished[r.number] = r
            else:
                unfinished.append(r)
        if records:
            self._scan_from = unfinished[0].number if unfinished else records[-1].number + 1
        return unfinished

    def history(self, *, exclude: int | None = None) -> History:
        """What the optimizer sees: completed, failed and pending configurations.

        A pruned trial counts as completed with the value it last reported.
        For a curve that improves with the budget that value is pessimistic,
        so a trial stopped early lands among the worse ones of TPE's split
        (as Optuna's TPE ranks pruned trials below completed ones) without
        any optimizer knowing about fidelities; ignoring it instead would let
        the optimizer propose its region again. Pruned before any report, it
        counts as failed.
        """
        unfinished = self._sync()
        complete, failed = [], []
        for number in sorted(self._finished):
            r = self._finished[number]
            config = self._config_of(r)
            if config is None:
                continue
            if r.state in (TrialState.COMPLETE, TrialState.PRUNED) and r.value is not None:
                complete.append(Observation(config, self._sign(r.value)))
            elif r.state is not TrialState.COMPLETE:
                failed.append(config)
        pending = []
        for r in unfinished:
            config = self._config_of(r) if r.params and r.number != exclude else None
            if config is not None:
                pending.append(config)
        return History(tuple(complete), tuple(failed), tuple(pending))

    # ------------------------------------------------------------------ ask/tell
    def rng_for(self, number: int) -> np.random.Generator:
        """The generator of trial ``number``: a function of the study seed and the number only."""
        return np.random.default_rng([self.seed, number])

    def ask(self) -> Trial:
        """Start a trial: an enqueued configuration if any, else the optimizer's suggestion.

        The trial is RUNNING in storage when this returns. If building its
        value raises, the trial is recorded FAILED and the error propagates.
        """
        number, config = self._start()
        return self._build(number, config)

    def _start(self) -> tuple[int, Config]:
        """Reserve a RUNNING trial and fix its configuration in storage."""
        worker = {"worker": _worker_id()}
        record = self._claim_enqueued(worker)
        if record is not None:
            config = Config(record.params)
        else:
            record = self._storage.create_trial(self._id, params={}, system_attrs=worker)
            config = self._suggest(record.number)
            self._storage.set_trial_params(self._id, record.number, config.to_dict())
        self._configs[record.number] = config
        self._running.add(record.number)
        return record.number, config

    def _suggest(self, number: int) -> Config:
        """The optimizer's suggestion for trial ``number``. Where duplicates are
        checked, a suggestion equal to a configuration already evaluated, failed
        or pending (equal as an expression, under the ops' declared rules) is
        drawn again, up to ``MAX_REDRAWS`` times, with the duplicates passed as
        pending so the optimizer steers away; past that the space is taken as
        exhausted and the duplicate kept."""
        rng = self.rng_for(number)
        if not self._dedupe:
            history = self.history(exclude=number) if self.optimizer.needs_history else History()
            return self.optimizer.suggest(self.space, history, 1, rng)[0]
        history = self.history(exclude=number)
        seen = {self._key(c) for c in history.seen()}
        for _ in range(self.MAX_REDRAWS):
            config = self.optimizer.suggest(self.space, history, 1, rng)[0]
            if self._key(config) not in seen:
                break
            history = History(history.complete, history.failed, (*history.pending, config))
        return config

    def _key(self, config: Config) -> str:
        """What makes two configurations the same point: their canonical expression."""
        if config not in self._keys:
            self._keys[config] = canonical(self.space, config) if self._rules else config.to_json()
        return self._keys[config]

    def _build(self, number: int, config: Config) -> Trial:
        try:
            value = build(self.space, config)
        except BaseException as exc:
            self._finish(number, from_exception(exc))
            raise
        return Trial(self, number, config, value)

    def _claim_enqueued(self, worker: Mapping[str, Any]) -> TrialRecord | None:
        """The next enqueued trial, claimed for this worker. Once the queue was
        seen empty it is looked at again only after ``QUEUE_RECHECK`` seconds
        (or at once after this study enqueued something), which saves a write
        transaction per ask; another process's enqueued configs wait that long."""
        if time.monotonic() < self._queue_empty_until:
            return None
        while True:
            record = self._storage.claim_waiting_trial(self._id, system_attrs=worker)
            if record is None:
                self._queue_empty_until = time.monotonic() + self.QUEUE_RECHECK
                return None
            try:
                validate(self.space, record.params)
            except ConfigError as exc:
                self._finish(record.number, _failure(str(exc)))
                continue
            return record

    def enqueue(self, config: Mapping[str, Any], *, user_attrs: Mapping[str, Any] | None = None) -> int:
        """Queue a configuration (a warm start, a hint) to be evaluated before any
        suggestion; it is validated against the space first. Returns its trial number."""
        checked = validate(self.space, config)
        self._queue_empty_until = 0.0
        record = self._storage.create_trial(
            self._id, params=checked.to_dict(), state=TrialState.WAITING, system_attrs={"enqueued": True}
        )
        if user_attrs:
            for key, value in user_attrs.items():
                self._storage.set_trial_user_attr(self._id, record.number, key, value)
        return record.number

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
        :class:`~treefarm.TrialStateError` and leaves storage unchanged.
        """
        number = trial.number if isinstance(trial, Trial) else trial
        if exception is not None:
            outcome = from_exception(exception)
        elif state is not None and TrialState(state) is not TrialState.COMPLETE:
            outcome = Outcome(
                TrialState(state), system_attrs={"fail_reason": f"told {TrialState(state).value}"}
            )
        else:
            outcome = from_result(value)
        return self._finish(number, outcome)

    def _should_prune(self, number: int) -> bool:
        """The pruner's decision for trial ``number``; finished trials come from the cache
        (they never change), so only the unfinished ones are read from storage."""
        if self.pruner is None:
            return False
        unfinished = self._sync()
        records = [*self._finished.copy().values(), *unfinished]  # copy(): atomic under threads
        return self.pruner.prune(curves_for(records, number, maximize=self.direction == "maximize"))

    def _finish(self, number: int, outcome: Outcome) -> TrialRecord:
        if outcome.state is TrialState.PRUNED:
            outcome = with_last_report(outcome, self._storage.get_trial(self._id, number))
        system_attrs = dict(outcome.system_attrs)
        config = self._configs.get(number)
        if self._rules and config is not None:
            system_attrs["canonical"] = self._key(config)
        try:
            record = self._storage.finish_trial(
                self._id,
                number,
                state=outcome.state,
                value=outcome.value,
                user_attrs=outcome.user_attrs,
                system_attrs=system_attrs,
            )
        finally:
            self._running.discard(number)
        return record

    # ----------------------------------------------------------------- recovery
    def recover(self) -> list[int]:
        """Fail RUNNING trials whose worker is gone (stale heartbeat, or a dead
        process on this host); re-queue their configurations if the study was
        opened with ``requeue_interrupted``. A trial whose worker died while
        its configuration was being suggested has none: it is failed and not
        re-queued (nothing was evaluated). Returns the failed numbers."""
        failed = list(self._storage.fail_stale_trials(self._id, grace=self.stale_after))
        host = socket.gethostname()
        for r in self._storage.get_trials(self._id, states=[TrialState.RUNNING]):
            owner = str(r.system_attrs.get("worker", ""))
            who, _, pid = owner.rpartition(":")
            if who == host and pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
                when = (
                    "while running the trial" if r.params else "before the trial's configuration was chosen"
                )
                self._finish(r.number, _failure(f"worker process {pid} on {host} died {when}"))
                failed.append(r.number)
        if self.requeue_interrupted and failed:
            self._queue_empty_until = 0.0
            for number in failed:
                params = self._storage.get_trial(self._id, number).params
                if params:
                    self._storage.create_trial(
                        self._id,
                        params=params,
                        state=TrialState.WAITING,
                        system_attrs={"requeued_from": number},
                    )
        return sorted(failed)

    # ----------------------------------------------------------------- optimize
    def stop(self) -> None:
        """Ask a running ``optimize`` to stop after the trials in flight (from a callback)."""
        self._stop_requested = True

    def optimize(
        self,
        objective: Callable[..., Any],
        n_trials: int | None = None,
        *,
        timeout: float | None = None,
        n_jobs: int = 1,
        backend: str = "process",
        catch: Sequence[type[BaseException]] = (Exception,),
        callbacks: Iterable[Callback] = (),
        target: float | None = None,
        patience: int | None = None,
    ) -> None:
        """Evaluate ``objective`` on suggested configurations until a rule stops it.

        The objective receives the built value; if it declares a parameter
        named ``trial`` it also gets the :class:`Trial` (to ``report``
        intermediate values). It returns a number or a mapping with
        ``"loss"``. An exception of a type in ``catch`` fails the trial and the
        run goes on; any other (and KeyboardInterrupt) fails the trial and
        propagates. With ``n_jobs > 1`` trials run in synchronous batches of
        ``n_jobs`` in worker processes (``backend="process"``) or threads
        (``"thread"``); each batch is asked with the earlier members pending,
        so a seeded parallel run is reproducible.
        """
        if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
            raise StudyError(f"n_jobs must be an integer >= 1, but got n_jobs={n_jobs!r}")
        if backend not in ("process", "thread"):
            raise StudyError(f"backend must be 'process' or 'thread', but got backend={backend!r}")
        if not callable(objective):
            raise StudyError(f"objective must be callable, but got objective={objective!r}")
        wants_trial = "trial" in inspect.signature(objective).parameters
        if wants_trial and n_jobs > 1 and backend == "process":
            raise StudyError(
                "an objective taking `trial` needs n_jobs=1 or backend='thread', but got backend='process'"
            )
        stopper = Stopper(n_trials, timeout, target, patience, maximize=self.direction == "maximize")
        self._stop_requested = False
        callbacks = list(callbacks)
        self.recover()
        with (
            _Heartbeat(self),
            Evaluator(objective, n_jobs=n_jobs, backend=backend, wants_trial=wants_trial) as ev,
        ):
            while not (stopper.done() or self._stop_requested):
                remaining = stopper.remaining()
                size = n_jobs if remaining is None else min(n_jobs, remaining)
                trials = self._ask_batch(size, catch, stopper)
                try:
                    outcomes = ev.run(trials)
                except BaseException:
                    self._fail_rest(trials, -1)
                    raise
                for trial, (outcome, exc) in zip(trials, outcomes):
                    record = self._finish(trial.number, outcome)
                    stopper.record(record.value if record.state is TrialState.COMPLETE else None)
                    for callback in callbacks:
                        callback(self, record)
                    if exc is not None and (
                        not isinstance(exc, tuple(catch)) or isinstance(exc, KeyboardInterrupt)
                    ):
                        self._fail_rest(trials, trial.number)
                        raise exc

    def _ask_batch(self, size: int, catch: Sequence[type[BaseException]], stopper: Stopper) -> list[Trial]:
        """Up to ``size`` trials; one whose value fails to build (a caught error) is
        recorded failed and counts against the budget."""
        trials: list[Trial] = []
        while len(trials) < size and not stopper.done():
            number, config = self._start()
            try:
                trials.append(self._build(number, config))
            except tuple(catch):
                stopper.record(None)
            except BaseException:
                self._fail_rest(trials, number)
                raise
        return trials

    def _fail_rest(self, trials: Sequence[Trial], after: int) -> None:
        for t in trials:
            if t.number in self._running and t.number != after:
                self._finish(t.number, _failure("interrupted"))

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
