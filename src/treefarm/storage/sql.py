"""One SQL storage for SQLite files and PostgreSQL servers, on SQLAlchemy Core.

The storage is split by concern, as the storages worth imitating are
(Optuna's ``storages/_rdb``: models, storage, migrations):

* :mod:`.schema`: the tables (and what each column means);
* :mod:`.migrate` and ``migrations/``: the schema revision a database holds
  and the Alembic steps that upgrade it;
* :mod:`.sqlite_file`: SQLite's pragmas, read-only openings, the file's
  identity and the checkpoint on close;
* :mod:`.url`: the storage's location, parsed once (:class:`~.url.StorageURL`);
* :mod:`.transactions`: the engine, one transaction per call, retries of lock
  contention and lost connections (:mod:`.resilience`);
* :mod:`.journal`: the finishes the storage could not take, kept and replayed;
* :mod:`.queries`: rows to records, locks, numbering, claims and pages;
* this module: the :class:`SQLStorage` methods of the contract.

Dialect quirks: on SQLite, writes take the write lock up front (``BEGIN
IMMEDIATE``) and reads see one snapshot (WAL); on PostgreSQL, number
assignment and claims lock the study row (``SELECT ... FOR UPDATE``),
finishing locks the trial row, so concurrent workers serialize exactly where
they must; serialization failures and deadlocks are retried.
``postgresql://`` means the psycopg 3 driver; connections are checked before
use (``pool_pre_ping``).

**Outages.** Every write is safe to retry after a commit whose
acknowledgement was lost: finishes are checked against the stored outcome,
claims and trial creations carry a per-call request id (the ``request``
column) that a retry looks for first, and a study creation recognizes its own
row by its creation time. A finish that still cannot be written goes to the
local journal and is replayed by the next successful call.

**Budgets** read the study row's ``n_claimed``, which every claim and
creation of a RUNNING trial increments in its own transaction, under the
study row's lock: one row whatever the length of the history.
"""

from __future__ import annotations

import functools
import math
import os
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import exc

from ..exceptions import StorageError, StorageReplacedError, StorageUnavailableError, format_values
from ..objectives import Objectives
from . import checks
from . import journal as journal_file
from . import queries as q
from .base import _NO_ATTRS, Storage
from .pages import PageQuery, TrialSummary
from .records import JSON, REQUEUED, HintRecord, NoteRecord, StudyRecord, TrialRecord, TrialState
from .schema import HEAD, hints_table, intermediate, notes_table, studies, trials
from .sqlite_file import BUSY_TIMEOUT_MS, CLOSE_CHECKPOINT_MS, SYNCHRONOUS, read_only_flags
from .transactions import RETRY_DEADLINE, SQLConnection
from .url import StorageURL

__all__ = [
    "BUSY_TIMEOUT_MS",
    "CLOSE_CHECKPOINT_MS",
    "RETRY_DEADLINE",
    "SCHEMA_VERSION",
    "SYNCHRONOUS",
    "SQLStorage",
    "intermediate",
    "read_only_flags",
    "studies",
    "trials",
]

_T = TypeVar("_T")

SCHEMA_VERSION = int(HEAD)
"""``treefarm_meta.schema_version`` as this treefarm writes it: the number of its schema
revision (the revision in ``treefarm_alembic_version`` is the truth; see :mod:`.migrate`)."""


class SQLStorage(Storage):
    """A storage in a SQLite file or a PostgreSQL database; see :class:`Storage`.

    ``url`` is a SQLAlchemy URL (``sqlite:///runs.db``, ``postgresql://user@host/db``)
    or a :class:`~treefarm.storage.url.StorageURL` (a SQLite file named by its absolute path);
    ``engine_kwargs`` are passed to :func:`sqlalchemy.create_engine`. The tables
    are created on first open, and a database of an older schema revision is
    upgraded (see :mod:`.migrate`); one written by a newer treefarm is refused
    with a StorageError naming both revisions. A read-only opening never
    writes: it refuses a database of an older revision. Each process should
    open its own ``SQLStorage``; one that is inherited through ``fork`` drops
    the parent's connections on first use.

    ``retry_deadline`` is how many seconds a call keeps reconnecting to a server
    that went away before raising StorageUnavailableError; ``journal`` the file
    that keeps a finished result the storage could not take in that time (default
    ``treefarm-journal.jsonl`` in the working directory; None to raise instead);
    ``synchronous`` SQLite's ``"NORMAL"`` or ``"FULL"`` (see :mod:`.sqlite_file`).
    """

    def __init__(
        self,
        url: str | StorageURL,
        *,
        engine_kwargs: Mapping[str, Any] | None = None,
        read_only: bool = False,
        retry_deadline: float = RETRY_DEADLINE,
        journal: str | os.PathLike[str] | None = journal_file.DEFAULT_JOURNAL,
        synchronous: str = "NORMAL",
    ) -> None:
        location = StorageURL.parse(url, read_only=read_only)
        self._connection = SQLConnection(
            location, engine_kwargs=engine_kwargs, retry_deadline=retry_deadline, synchronous=synchronous
        )
        self._journal = (
            None
            if journal is None or location.read_only
            else journal_file.StorageJournal(Path(journal).expanduser().resolve(), location.shown)
        )
        self._replay_journal()

    @property
    def url(self) -> str:
        """The database's URL (a SQLite file's absolute path in it; with its password)."""
        return self._connection.url.url

    @property
    def location(self) -> StorageURL:
        """Where this storage is, parsed (its ``repr`` hides a password)."""
        return self._connection.url

    @property
    def read_only(self) -> bool:
        """Whether this storage was opened only to look (every write is refused)."""
        return self._connection.url.read_only

    @property
    def retry_deadline(self) -> float:
        """Seconds a call keeps reconnecting to a storage that went away before it gives up."""
        return self._connection.retry_deadline

    @retry_deadline.setter
    def retry_deadline(self, seconds: float) -> None:
        self._connection.retry_deadline = float(seconds)

    @property
    def journal(self) -> Path | None:
        """The file keeping finishes this storage could not take (None: they raise)."""
        return None if self._journal is None else self._journal.path

    @property
    def engine(self) -> sa.Engine:
        """The SQLAlchemy engine, for bulk tools writing rows directly (no retries, journal or checks)."""
        return self._connection.engine

    def close(self) -> None:
        self._connection.close()

    def _read(self, body: Callable[[sa.Connection], _T]) -> _T:
        result = self._connection.read(body)
        self._replay_journal()
        return result

    def _write(self, body: Callable[[sa.Connection], _T]) -> _T:
        result = self._connection.write(body)
        self._replay_journal()
        return result

    def _replay_journal(self) -> None:
        """Write the journal's results after a call that succeeded; a replaced file
        takes none (the journal keeps them for ``treefarm recover``)."""
        if self._journal is not None and not self._connection.replaced():
            self._journal.replay_new(functools.partial(journal_file.finish_entry, self.finish_trial))

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
        exists = StorageError(f"the study name must be new, but got {format_values(name=name)}")

        created = time.time()

        def body(connection: sa.Connection) -> StudyRecord:
            row = connection.execute(sa.select(studies).where(studies.c.name == name)).first()
            if row is not None:
                if load_if_exists or row.created == created:  # ours, from an attempt whose reply was lost
                    return q.study_record(row)
                raise exists
            values = {
                "name": name,
                "direction": checked.directions[0],
                "directions": checks.encode_value(list(checked.directions), what="directions"),
                "names": None if checked.names is None else checks.encode_value(list(checked.names), what="names"),
                "seed": seed,
                "attrs": text,
                "created": created,
            }
            insert = sa.insert(studies).values(**values).returning(studies.c.study_id)
            study_id = int(connection.execute(insert).scalar_one())
            return StudyRecord(
                study_id, name, checked.directions[0], seed, checks.decode(text), created, checked.directions, checked.names
            )

        try:
            return self._write(body)
        except StorageError as error:
            if not isinstance(error.__cause__, exc.IntegrityError):
                raise
            if load_if_exists:  # another process created it between our read and our insert
                return self.get_study(name)
            raise exists from None

    def get_study(self, name: str) -> StudyRecord:
        def body(connection: sa.Connection) -> StudyRecord:
            row = connection.execute(sa.select(studies).where(studies.c.name == name)).first()
            if row is None:
                raise checks.study_not_found(name=name)
            return q.study_record(row)

        return self._read(body)

    def list_studies(self) -> list[StudyRecord]:
        def body(connection: sa.Connection) -> list[StudyRecord]:
            rows = connection.execute(sa.select(studies).order_by(studies.c.study_id))
            return [q.study_record(row) for row in rows]

        return self._read(body)

    def delete_study(self, name: str) -> None:
        attempts = 0

        def body(connection: sa.Connection) -> None:
            nonlocal attempts
            attempts += 1
            query = sa.select(studies.c.study_id).where(studies.c.name == name)
            study_id = connection.execute(query).scalar()
            if study_id is None:
                if attempts > 1:  # an earlier attempt deleted it, and its reply was lost
                    return
                raise checks.study_not_found(name=name)
            for table in (notes_table, hints_table, intermediate, trials, studies):
                connection.execute(sa.delete(table).where(table.c.study_id == study_id))

        self._write(body)

    def set_study_attr(self, study_id: int, key: str, value: JSON) -> None:
        checks.encode_attrs({key: value}, what="attrs")

        def body(connection: sa.Connection) -> None:
            text = q.merged(q.lock_study(connection, study_id).attrs, {key: value}, what="attrs")
            connection.execute(sa.update(studies).where(studies.c.study_id == study_id).values(attrs=text))

        self._write(body)

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
        request = q.request_id()
        new = q.NewTrial(
            state=state,
            params=checks.encode_params(params),
            user_attrs=checks.encode_attrs(user_attrs, what="user_attrs"),
            system_attrs=checks.encode_attrs(system_attrs, what="system_attrs"),
            request=request,
            requeued=REQUEUED in system_attrs,
        )
        attempts = 0

        def body(connection: sa.Connection) -> TrialRecord:
            nonlocal attempts
            attempts += 1
            earlier, last, _ = q.numbering(connection, study_id, request, retried=attempts > 1)
            if earlier is not None:
                return earlier
            return q.insert_trial(connection, study_id, 0 if last is None else last + 1, new)

        return self._write(body)

    def claim_trial(
        self,
        study_id: int,
        *,
        system_attrs: Mapping[str, JSON] = _NO_ATTRS,
        budget: int | None = None,
        max_cost: float | None = None,
        cost: float = 0.0,
    ) -> TrialRecord | None:
        request = q.request_id()
        new = q.NewTrial(
            state=TrialState.RUNNING,
            system_attrs=checks.encode_attrs(system_attrs, what="system_attrs"),
            request=request,
            requeued=REQUEUED in system_attrs,
            cost=checks.cost(cost),
        )
        attempts = 0

        def body(connection: sa.Connection) -> TrialRecord | None:
            nonlocal attempts
            attempts += 1
            earlier, last, claimed = q.numbering(connection, study_id, request, retried=attempts > 1)
            if earlier is not None:
                return earlier
            spent = max_cost is not None and q.spent_cost(connection, study_id) >= max_cost
            if spent or (budget is not None and claimed >= budget):
                return q.claim_waiting(
                    connection, study_id, system_attrs, request=request, requeued_only=True, cost=new.cost
                )
            waiting = q.claim_waiting(connection, study_id, system_attrs, request=request, cost=new.cost)
            if waiting is not None:
                return waiting
            q.commit_without_flush(connection)
            return q.insert_trial(connection, study_id, 0 if last is None else last + 1, new)

        return self._write(body)

    def claim_waiting_trial(
        self, study_id: int, *, system_attrs: Mapping[str, JSON] = _NO_ATTRS
    ) -> TrialRecord | None:
        checks.encode_attrs(system_attrs, what="system_attrs")

        def body(connection: sa.Connection) -> TrialRecord | None:
            q.lock_study(connection, study_id)
            return q.claim_waiting(connection, study_id, system_attrs)

        return self._write(body)

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

        def body(connection: sa.Connection) -> None:
            if unique_from is not None:  # one checked write at a time, as claims are numbered
                q.lock_study(connection, study_id)
            row = q.lock_trial(connection, study_id, number)
            checks.check_params_owner(number, TrialState(row.state), checks.decode(row.system_attrs), owner)
            if unique_from is not None:
                c = trials.c
                since = sa.select(c.params).where(c.study_id == study_id, c.number >= unique_from, c.number != number)
                checks.check_unique_params(number, text, connection.execute(since).scalars())
            q.update_trial(connection, row.trial_id, params=text, **q.merged_system(row.system_attrs, system_attrs))

        self._write(body)

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
        outcome = checks.check_finish(
            state, value, user_attrs, system_attrs, values=values, constraints=constraints
        )
        try:
            return self._finish(
                study_id, number, outcome=outcome, user_attrs=user_attrs, system_attrs=system_attrs, owner=owner
            )
        except (StorageUnavailableError, StorageReplacedError) as error:
            if self._journal is None or journal_file.replaying():  # a replay's finish stays in the journal
                raise
            raise self._journal.keep(
                error, study_id, number, outcome=outcome, user_attrs=user_attrs, system_attrs=system_attrs, owner=owner
            ) from error

    def _finish(
        self,
        study_id: int,
        number: int,
        *,
        outcome: checks.CheckedFinish,
        user_attrs: Mapping[str, JSON],
        system_attrs: Mapping[str, JSON],
        owner: str | None,
    ) -> TrialRecord:
        values_text = checks.vector_text(outcome.values)
        constraints_text = checks.vector_text(outcome.constraints)

        def body(connection: sa.Connection) -> TrialRecord:
            row = q.lock_trial(connection, study_id, number)
            stored = TrialState(row.state)
            steps = q.steps_of(connection, study_id, [number]).get(number, {})
            if not checks.check_owner(number, stored, checks.decode(row.system_attrs), owner):
                again = (stored, row.value, row._mapping["values"], row.constraints)
                if again != (outcome.state, outcome.value, values_text, constraints_text):
                    raise checks.state_error(number, stored, action="finishing a trial", allowed="running")
                return q.record(row, steps)
            if outcome.values is not None:
                checks.check_lengths(number, outcome.values, q.study_directions(connection, study_id))
            changes = {
                "state": outcome.state.value,
                "value": outcome.value,
                "values": values_text,
                "constraints": constraints_text,
                "feasible": outcome.feasible,
                "finished": time.time(),
                "user_attrs": q.merged(row.user_attrs, user_attrs, what="user_attrs"),
                **q.merged_system(row.system_attrs, system_attrs),
            }
            q.update_trial(connection, row.trial_id, **changes)
            return q.record(q.updated_row(row, changes), steps)

        return self._write(body)

    def report_intermediate(self, study_id: int, number: int, step: int, value: float | Sequence[float]) -> None:
        first, every = checks.intermediate_value(step, value)
        stored = None if math.isnan(first) else first  # NaN is stored as NULL

        def body(connection: sa.Connection) -> None:
            trial = q.running_trial(connection, study_id, number, action="reporting an intermediate value")
            q.update_trial(connection, trial.trial_id)
            if every is not None:
                checks.check_intermediate_length(number, step, every, q.study_directions(connection, study_id))
            c = intermediate.c
            connection.execute(
                sa.delete(intermediate).where(c.study_id == study_id, c.number == number, c.step == step)
            )
            row = {"study_id": study_id, "number": number, "step": step, "value": stored}
            connection.execute(sa.insert(intermediate).values(**row, values=checks.vector_text(every)))

        self._write(body)

    def add_trial_cost(self, study_id: int, number: int, cost: float) -> float:
        cost = checks.cost(cost)

        def body(connection: sa.Connection) -> float:
            trial = q.running_trial(connection, study_id, number, action="adding to its cost")
            q.update_trial(connection, trial.trial_id, cost=trials.c.cost + cost)
            return q.spent_cost(connection, study_id)

        return self._write(body)

    def refund_trial_cost(
        self, study_id: int, number: int, cost: float, *, system_attrs: Mapping[str, JSON] = _NO_ATTRS
    ) -> float:
        cost = checks.cost(cost)
        checks.encode_attrs(system_attrs, what="system_attrs")

        def body(connection: sa.Connection) -> float:
            trial = q.running_trial(connection, study_id, number, action="taking back its cost")
            left = checks.refunded(number, trial.cost, cost)
            q.update_trial(connection, trial.trial_id, cost=left, **q.merged_system(trial.system_attrs, system_attrs))
            return q.spent_cost(connection, study_id)

        return self._write(body)

    def spent_cost(self, study_id: int) -> float:
        return self._read(lambda connection: q.spent_cost(connection, study_id))

    def set_trial_user_attr(self, study_id: int, number: int, key: str, value: JSON) -> None:
        checks.encode_attrs({key: value}, what="user_attrs")

        def body(connection: sa.Connection) -> None:
            row = q.lock_trial(connection, study_id, number)
            text = q.merged(row.user_attrs, {key: value}, what="user_attrs")
            q.update_trial(connection, row.trial_id, user_attrs=text)

        self._write(body)

    def heartbeat(self, study_id: int, number: int) -> None:
        def body(connection: sa.Connection) -> None:
            q.commit_without_flush(connection)
            where = q.trial_key(study_id, number)
            running = trials.c.state == TrialState.RUNNING.value
            beat = {"heartbeat": time.time(), "version": trials.c.version + 1}
            done = connection.execute(sa.update(trials).where(*where, running).values(**beat))
            if done.rowcount == 0:
                q.lock_trial(connection, study_id, number)

        self._write(body)

    def fail_stale_trials(self, study_id: int, *, grace: float) -> list[int]:
        now = time.time()
        return self._write(lambda connection: q.fail_stale(connection, study_id, grace=grace, now=now))

    def get_trial(self, study_id: int, number: int) -> TrialRecord:
        def body(connection: sa.Connection) -> TrialRecord:
            row = connection.execute(sa.select(trials).where(*q.trial_key(study_id, number))).first()
            if row is None:
                raise checks.trial_not_found(study_id, number)
            return q.record(row, q.steps_of(connection, study_id, [number]).get(number, {}))

        return self._read(body)

    def get_trials(
        self,
        study_id: int,
        *,
        states: Collection[TrialState] | None = None,
        min_number: int = 0,
        known: Mapping[int, int] | None = None,
    ) -> list[TrialRecord]:
        wanted = q.states_of(states)

        def body(connection: sa.Connection) -> list[TrialRecord]:
            q.study_row(connection, study_id)
            where = [trials.c.study_id == study_id, trials.c.number >= min_number]
            if wanted is not None:
                where.append(trials.c.state.in_(wanted))
            if known:
                return q.changed_trials(connection, study_id, where, known)
            rows = connection.execute(sa.select(trials).where(*where).order_by(trials.c.number)).all()
            steps = q.steps_from(connection, study_id, min_number) if rows else {}
            return [q.record(row, steps.get(row.number, {})) for row in rows]

        return self._read(body)

    def count_trials(self, study_id: int, *, states: Collection[TrialState] | None = None) -> int:
        wanted = q.states_of(states)

        def body(connection: sa.Connection) -> int:
            q.study_row(connection, study_id)
            query = sa.select(sa.func.count()).select_from(trials).where(trials.c.study_id == study_id)
            if wanted is not None:
                query = query.where(trials.c.state.in_(wanted))
            return int(connection.execute(query).scalar_one())

        return self._read(body)

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
        values = {"study_id": study_id, "config": text, "credibility": float(credibility), "weight": weight,
                  "spread": float(spread), "author": author, "created": time.time()}
        return self._write(lambda connection: q.add_hint(connection, values))

    def get_hints(self, study_id: int) -> list[HintRecord]:
        return self._read(lambda connection: q.hints_of(connection, study_id))

    def remove_hint(self, study_id: int, hint_id: int) -> None:
        self._write(lambda connection: q.remove_hint(connection, study_id, hint_id))

    def add_note(self, study_id: int, *, text: str, author: str | None = None, trial: int | None = None) -> NoteRecord:
        checks.check_note(text, author, trial)
        values = {"study_id": study_id, "trial": trial, "text": text, "author": author, "created": time.time()}
        return self._write(lambda connection: q.add_note(connection, values))

    def get_notes(self, study_id: int) -> list[NoteRecord]:
        return self._read(lambda connection: q.notes_of(connection, study_id))

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
        """See :meth:`Storage.trial_page`: one ``COUNT`` and one ``ORDER BY ... LIMIT
        ... OFFSET`` reading only the page's rows and their intermediate values."""
        query = PageQuery.checked(offset=offset, limit=limit, order_by=order_by, descending=descending,
                                  states=states, value_min=value_min, value_max=value_max, feasible=feasible)
        return self._read(lambda connection: q.trial_page(connection, study_id, query))

    def trial_summary(self, study_id: int) -> TrialSummary:
        """See :meth:`Storage.trial_summary`: one ``GROUP BY state`` query."""
        return self._read(lambda connection: q.trial_summary(connection, study_id))
