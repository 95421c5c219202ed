"""The storage contract every backend implements (in memory, SQLite, PostgreSQL)."""

from __future__ import annotations

import abc
from collections.abc import Collection, Mapping, Sequence
from types import TracebackType

from ..objectives import Objectives
from .pages import PageQuery, TrialSummary, page_of, summary_of
from .records import JSON, HintRecord, NoteRecord, StudyRecord, TrialRecord, TrialState

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
    :meth:`finish_trial` (COMPLETE, FAILED or PRUNED). Workers running an
    optimization take their trials with :meth:`claim_trial`, which does both
    in one transaction (the oldest WAITING trial, else a new RUNNING one) and
    enforces a study-wide budget. Anyone may call :meth:`fail_stale_trials`
    to fail RUNNING trials whose worker stopped sending heartbeats. The
    lifecycle is therefore::

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

    **Budgets.** :meth:`claim_trial` counts the study's *claimed* trials
    (every state but WAITING: RUNNING, COMPLETE, FAILED, PRUNED) inside the
    same transaction that adds one, so N workers sharing a budget B make
    exactly B trials between them, however they interleave. The count costs
    the same whatever the length of the history (the SQL storage keeps it in
    the study row).

    **Ownership.** A worker marks the trials it claims with its identity
    (``system_attrs["worker"]``, a mapping whose ``"token"`` is random per
    process) and, in ``system_attrs["stale_after"]``, how many seconds
    without a heartbeat mean it is dead: each trial is judged by its own
    worker's setting, never by the reader's. :meth:`finish_trial` with
    ``owner=token`` is refused (TrialStateError) unless the trial is RUNNING
    for that token; repeated with the same outcome after it succeeded (a retry
    whose acknowledgement was lost) it returns the stored record and records
    nothing twice.

    **Failures: what is atomic, what a crash or an outage leaves.** Each
    method is one transaction. A worker process that dies leaves its claimed
    trials RUNNING with a heartbeat that stops advancing: any worker's
    recovery (:meth:`fail_stale_trials`, and the study's check of a dead PID
    on the same host) fails them with a reason and may queue their
    configurations again; nothing else is left half-written. A SQL storage
    whose server goes away (a restart, a dropped connection) retries every
    call, reconnecting, until its ``retry_deadline`` (60 s by default), and
    every write is safe to repeat after a commit whose acknowledgement was
    lost (claims and creations carry a request id a retry looks for first;
    finishes are checked against the stored outcome), so an outage within
    the deadline costs time and nothing else. Past the deadline the call
    raises :class:`~treefarm.StorageUnavailableError`; a finish is first
    kept in a local journal file, written back by the next successful call
    or by ``treefarm recover`` (see :mod:`treefarm.storage.journal`). If the
    outage outlasts a trial's ``stale_after``, another worker may fail that
    trial meanwhile; its journaled result is then refused and kept in
    ``JOURNAL.rejected``, never silently dropped.

    **Isolation and durability per backend.** In memory: one lock, lost with
    the process. SQLite: one writer at a time (``BEGIN IMMEDIATE``), readers
    on a consistent snapshot (WAL), so transactions are serializable; with
    the default ``synchronous="NORMAL"`` a commit survives a crash of the
    process but the last commits may be lost on power loss or an OS crash
    (the file is never corrupted); ``synchronous="FULL"`` fsyncs each commit.
    PostgreSQL: READ COMMITTED with explicit row locks (the study row for
    numbering, claims and budgets, the trial row for finishing), so the
    operations above serialize where they must; durability is the server's
    (``fsync``, ``synchronous_commit``) for every write but two: a new trial's
    claim and a heartbeat commit without waiting for the disk (``SET LOCAL
    synchronous_commit = off``), because the claim is made durable by its
    worker's next write (the params, a normal commit: PostgreSQL flushes the
    log in order) and a heartbeat by the next one. A server crash in between
    loses at most an empty claim: its worker's params are then refused (the
    trial is gone, or its number was claimed again by another worker) and
    the worker claims again. A finished result is acknowledged only once its
    commit is on disk, as before; so each trial costs two flushes (params,
    finish), not three.

    **Readers.** A storage opened ``read_only`` refuses every write with a
    StorageError, and a read never changes anything: recovering stale trials
    is an explicit :meth:`fail_stale_trials`, never a side effect of reading.

    **Immutability.** Methods return :class:`StudyRecord` and
    :class:`TrialRecord` values: snapshots built afresh for each call, whose
    mappings are plain ``dict`` copies. Mutating them never reaches the
    storage. Arguments are copied on the way in, so mutating a dict after
    passing it changes nothing stored.

    **Values.** Everything stored is JSON: params and attributes must be
    JSON-serializable (else :class:`~treefarm.ConfigError` for params,
    :class:`~treefarm.StorageError` for attributes, naming the key); nothing
    is ever pickled. Tuples come back as lists. A COMPLETE trial's value is a
    finite float; a study with several objectives keeps one per objective
    (``values``), and any trial may carry constraint values (``constraints``). Unknown studies and trials raise
    :class:`~treefarm.storage.NotFoundError` (a ``StorageError`` and a
    ``KeyError``) naming them.
    """

    # ----------------------------------------------------------------- studies
    @abc.abstractmethod
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
        """Create the study ``name``; if it exists, return it when ``load_if_exists``
        (its stored objectives, seed and attrs win), else raise StorageError naming it.

        The study has the one ``direction``, or ``directions``: one direction per
        objective, or a mapping of the objectives' names to their directions (kept as
        the record's ``names``); one of the two, never both
        (:meth:`treefarm.objectives.Objectives.parse`). The record's ``direction``
        is always the first."""

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
        user_attrs: Mapping[str, JSON] = _NO_ATTRS,
    ) -> TrialRecord:
        """Add a trial with the next number (atomically), RUNNING (``started`` and
        ``heartbeat`` set to now) or WAITING, with its attributes in the same
        write (a queued trial is never seen without the user attributes it was
        queued with)."""

    @abc.abstractmethod
    def claim_trial(
        self,
        study_id: int,
        *,
        system_attrs: Mapping[str, JSON] = _NO_ATTRS,
        budget: int | None = None,
        max_cost: float | None = None,
        cost: float = 0.0,
    ) -> TrialRecord | None:
        """Start a trial for a worker, atomically: the lowest-numbered WAITING trial
        (merging ``system_attrs``) if there is one, else a new RUNNING trial with empty
        params. None, and nothing written, when ``budget`` is given and the study
        already has ``budget`` claimed (non-WAITING) trials, unless a WAITING trial
        re-queues an interrupted one (:data:`REQUEUED` in its system attrs): that one
        is claimed, as it takes the interrupted trial's place in the budget (else a
        recovery after the budget was spent left it waiting for good). A worker that gets a new
        trial writes its configuration next with ``set_trial_params(..., owner=token)``;
        a storage may make the claim durable only with that write (see the class
        docstring), so a refused ``set_trial_params`` means: claim again.

        ``max_cost`` is the study's cost budget: None, and nothing written, when the
        cost its trials have spent (:meth:`spent_cost`) has reached it (a re-queued
        trial is still claimed, as with ``budget``). ``cost`` is reserved on the
        claimed trial in the same step (a fidelity's declared cost), so that workers
        claiming at one instant see each other's reservations and the budget is
        overrun by at most one trial's cost."""

    @abc.abstractmethod
    def add_trial_cost(self, study_id: int, number: int, cost: float) -> float:
        """Add ``cost`` (a finite number >= 0) to a RUNNING trial's (TrialStateError
        otherwise) and return the study's :meth:`spent_cost` after it, read in the
        same step, so that a learning curve's reports stop at the study's budget."""

    @abc.abstractmethod
    def refund_trial_cost(
        self, study_id: int, number: int, cost: float, *, system_attrs: Mapping[str, JSON] = _NO_ATTRS
    ) -> float:
        """Take ``cost`` (a finite number >= 0, at most the trial's cost: StorageError
        otherwise) back from a RUNNING trial's (TrialStateError otherwise), merging
        ``system_attrs``, in one step, and return the study's :meth:`spent_cost` after
        it: a trial that continues another from its checkpoint gives back the part of
        its reservation the other already spent, and says so with the same write."""

    @abc.abstractmethod
    def spent_cost(self, study_id: int) -> float:
        """The cost every trial of the study has spent or reserved, summed."""

    @abc.abstractmethod
    def claim_waiting_trial(
        self, study_id: int, *, system_attrs: Mapping[str, JSON] = _NO_ATTRS
    ) -> TrialRecord | None:
        """Move the lowest-numbered WAITING trial to RUNNING, merging ``system_attrs``;
        None if there is none. Two callers never claim the same trial."""

    @abc.abstractmethod
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
        """Replace the params of a WAITING or RUNNING trial (TrialStateError otherwise),
        merging ``system_attrs`` into its system attributes in the same step (a
        promotion records the trial it continues with its configuration);
        with ``owner``, only of a trial RUNNING for that worker token (TrialStateError
        naming the holder otherwise), so a claim lost to a server crash, whose number
        another worker has claimed since, is never overwritten. With ``unique_from``,
        refused with DuplicateParamsError (nothing written) when another trial numbered
        ``unique_from`` or above holds the same params: the check and the write are one
        atomic step, so two workers that suggest one configuration at the same instant
        cannot both record it (the refused one suggests again)."""

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
        owner: str | None = None,
        values: Sequence[float] | None = None,
        constraints: Sequence[float] | None = None,
    ) -> TrialRecord:
        """Finish a RUNNING trial as ``state`` (COMPLETE needs a finite ``value``),
        merging the attributes into the stored ones; returns the finished record.

        ``values`` gives one finite float per objective of the study (``value``, if
        given too, must be its first; the record's ``value`` is always that first);
        ``value`` alone means ``values=(value,)``. Values of another length than the
        study's directions are refused with StorageError naming them and the length
        expected. ``constraints`` are finite floats (the trial is feasible when every
        one is ``<= 0``), kept with any state.

        Raises TrialStateError naming the number and current state if the trial
        is not RUNNING, or (with ``owner``) not the trial of the worker whose
        token that is; the storage is then unchanged. With ``owner``, a finish
        repeating one already recorded for that owner (same state, values and
        constraints) returns the stored record instead (see "Ownership").
        """

    @abc.abstractmethod
    def report_intermediate(self, study_id: int, number: int, step: int, value: float | Sequence[float]) -> None:
        """Record ``value`` at ``step`` of a RUNNING trial (a repeated step replaces
        the earlier value); TrialStateError if the trial is not RUNNING. ``value`` may
        be a vector, one float per objective of the study (else StorageError naming
        the length expected): the record's ``intermediate`` then holds its first and
        ``intermediate_vectors`` all of it. NaN and infinities are kept."""

    @abc.abstractmethod
    def set_trial_user_attr(self, study_id: int, number: int, key: str, value: JSON) -> None:
        """Set one user attribute of a trial in any state (others are kept)."""

    @abc.abstractmethod
    def heartbeat(self, study_id: int, number: int) -> None:
        """Mark a RUNNING trial's worker alive now; a no-op once the trial is finished
        (a heartbeat thread may outlive its trial by one beat)."""

    @abc.abstractmethod
    def fail_stale_trials(self, study_id: int, *, grace: float) -> list[int]:
        """Fail the RUNNING trials whose last heartbeat is older than their own
        ``system_attrs["stale_after"]`` seconds (``grace`` for a trial that has none),
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
        known: Mapping[int, int] | None = None,
    ) -> list[TrialRecord]:
        """The trials numbered ``min_number`` or more (in ``states`` if given), by number.

        ``known`` maps trial numbers to the :attr:`~TrialRecord.version` the caller
        holds: a trial stored at that version may be left out (it has not changed
        since), so a reader that keeps what it read re-reads only what changed. A
        storage that keeps no versions returns every trial."""

    @abc.abstractmethod
    def count_trials(self, study_id: int, *, states: Collection[TrialState] | None = None) -> int:
        """How many trials the study has (in ``states`` if given)."""

    # ------------------------------------------------------------------- hints
    @abc.abstractmethod
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
        """Store a search hint (any process, any time, also while the study runs);
        errors name a bad credibility, weight or spread."""

    @abc.abstractmethod
    def get_hints(self, study_id: int) -> list[HintRecord]:
        """The study's hints, oldest first."""

    @abc.abstractmethod
    def remove_hint(self, study_id: int, hint_id: int) -> None:
        """Remove one hint; NotFoundError naming it if the study has no such hint."""

    # ------------------------------------------------------------------- notes
    @abc.abstractmethod
    def add_note(self, study_id: int, *, text: str, author: str | None = None, trial: int | None = None) -> NoteRecord:
        """Store a note on the study, or on its trial ``trial`` (NotFoundError naming it if
        absent), as a row of its own: notes added at once from several processes are all kept."""

    @abc.abstractmethod
    def get_notes(self, study_id: int) -> list[NoteRecord]:
        """The study's notes (its trials' too), oldest first."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release connections. Idempotent. A SQL storage opens new connections if it is
        used afterwards (``minimize``'s ``result.study`` stays readable); the contract
        itself promises nothing after ``close``."""

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
        feasible: bool | None = None,
    ) -> tuple[int, list[TrialRecord]]:
        """How many trials match the filter, and ``limit`` of them from ``offset`` in the
        order asked (see :mod:`treefarm.storage.pages`; ``feasible`` keeps the trials
        whose constraints all hold, or, False, those with one that does not). This default reads every trial;
        a backend that can sort and count where the data is overrides it."""
        query = PageQuery.checked(
            offset=offset,
            limit=limit,
            order_by=order_by,
            descending=descending,
            states=states,
            value_min=value_min,
            value_max=value_max,
            feasible=feasible,
        )
        return page_of(self.get_trials(study_id), query)

    def trial_summary(self, study_id: int) -> TrialSummary:
        """Trials per state, the range of complete values and the last finish time.
        This default reads every trial; a backend may aggregate where the data is."""
        return summary_of(self.get_trials(study_id))
