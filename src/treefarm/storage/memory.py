"""A storage in this process's memory: for tests, notebooks and throwaway studies.

One lock makes every method atomic across threads. Params and attributes are
kept as their JSON text, so what goes in is checked and copied exactly as a
SQL storage would, and every record coming out is decoded afresh.
"""

from __future__ import annotations

import heapq
import threading
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from ..exceptions import StorageError, format_values
from ..objectives import Objectives
from . import checks
from .base import _NO_ATTRS, Storage
from .records import JSON, REQUEUED, HintRecord, NoteRecord, StudyRecord, TrialRecord, TrialState

__all__ = ["InMemoryStorage"]


@dataclass
class _Study:
    record: StudyRecord
    attrs: str
    trials: list[_Trial] = field(default_factory=list)
    waiting: list[int] = field(default_factory=list)
    hints: dict[int, HintRecord] = field(default_factory=dict)
    notes: list[NoteRecord] = field(default_factory=list)


@dataclass
class _Trial:
    number: int
    state: TrialState
    params: str
    system_attrs: str
    user_attrs: str = "{}"
    value: float | None = None
    values: tuple[float, ...] | None = None
    constraints: tuple[float, ...] | None = None
    intermediate: dict[int, float] = field(default_factory=dict)
    vectors: dict[int, tuple[float, ...]] = field(default_factory=dict)
    requeued: bool = False
    started: float | None = None
    finished: float | None = None
    heartbeat: float | None = None
    cost: float = 0.0


def _merge(text: str, attrs: Mapping[str, JSON], *, what: str) -> str:
    if not attrs:
        return text
    checks.encode_attrs(attrs, what=what)
    return checks.encode_value({**checks.decode(text), **attrs}, what=what)


class InMemoryStorage(Storage):
    """A thread-safe storage that lives as long as this object; see :class:`Storage`."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._studies: dict[int, _Study] = {}
        self._names: dict[str, int] = {}
        self._next_id = 1
        self._next_hint = 0

    # ----------------------------------------------------------------- studies
    def create_study(
        self,
        name: str,
        *,
        direction: str | None = None,
        seed: int | None,
        attrs: Mapping[str, JSON],
        load_if_exists: bool = False,
        directions: Sequence[str] | Mapping[str, str] | Objectives | None = None,
    ) -> StudyRecord:
        checked, text = checks.check_study(direction, seed, attrs, directions)
        with self._lock:
            if name in self._names:
                if load_if_exists:
                    return self.get_study(name)
                raise StorageError(f"the study name must be new, but got {format_values(name=name)}")
            study_id, self._next_id = self._next_id, self._next_id + 1
            record = StudyRecord(study_id, name, checked.directions[0], seed, {}, time.time(), checked.directions, checked.names)
            self._studies[study_id] = _Study(record, text)
            self._names[name] = study_id
            return self._study_record(study_id)

    def get_study(self, name: str) -> StudyRecord:
        with self._lock:
            if name not in self._names:
                raise checks.study_not_found(name=name)
            return self._study_record(self._names[name])

    def list_studies(self) -> list[StudyRecord]:
        with self._lock:
            return [self._study_record(study_id) for study_id in sorted(self._studies)]

    def delete_study(self, name: str) -> None:
        with self._lock:
            if name not in self._names:
                raise checks.study_not_found(name=name)
            del self._studies[self._names.pop(name)]

    def set_study_attr(self, study_id: int, key: str, value: JSON) -> None:
        with self._lock:
            study = self._study(study_id)
            study.attrs = _merge(study.attrs, {key: value}, what="attrs")

    # ------------------------------------------------------------------ trials
    def create_trial(
        self,
        study_id: int,
        *,
        params: Mapping[str, JSON],
        state: TrialState = TrialState.RUNNING,
        system_attrs: Mapping[str, JSON] = _NO_ATTRS,
        user_attrs: Mapping[str, JSON] = _NO_ATTRS,
    ) -> TrialRecord:
        state = checks.check_state(
            state, allowed=(TrialState.RUNNING, TrialState.WAITING), action="creating a trial"
        )
        params_text = checks.encode_params(params)
        attrs_text = checks.encode_attrs(system_attrs, what="system_attrs")
        user_text = checks.encode_attrs(user_attrs, what="user_attrs")
        with self._lock:
            study = self._study(study_id)
            trial = _Trial(len(study.trials), state, params_text, attrs_text, user_text)
            trial.requeued = REQUEUED in system_attrs
            if state is TrialState.RUNNING:
                trial.started = trial.heartbeat = time.time()
            else:
                heapq.heappush(study.waiting, trial.number)
            study.trials.append(trial)
            return self._trial_record(study_id, trial)

    def claim_trial(
        self,
        study_id: int,
        *,
        system_attrs: Mapping[str, JSON] = _NO_ATTRS,
        budget: int | None = None,
        max_cost: float | None = None,
        cost: float = 0.0,
    ) -> TrialRecord | None:
        attrs_text = checks.encode_attrs(system_attrs, what="system_attrs")
        cost = checks.cost(cost)
        with self._lock:
            study = self._study(study_id)
            record = self._claim(study_id, study, attrs_text, system_attrs, budget, max_cost)
            if record is not None and cost:
                study.trials[record.number].cost += cost
                record = self._trial_record(study_id, study.trials[record.number])
            return record

    def _claim(
        self,
        study_id: int,
        study: _Study,
        attrs_text: str,
        system_attrs: Mapping[str, JSON],
        budget: int | None,
        max_cost: float | None,
    ) -> TrialRecord | None:
        with self._lock:
            spent = max_cost is not None and sum(t.cost for t in study.trials) >= max_cost
            if spent or (budget is not None and len(study.trials) - len(study.waiting) >= budget):
                requeued = sorted(n for n in study.waiting if study.trials[n].requeued)
                if not requeued:
                    return None
                study.waiting.remove(requeued[0])
                heapq.heapify(study.waiting)
                return self._start_waiting(study_id, study.trials[requeued[0]], system_attrs)
            if study.waiting:
                return self.claim_waiting_trial(study_id, system_attrs=system_attrs)
            trial = _Trial(len(study.trials), TrialState.RUNNING, "{}", attrs_text)
            trial.started = trial.heartbeat = time.time()
            study.trials.append(trial)
            return self._trial_record(study_id, trial)

    def claim_waiting_trial(
        self, study_id: int, *, system_attrs: Mapping[str, JSON] = _NO_ATTRS
    ) -> TrialRecord | None:
        checks.encode_attrs(system_attrs, what="system_attrs")
        with self._lock:
            study = self._study(study_id)
            if not study.waiting:
                return None
            return self._start_waiting(study_id, study.trials[heapq.heappop(study.waiting)], system_attrs)

    def _start_waiting(self, study_id: int, trial: _Trial, system_attrs: Mapping[str, JSON]) -> TrialRecord:
        """A WAITING trial, taken off the queue by the caller (holding the lock), RUNNING."""
        trial.state = TrialState.RUNNING
        trial.started = trial.heartbeat = time.time()
        trial.system_attrs = _merge(trial.system_attrs, system_attrs, what="system_attrs")
        trial.requeued = trial.requeued or REQUEUED in system_attrs
        return self._trial_record(study_id, trial)

    def set_trial_params(
        self,
        study_id: int,
        number: int,
        params: Mapping[str, JSON],
        *,
        owner: str | None = None,
        unique_from: int | None = None,
        system_attrs: Mapping[str, JSON] = _NO_ATTRS,
    ) -> None:
        text = checks.encode_params(params)
        checks.encode_attrs(system_attrs, what="system_attrs")
        with self._lock:
            trial = self._trial(study_id, number)
            checks.check_params_owner(number, trial.state, checks.decode(trial.system_attrs), owner)
            if unique_from is not None:
                since = self._study(study_id).trials[max(unique_from, 0) :]
                checks.check_unique_params(number, text, (t.params for t in since if t is not trial))
            trial.params = text
            trial.system_attrs = _merge(trial.system_attrs, system_attrs, what="system_attrs")

    def finish_trial(
        self,
        study_id: int,
        number: int,
        *,
        state: TrialState,
        value: float | None = None,
        user_attrs: Mapping[str, JSON] = _NO_ATTRS,
        system_attrs: Mapping[str, JSON] = _NO_ATTRS,
        owner: str | None = None,
        values: Sequence[float] | None = None,
        constraints: Sequence[float] | None = None,
    ) -> TrialRecord:
        out = checks.check_finish(state, value, user_attrs, system_attrs, values=values, constraints=constraints)
        with self._lock:
            trial = self._trial(study_id, number)
            if not checks.check_owner(number, trial.state, checks.decode(trial.system_attrs), owner):
                if (trial.state, trial.values, trial.constraints) != (out.state, out.values, out.constraints):
                    raise checks.state_error(
                        number, trial.state, action="finishing a trial", allowed="running"
                    )
                return self._trial_record(study_id, trial)
            checks.check_lengths(number, out.values, self._studies[study_id].record.directions)
            trial.user_attrs = _merge(trial.user_attrs, user_attrs, what="user_attrs")
            trial.system_attrs = _merge(trial.system_attrs, system_attrs, what="system_attrs")
            trial.state, trial.value, trial.finished = out.state, out.value, time.time()
            trial.values, trial.constraints = out.values, out.constraints
            return self._trial_record(study_id, trial)

    def report_intermediate(self, study_id: int, number: int, step: int, value: float | Sequence[float]) -> None:
        first, every = checks.intermediate_value(step, value)
        with self._lock:
            trial = self._running(study_id, number, action="reporting an intermediate value")
            if every is not None:
                directions = self._studies[study_id].record.directions
                checks.check_intermediate_length(number, step, every, directions)
                trial.vectors[step] = every
            else:
                trial.vectors.pop(step, None)
            trial.intermediate[step] = first

    def add_trial_cost(self, study_id: int, number: int, cost: float) -> float:
        cost = checks.cost(cost)
        with self._lock:
            self._running(study_id, number, action="adding to its cost").cost += cost
            return self.spent_cost(study_id)

    def refund_trial_cost(
        self, study_id: int, number: int, cost: float, *, system_attrs: Mapping[str, JSON] = _NO_ATTRS
    ) -> float:
        cost = checks.cost(cost)
        checks.encode_attrs(system_attrs, what="system_attrs")
        with self._lock:
            trial = self._running(study_id, number, action="taking back its cost")
            trial.cost = checks.refunded(number, trial.cost, cost)
            trial.system_attrs = _merge(trial.system_attrs, system_attrs, what="system_attrs")
            return self.spent_cost(study_id)

    def spent_cost(self, study_id: int) -> float:
        with self._lock:
            return float(sum(t.cost for t in self._study(study_id).trials))

    def set_trial_user_attr(self, study_id: int, number: int, key: str, value: JSON) -> None:
        with self._lock:
            trial = self._trial(study_id, number)
            trial.user_attrs = _merge(trial.user_attrs, {key: value}, what="user_attrs")

    def heartbeat(self, study_id: int, number: int) -> None:
        with self._lock:
            trial = self._trial(study_id, number)
            if trial.state is TrialState.RUNNING:
                trial.heartbeat = time.time()

    def fail_stale_trials(self, study_id: int, *, grace: float) -> list[int]:
        with self._lock:
            now = time.time()
            stale = [
                t
                for t in self._study(study_id).trials
                if t.state is TrialState.RUNNING
                and (t.heartbeat or 0.0) < now - checks.stale_after(checks.decode(t.system_attrs), grace)
            ]
            for trial in stale:
                trial.state, trial.finished = TrialState.FAILED, now
                reason = {"fail_reason": checks.STALE_REASON}
                trial.system_attrs = _merge(trial.system_attrs, reason, what="system_attrs")
            return [t.number for t in stale]

    def get_trial(self, study_id: int, number: int) -> TrialRecord:
        with self._lock:
            return self._trial_record(study_id, self._trial(study_id, number))

    def get_trials(
        self,
        study_id: int,
        *,
        states: Collection[TrialState] | None = None,
        min_number: int = 0,
        known: Mapping[int, int] | None = None,
    ) -> list[TrialRecord]:
        wanted = None if states is None else {TrialState(s) for s in states}
        with self._lock:
            trials = self._study(study_id).trials[max(min_number, 0) :]
            return [self._trial_record(study_id, t) for t in trials if wanted is None or t.state in wanted]

    def count_trials(self, study_id: int, *, states: Collection[TrialState] | None = None) -> int:
        wanted = None if states is None else {TrialState(s) for s in states}
        with self._lock:
            trials = self._study(study_id).trials
            return len(trials) if wanted is None else sum(t.state in wanted for t in trials)

    def add_hint(
        self,
        study_id: int,
        *,
        config: Mapping[str, JSON],
        credibility: float,
        weight: int = 1,
        spread: float = 0.1,
        author: str | None = None,
    ) -> HintRecord:
        text = checks.check_hint(config, credibility, weight, spread)
        with self._lock:
            study = self._study(study_id)
            self._next_hint += 1
            record = HintRecord(
                self._next_hint, study_id, checks.decode(text), float(credibility), weight, float(spread), author, time.time()
            )
            study.hints[record.hint_id] = record
            return record

    def get_hints(self, study_id: int) -> list[HintRecord]:
        with self._lock:
            hints = self._study(study_id).hints
            return [
                HintRecord(h.hint_id, h.study_id, dict(h.config), h.credibility, h.weight, h.spread, h.author, h.created)
                for h in hints.values()
            ]

    def remove_hint(self, study_id: int, hint_id: int) -> None:
        with self._lock:
            hints = self._study(study_id).hints
            if hint_id not in hints:
                raise checks.NotFoundError(
                    f"the hint must exist in the study, but got {format_values(study_id=study_id, hint_id=hint_id)}"
                )
            del hints[hint_id]

    def add_note(self, study_id: int, *, text: str, author: str | None = None, trial: int | None = None) -> NoteRecord:
        checks.check_note(text, author, trial)
        with self._lock:
            study = self._study(study_id)
            if trial is not None:
                self.get_trial(study_id, trial)  # NotFoundError naming it
            self._next_hint += 1  # one counter for hints and notes: ids stay unique and increasing
            record = NoteRecord(self._next_hint, study_id, trial, text, author, time.time())
            study.notes.append(record)
            return record

    def get_notes(self, study_id: int) -> list[NoteRecord]:
        with self._lock:
            return list(self._study(study_id).notes)

    def close(self) -> None:
        """Nothing to release: the data lives as long as this object."""

    # ----------------------------------------------------------------- helpers
    def _study(self, study_id: int) -> _Study:
        if study_id not in self._studies:
            raise checks.study_not_found(study_id=study_id)
        return self._studies[study_id]

    def _trial(self, study_id: int, number: int) -> _Trial:
        trials = self._study(study_id).trials
        if not 0 <= number < len(trials):
            raise checks.trial_not_found(study_id, number)
        return trials[number]

    def _running(self, study_id: int, number: int, *, action: str) -> _Trial:
        trial = self._trial(study_id, number)
        if trial.state is not TrialState.RUNNING:
            raise checks.state_error(number, trial.state, action=action, allowed="running")
        return trial

    def _study_record(self, study_id: int) -> StudyRecord:
        study = self._studies[study_id]
        r = study.record
        return StudyRecord(
            r.study_id, r.name, r.direction, r.seed, checks.decode(study.attrs), r.created, r.directions, r.names
        )

    def _trial_record(self, study_id: int, t: _Trial) -> TrialRecord:
        return TrialRecord(
            study_id=study_id,
            number=t.number,
            state=t.state,
            params=checks.decode(t.params),
            value=t.value,
            intermediate=dict(t.intermediate),
            user_attrs=checks.decode(t.user_attrs),
            system_attrs=checks.decode(t.system_attrs),
            started=t.started,
            finished=t.finished,
            heartbeat=t.heartbeat,
            values=t.values,
            constraints=t.constraints,
            intermediate_vectors=dict(t.vectors),
            cost=t.cost,
        )
