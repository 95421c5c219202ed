"""What every part of a study stands on: the record it was opened as, the storage,
space and optimizer, the incremental view of its trials, and its life cycle
(recording outcomes, recovering dead workers' trials, failing its own on an
interruption, stopping).

:class:`StudyBase` owns these fields; the parts of :class:`~treefarm.Study` that read
(:mod:`.results`) and that keep hints (:mod:`.hinting`) derive from it, so each reads
fields its own base class declares.
"""

from __future__ import annotations

import logging
import math
import os
import time
from typing import Any

import numpy as np

from ..exceptions import StudyError, format_values
from ..execution.liveness import KeepAlive
from ..fidelity import Fidelity
from ..objectives import Objectives
from ..optimizers import History
from ..pruners import Pruner
from ..storage import Storage, TrialRecord
from ..validation import check_positive
from .ask.asking import Asker
from .state import artifacts
from .state.cache import TrialCache
from .state.dedupe import Deduplicator
from .state.objectives import count_failure
from .state.opening import Opened
from .state.outcome import Outcome
from .state.recovery import REQUEUE_LOST, recover
from .tell.pruning import curves_for, fidelity_range
from .tell.recording import Recorder

log = logging.getLogger("treefarm")

__all__ = ["STALE_FACTOR", "StudyBase"]

STALE_FACTOR = 6
"""A trial is presumed dead after this many of its worker's heartbeat intervals without one."""


class StudyBase:
    """A study's state and life cycle; see the module docstring."""

    def __init__(
        self,
        opened: Opened,
        *,
        heartbeat_interval: float,
        requeue_interrupted: bool,
        pruner: Pruner | None = None,
        fidelity: Fidelity | None = None,
    ) -> None:
        record, storage, space, optimizer = opened.record, opened.storage, opened.space, opened.optimizer
        check_positive("heartbeat_interval", heartbeat_interval, error=StudyError)
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
        self.fidelity = fidelity
        self.max_cost: float | None = None
        """The cost budget of the running :meth:`optimize` call (None: no budget)."""
        self._cost_spent = False
        self._agreement: tuple[int, bool] = (-1, False)  # (finished trials, whether the rungs mislead)
        self._cache = TrialCache(
            storage,
            record.study_id,
            space,
            name=record.name,
            objectives=record.objectives,
            fidelities=fidelity_range(pruner),
        )
        self._cache.full_fidelity = None if fidelity is None else fidelity.high
        dedupe = Deduplicator(space)
        self._recorder = Recorder(storage, record.study_id, self._cache, dedupe)
        self._keep_alive = KeepAlive(storage, record.study_id, lambda: self.running, self.heartbeat_interval)
        self._asker = Asker(
            storage,
            record.study_id,
            optimizer,
            self._cache,
            dedupe,
            seed=self.seed,
            stale_after=self.stale_after,
            fidelity=fidelity,
        )
        self._stop_requested = False
        self._artifact_store: str | None = None

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
    def objectives(self) -> Objectives:
        """The study's objectives: their directions and names, and how values compare."""
        return self._record.objectives

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

    def history(self, *, exclude: int | None = None) -> History:
        """What the optimizer sees: completed, failed and pending configurations."""
        return self._cache.history(exclude=exclude)

    # ---------------------------------------------------------------- artifacts
    @property
    def artifact_store(self) -> str:
        """Where trials' artifacts go: a directory or an fsspec URL (see
        :mod:`treefarm.study.state.artifacts`); ``<file>.artifacts`` beside a SQLite file by default."""
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

    # ---------------------------------------------------------------- recording
    def rng_for(self, number: int) -> np.random.Generator:
        """The generator of trial ``number``: a function of the study seed and the number only."""
        return self._asker.rng_for(number)

    def should_prune(self, number: int) -> bool:
        """The pruner's decision for trial ``number`` at its last reported step (False
        without a pruner), from stored values only: finished trials from the cache (they
        never change), the unfinished ones read afresh."""
        if self._cost_spent:
            return True
        if self.pruner is None:
            return False
        records = self._cache.finished_and_unfinished()
        if self._low_rungs_mislead(records):
            return False
        return self.pruner.prune(curves_for(records, number, self.objectives))

    def _low_rungs_mislead(self, records: list[TrialRecord]) -> bool:
        """Whether a budget-setting pruner's lower rungs rank the trials unlike the top
        one (:func:`treefarm.optimizers.fidelity.rung_agreement` below its floor): the
        study then stops pruning, so that what is left is spent on full runs instead of
        rungs that teach nothing. Judged again each time a trial has finished; a change
        of the verdict is logged."""
        if self._cache.fidelities is None:
            return False
        finished = sum(r.finished is not None for r in records)
        if finished != self._agreement[0]:
            from ..optimizers.fidelity import AGREEMENT_FLOOR, rung_agreement

            tau = rung_agreement(self._cache.history())
            misled = tau is not None and tau < AGREEMENT_FLOOR
            if misled != self._agreement[1]:
                if misled:
                    log.warning(
                        "the pruner's lower rungs rank trials unlike the top one (Kendall's tau %.2f; below %g "
                        "misleads): pruning stops, and trials run to their full budget",
                        tau, AGREEMENT_FLOOR,
                    )
                else:
                    log.info("the pruner's lower rungs rank trials like the top one again: pruning resumes")
            self._agreement = (finished, misled)
        return self._agreement[1]

    def fidelity_of(self, number: int) -> float | None:
        """The fidelity trial ``number`` evaluates at (None without a :class:`~treefarm.Fidelity`):
        an ``int`` for an integer fidelity, which objectives pass to ``range`` or ``n_estimators``."""
        fidelity = self._asker.fidelities.get(number)
        return int(fidelity) if fidelity is not None and self.fidelity is not None and self.fidelity.integer else fidelity

    def continued_from(self, number: int) -> int | None:
        """The number of the trial trial ``number`` continues (None: none; see
        :mod:`treefarm.study.state.checkpoints`)."""
        return self._asker.continued.get(number)

    def spend(self, number: int, cost: float) -> None:
        """Add ``cost`` to trial ``number``'s; once the study's :attr:`max_cost` is
        spent, :meth:`should_prune` stops every trial of this process at its next report."""
        spent = self._storage.add_trial_cost(self.study_id, number, cost)
        self._cost_spent = self.max_cost is not None and spent >= self.max_cost

    def finish(self, number: int, outcome: Outcome) -> TrialRecord:
        """Record ``outcome`` for trial ``number`` (see :mod:`treefarm.study.tell.recording`);
        values that do not match the study's objectives in count fail the trial, saying so."""
        return self._recorder.finish(number, count_failure(outcome, self.objectives) or outcome)

    # ----------------------------------------------------------------- recovery
    def recover(self, *, limit: int = REQUEUE_LOST) -> list[int]:
        """Fail RUNNING trials whose worker is gone (see :mod:`treefarm.study.state.recovery`),
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

    # ------------------------------------------------------------------ stopping
    def stop(self) -> None:
        """Ask a running ``optimize`` to stop after the trials in flight (from a callback)."""
        self._stop_requested = True

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested
