"""The storage contract every backend implements (in memory, SQLite, PostgreSQL)."""

from __future__ import annotations

import abc
from collections.abc import Collection, Mapping
from types import TracebackType

from .pages import PageQuery, TrialSummary, page_of, summary_of
from .records import JSON, StudyRecord, TrialRecord, TrialState

__all__ = ["Storage"]

_NO_ATTRS: Mapping[str, JSON] = {}


class Storage(abc.ABC):
    """Where studies and their trials are kept; the only shared state between workers.

    **Call order.** A study is created (or loaded) by name, which gives its
    ``study_id``; every other call names the study by that id. A trial is
    born by :meth:`create_trial`, either RUNNING (a worker evaluates it now)
    or WAITING (enqueued; a worker later takes it with
    :meth:`claim_waiting_trial`). While RUNNING, a worker may
    :meth:`set_trial_params` (to record a suggestion made after the number was
    reserved), :meth:`report_intermediate`, :meth:`heartbeat` and
    :meth:`set_trial_user_attr`; it ends the trial with exactly one
    :meth:`finish_trial` (COMPLETE, FAILED or PRUNED). Anyone may call
    :meth:`fail_stale_trials` to fail RUNNING trials whose worker stopped
    sending heartbeats. The lifecycle is therefore::

        WAITING --claim--> RUNNING --finish--> COMPLETE | FAILED | PRUNED
                           RUNNING --stale heartbeat--> FAILED

    and no other transition exists: a finished trial never changes state,
    value, params or intermediate values again (user attributes stay
    writable, for annotations after the fact).

    **Concurrency.** Any number of threads and processes (and, for SQL
    storages, machines) may use one storage at once, each process through its
    own ``Storage`` object. Every method is atomic: it either happens whole
    or not at all, and concurrent calls behave as if run one after another.
    In particular trial numbers are dense (0, 1, 2, ... per study) and never
    handed out twice; a WAITING trial is claimed by exactly one caller; and a
    trial is finished at most once (a second :meth:`finish_trial`, e.g.
    ``tell()`` twice, raises :class:`~treefarm.TrialStateError` naming the
    trial and its state, and leaves the storage unchanged). Transient lock
    contention is retried inside the storage; it never reaches the caller.

    **Immutability.** Methods return :class:`StudyRecord` and
    :class:`TrialRecord` values: snapshots built afresh for each call, whose
    mappings are plain ``dict`` copies. Mutating them never reaches the
    storage. Arguments are copied on the way in, so mutating a dict after
    passing it changes nothing stored.

    **Values.** Everything stored is JSON: params and attributes must be
    JSON-serializable (else :class:`~treefarm.ConfigError` for params,
    :class:`~treefarm.StorageError` for attributes, naming the key); nothing
    is ever pickled. Tuples come back as lists. A COMPLETE trial's value is a
    finite float. Unknown studies and trials raise
    :class:`~treefarm.storage.NotFoundError` (a ``StorageError`` and a
    ``KeyError``) naming them.
    """

    # ----------------------------------------------------------------- studies
    @abc.abstractmethod
    def create_study(
        self,
        name: str,
        *,
        direction: str,
        seed: int | None,
        attrs: Mapping[str, JSON],
        load_if_exists: bool = False,
    ) -> StudyRecord:
        """Create the study ``name``; if it exists, return it when ``load_if_exists``
        (its stored direction, seed and attrs win), else raise StorageError naming it."""

    @abc.abstractmethod
    def get_study(self, name: str) -> StudyRecord:
        """The study called ``name``; NotFoundError naming it if absent."""

    @abc.abstractmethod
    def list_studies(self) -> list[StudyRecord]:
        """Every study, ordered by id (creation order)."""

    @abc.abstractmethod
    def delete_study(self, name: str) -> None:
        """Remove the study ``name`` and all its trials; NotFoundError naming it if absent."""

    @abc.abstractmethod
    def set_study_attr(self, study_id: int, key: str, value: JSON) -> None:
        """Set one study attribute (others are kept)."""

    # ------------------------------------------------------------------ trials
    @abc.abstractmethod
    def create_trial(
        self,
        study_id: int,
        *,
        params: Mapping[str, JSON],
        state: TrialState = TrialState.RUNNING,
        system_attrs: Mapping[str, JSON] = _NO_ATTRS,
    ) -> TrialRecord:
        """Add a trial with the next number (atomically), RUNNING (``started`` and
        ``heartbeat`` set to now) or WAITING."""

    @abc.abstractmethod
    def claim_waiting_trial(
        self, study_id: int, *, system_attrs: Mapping[str, JSON] = _NO_ATTRS
    ) -> TrialRecord | None:
        """Move the lowest-numbered WAITING trial to RUNNING, merging ``system_attrs``;
        None if there is none. Two callers never claim the same trial."""

    @abc.abstractmethod
    def set_trial_params(self, study_id: int, number: int, params: Mapping[str, JSON]) -> None:
        """Replace the params of a WAITING or RUNNING trial (TrialStateError otherwise)."""

    @abc.abstractmethod
    def finish_trial(
        self,
        study_id: int,
        number: int,
        *,
        state: TrialState,
        value: float | None = None,
        user_attrs: Mapping[str, JSON] = _NO_ATTRS,
        system_attrs: Mapping[str, JSON] = _NO_ATTRS,
    ) -> TrialRecord:
        """Finish a RUNNING trial as ``state`` (COMPLETE needs a finite ``value``),
        merging the attributes into the stored ones; returns the finished record.

        Raises TrialStateError naming the number and current state if the trial
        is not RUNNING; the storage is then unchanged.
        """

    @abc.abstractmethod
    def report_intermediate(self, study_id: int, number: int, step: int, value: float) -> None:
        """Record ``value`` at ``step`` of a RUNNING trial (a repeated step replaces
        the earlier value); TrialStateError if the trial is not RUNNING."""

    @abc.abstractmethod
    def set_trial_user_attr(self, study_id: int, number: int, key: str, value: JSON) -> None:
        """Set one user attribute of a trial in any state (others are kept)."""

    @abc.abstractmethod
    def heartbeat(self, study_id: int, number: int) -> None:
        """Mark a RUNNING trial's worker alive now; a no-op once the trial is finished
        (a heartbeat thread may outlive its trial by one beat)."""

    @abc.abstractmethod
    def fail_stale_trials(self, study_id: int, *, grace: float) -> list[int]:
        """Fail the RUNNING trials whose last heartbeat is older than ``grace`` seconds,
        with ``system_attrs["fail_reason"] = "stale heartbeat: worker presumed dead"``;
        atomic per trial (a trial finished meanwhile is left alone). Returns their numbers."""

    @abc.abstractmethod
    def get_trial(self, study_id: int, number: int) -> TrialRecord:
        """One trial; NotFoundError naming it if absent."""

    @abc.abstractmethod
    def get_trials(
        self,
        study_id: int,
        *,
        states: Collection[TrialState] | None = None,
        min_number: int = 0,
    ) -> list[TrialRecord]:
        """The trials numbered ``min_number`` or more (in ``states`` if given), by number."""

    @abc.abstractmethod
    def count_trials(self, study_id: int, *, states: Collection[TrialState] | None = None) -> int:
        """How many trials the study has (in ``states`` if given)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release connections; the object must not be used afterwards. Idempotent."""

    def __enter__(self) -> Storage:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # ------------------------------------------------------- pages (read-only)
    def trial_page(
        self,
        study_id: int,
        *,
        offset: int = 0,
        limit: int = 50,
        order_by: str = "number",
        descending: bool = False,
        states: Collection[TrialState | str] | None = None,
        value_min: float | None = None,
        value_max: float | None = None,
    ) -> tuple[int, list[TrialRecord]]:
        """How many trials match the filter, and ``limit`` of them from ``offset`` in the
        order asked (see :mod:`treefarm.storage.pages`). This default reads every trial;
        a backend that can sort and count where the data is overrides it."""
        query = PageQuery.checked(
            offset=offset,
            limit=limit,
            order_by=order_by,
            descending=descending,
            states=states,
            value_min=value_min,
            value_max=value_max,
        )
        return page_of(self.get_trials(study_id), query)

    def trial_summary(self, study_id: int) -> TrialSummary:
        """Trials per state, the range of complete values and the last finish time.
        This default reads every trial; a backend may aggregate where the data is."""
        return summary_of(self.get_trials(study_id))
