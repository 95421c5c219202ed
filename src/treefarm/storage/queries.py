"""The SQL storage's queries: rows to records, locks, numbering, claims, intermediate
values and pages, each a function of an open connection inside the caller's
transaction (:class:`~treefarm.storage.sql.SQLStorage` opens it and retries it).

Rows are read by position in the column order of :data:`~.schema.trials`
(attribute access on rows dominates a long history read).
"""

from __future__ import annotations

import json
import math
import secrets
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from ..exceptions import format_values
from . import checks
from .pages import PageQuery, TrialSummary
from .records import JSON, REQUEUED, HintRecord, NoteRecord, StudyRecord, TrialRecord, TrialState
from .schema import hints_table, intermediate, notes_table, studies, trials

REQUEST = "_request"
"""The ``system_attrs`` key where treefarm 0.1.0 kept a call's request id (hidden from records)."""

Steps = Mapping[int, "tuple[float, tuple[float, ...] | None]"]
"""A trial's intermediate reports: step -> (first value, every value when a vector was reported)."""
_NO_STEPS: Steps = {}
_CHUNK = 500
"""Trial numbers per ``IN (...)`` list: far below every backend's bound on bound parameters."""


def record(row: Sequence[Any], steps: Steps) -> TrialRecord:
    """The record of a ``trials`` row, given as a tuple in the table's column order."""
    (_, study_id, number, state, params, value, user_attrs, system_attrs, started, finished, beat,
     _request, _requeued, values, constraints, _feasible, version, cost) = row  # fmt: skip
    return TrialRecord(
        study_id=study_id,
        number=number,
        state=TrialState(state),
        params=checks.decode(params),
        value=value,
        intermediate={step: first for step, (first, _) in steps.items()},
        user_attrs=checks.decode(user_attrs),
        system_attrs=_public(checks.decode(system_attrs)),
        started=started,
        finished=finished,
        heartbeat=beat,
        values=checks.vector(values),
        constraints=checks.vector(constraints),
        intermediate_vectors={step: every for step, (_, every) in steps.items() if every is not None},
        version=version or 0,
        cost=float(cost or 0.0),
    )


def _public(system_attrs: dict[str, JSON]) -> dict[str, JSON]:
    """System attributes as callers see them: without a request id 0.1.0 kept there."""
    system_attrs.pop(REQUEST, None)
    return system_attrs


def as_row(values: Mapping[str, Any]) -> tuple[Any, ...]:
    """Values just written, as a tuple in the column order of ``trials``."""
    return tuple(values.get(column.name) for column in trials.columns)


def updated_row(row: Any, changes: Mapping[str, Any]) -> tuple[Any, ...]:
    """A locked row as :func:`update_trial` leaves it, in the column order of ``trials``."""
    return as_row({**row._asdict(), **changes, "version": row.version + 1})


def study_record(row: Any) -> StudyRecord:
    directions = directions_of(row.direction, row.directions)
    names = tuple(json.loads(row.names)) if row.names else None
    return StudyRecord(
        row.study_id, row.name, row.direction, row.seed, checks.decode(row.attrs), row.created, directions, names
    )


def states_of(states: Collection[TrialState] | None) -> list[str] | None:
    return None if states is None else [TrialState(s).value for s in states]


def merged(text: str, attrs: Mapping[str, JSON], *, what: str) -> str:
    return checks.encode_value({**checks.decode(text), **attrs}, what=what) if attrs else text


def merged_system(text: str, attrs: Mapping[str, JSON]) -> dict[str, Any]:
    """The column changes that merge ``attrs`` into stored system attributes: the text,
    and the ``requeued`` flag when they mark a re-queued trial."""
    changes: dict[str, Any] = {"system_attrs": merged(text, attrs, what="system_attrs")}
    if REQUEUED in attrs:
        changes["requeued"] = True
    return changes

def claim_waiting(
    connection: sa.Connection,
    study_id: int,
    system_attrs: Mapping[str, JSON],
    *,
    request: str | None = None,
    requeued_only: bool = False,
    cost: float = 0.0,
) -> TrialRecord | None:
    """Move the lowest-numbered WAITING trial (``requeued_only``: re-queued by a
    recovery, the ``requeued`` column) to RUNNING and count it claimed (the study row
    is locked by the caller); ``request`` is the claim's id, for a retry to find it."""
    query = sa.select(trials).where(trials.c.study_id == study_id, trials.c.state == TrialState.WAITING.value)
    if requeued_only:
        query = query.where(trials.c.requeued == sa.true())
    query = query.order_by(trials.c.number).limit(1)
    row = connection.execute(query).first()
    if row is None:
        return None
    now = time.time()
    changes = {
        "state": TrialState.RUNNING.value,
        "started": now,
        "heartbeat": now,
        "cost": row.cost + cost,
        **merged_system(row.system_attrs, system_attrs),
    }
    if request is not None:
        changes["request"] = request
    update_trial(connection, row.trial_id, **changes)
    count_claimed(connection, study_id)
    return record(updated_row(row, changes), steps_of(connection, study_id, [row.number]).get(row.number, _NO_STEPS))


def spent_cost(connection: sa.Connection, study_id: int) -> float:
    """The cost the study's trials have spent or reserved (their ``cost`` column summed)."""
    total = connection.execute(sa.select(sa.func.sum(trials.c.cost)).where(trials.c.study_id == study_id)).scalar()
    return float(total or 0.0)


@dataclass(frozen=True)
class NewTrial:
    """A trial about to be written: its state (RUNNING or WAITING), its columns as stored
    text, the request id a retry looks for, and its cost so far."""

    state: TrialState
    request: str
    requeued: bool
    params: str = "{}"
    user_attrs: str = "{}"
    system_attrs: str = "{}"
    cost: float = 0.0


def insert_trial(connection: sa.Connection, study_id: int, number: int, new: NewTrial) -> TrialRecord:
    """Write ``new`` as trial ``number`` (the study locked by the caller); a running one starts
    now, its heartbeat too, and counts as claimed (:func:`count_claimed`)."""
    now = time.time() if new.state is TrialState.RUNNING else None
    row = {
        "study_id": study_id,
        "number": number,
        "state": new.state.value,
        "params": new.params,
        "value": None,
        "user_attrs": new.user_attrs,
        "system_attrs": new.system_attrs,
        "started": now,
        "finished": None,
        "heartbeat": now,
        "request": new.request,
        "requeued": new.requeued,
        "cost": new.cost,
    }
    connection.execute(sa.insert(trials).values(**row))
    if new.state is TrialState.RUNNING:
        count_claimed(connection, study_id)
    return record(as_row(row), {})


def count_claimed(connection: sa.Connection, study_id: int) -> None:
    """One more claimed trial in the study's ``n_claimed`` (its row is locked by the caller)."""
    connection.execute(
        sa.update(studies).where(studies.c.study_id == study_id).values(n_claimed=studies.c.n_claimed + 1)
    )


def hint_record(row: Mapping[str, Any]) -> HintRecord:
    return HintRecord(
        row["hint_id"],
        row["study_id"],
        checks.decode(row["config"]),
        row["credibility"],
        row["weight"],
        row["spread"],
        row["author"],
        row["created"],
    )


def request_id() -> str:
    """A random id for one claim or creation call, kept in the trial's ``system_attrs``."""
    return secrets.token_hex(8)


def by_request(connection: sa.Connection, study_id: int, request: str) -> TrialRecord | None:
    """The trial an earlier attempt of the call ``request`` committed, if any (a retry after
    a lost acknowledgement must return it rather than make a second one)."""
    query = sa.select(trials).where(trials.c.study_id == study_id, trials.c.request == request)
    row = connection.execute(query.order_by(trials.c.number)).first()
    if row is None:
        return None
    return record(row, steps_of(connection, study_id, [row.number]).get(row.number, _NO_STEPS))


def update_trial(connection: sa.Connection, trial_id: int, **changes: Any) -> None:
    """Write ``changes`` to the trial's row and count the write in its ``version``
    (with no changes, only count one: a report written beside the row)."""
    bumped = trials.c.version + 1
    connection.execute(sa.update(trials).where(trials.c.trial_id == trial_id).values(**changes, version=bumped))


def trial_key(study_id: int, number: int) -> tuple[sa.ColumnElement[bool], ...]:
    return trials.c.study_id == study_id, trials.c.number == number


def study_row(connection: sa.Connection, study_id: int, *, lock: bool = False) -> Any:
    query = sa.select(studies).where(studies.c.study_id == study_id)
    row = connection.execute(query.with_for_update() if lock else query).first()
    if row is None:
        raise checks.study_not_found(study_id=study_id)
    return row


def lock_study(connection: sa.Connection, study_id: int) -> Any:
    """The study row, locked until the transaction ends (PostgreSQL; SQLite's writer lock covers it)."""
    return study_row(connection, study_id, lock=True)


def numbering(
    connection: sa.Connection, study_id: int, request: str, *, retried: bool
) -> tuple[TrialRecord | None, int | None, int]:
    """Lock the study for numbering a new trial; return the trial an earlier attempt of
    this ``request`` already wrote (a retry after a lost acknowledgement), if any, the
    study's last trial number (None before the first) and its claimed trials
    (``n_claimed``, kept by every claim and creation: one row read, whatever the length
    of the history)."""
    row = lock_study(connection, study_id)
    earlier = by_request(connection, study_id, request) if retried else None
    last = connection.execute(sa.select(sa.func.max(trials.c.number)).where(trials.c.study_id == study_id)).scalar()
    return earlier, last, int(row.n_claimed)


def commit_without_flush(connection: sa.Connection) -> None:
    """On PostgreSQL, let this transaction's commit return before its WAL reaches the
    disk (``SET LOCAL synchronous_commit = off``, this transaction only).

    Used where losing the commit in a server crash loses nothing a worker relies on:
    a new claim (the next write of its worker, the params, is a normal commit, whose
    flush covers every earlier WAL record; if the server crashes first, the params are
    refused for a trial that is gone or held by another worker, and the worker claims
    again, see :meth:`SQLStorage.set_trial_params`) and a heartbeat (the next beat
    repeats it). It saves one disk flush per trial. SQLite's durability is the
    ``synchronous`` setting alone."""
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql("SET LOCAL synchronous_commit = off")


def lock_trial(connection: sa.Connection, study_id: int, number: int) -> Any:
    row = connection.execute(sa.select(trials).where(*trial_key(study_id, number)).with_for_update()).first()
    if row is None:
        study_row(connection, study_id)
        raise checks.trial_not_found(study_id, number)
    return row


def running_trial(connection: sa.Connection, study_id: int, number: int, *, action: str) -> Any:
    row = lock_trial(connection, study_id, number)
    if row.state != TrialState.RUNNING.value:
        raise checks.state_error(number, TrialState(row.state), action=action, allowed="running")
    return row


def _step(value: float | None, values: str | None) -> tuple[float, tuple[float, ...] | None]:
    """A stored intermediate report: its first value (NULL is NaN) and its vector, if one."""
    return (math.nan if value is None else float(value)), checks.vector(values)


def steps_from(connection: sa.Connection, study_id: int, min_number: int) -> Mapping[int, Steps]:
    """The intermediate values of every trial numbered ``min_number`` or more: number -> step -> value."""
    c = intermediate.c
    query = sa.select(c.number, c.step, c.value, c["values"]).where(c.study_id == study_id, c.number >= min_number)
    out: dict[int, dict[int, tuple[float, tuple[float, ...] | None]]] = {}
    for number, step, value, values in connection.execute(query.order_by(c.number, c.step)):
        out.setdefault(number, {})[step] = _step(value, values)
    return out


def page_filter(study_id: int, query: PageQuery) -> list[sa.ColumnElement[bool]]:
    """The WHERE clauses of a page query."""
    where = [trials.c.study_id == study_id]
    if query.states is not None:
        where.append(trials.c.state.in_([s.value for s in query.states]))
    if query.value_min is not None:
        where.append(trials.c.value >= query.value_min)
    if query.value_max is not None:
        where.append(trials.c.value <= query.value_max)
    if query.feasible is True:  # a trial without constraints (NULL) is feasible
        where.append(sa.or_(trials.c.feasible.is_(None), trials.c.feasible == sa.true()))
    elif query.feasible is False:
        where.append(trials.c.feasible == sa.false())
    return where


def page_order(query: PageQuery) -> list[sa.ColumnElement[Any]]:
    """The ORDER BY of a page query: rows without the key last, ties by number. Only the
    trial ids are sorted (a deferred join): the page's full rows are read afterwards, and
    ordering by number alone walks the (study_id, number) index without sorting."""
    number = trials.c.number.desc() if query.descending else trials.c.number.asc()
    if query.order_by == "number":
        return [number]
    if query.order_by == "state":
        return [trials.c.state.desc() if query.descending else trials.c.state.asc(), number]
    column = (
        trials.c.finished - trials.c.started if query.order_by == "duration" else trials.c[query.order_by]
    )
    return [column.is_(None), column.desc() if query.descending else column.asc(), number]


def steps_of(connection: sa.Connection, study_id: int, numbers: Sequence[int]) -> Mapping[int, Steps]:
    """The intermediate values of the trials ``numbers``: number -> step -> value."""
    c = intermediate.c
    query = sa.select(c.number, c.step, c.value, c["values"]).where(c.study_id == study_id, c.number.in_(numbers))
    out: dict[int, dict[int, tuple[float, tuple[float, ...] | None]]] = {}
    for number, step, value, values in connection.execute(query.order_by(c.number, c.step)):
        out.setdefault(number, {})[step] = _step(value, values)
    return out


def changed_trials(
    connection: sa.Connection, study_id: int, where: Sequence[sa.ColumnElement[bool]], known: Mapping[int, int]
) -> list[TrialRecord]:
    """The trials matching ``where`` whose version is not the one ``known`` holds, by
    number: one read of two integers per trial, then the full rows and reports of the
    changed ones only. Each record's version is read with its row, so a write landing
    between the two reads is either in the record or makes the next read fetch it."""
    versions = connection.execute(sa.select(trials.c.number, trials.c.version).where(*where)).all()
    changed = sorted(number for number, version in versions if known.get(number) != version)
    out: list[TrialRecord] = []
    for start in range(0, len(changed), _CHUNK):
        numbers = changed[start : start + _CHUNK]
        query = sa.select(trials).where(trials.c.study_id == study_id, trials.c.number.in_(numbers))
        rows = connection.execute(query.order_by(trials.c.number)).all()
        steps = steps_of(connection, study_id, numbers)
        out.extend(record(row, steps.get(row.number, _NO_STEPS)) for row in rows)
    return out


def trial_page(connection: sa.Connection, study_id: int, query: PageQuery) -> tuple[int, list[TrialRecord]]:
    """One ``COUNT`` and one ``ORDER BY ... LIMIT ... OFFSET`` reading only the page's rows
    and their intermediate values."""
    study_row(connection, study_id)
    where = page_filter(study_id, query)
    total = connection.execute(sa.select(sa.func.count()).select_from(trials).where(*where)).scalar_one()
    ids = (
        connection.execute(
            sa.select(trials.c.trial_id)
            .where(*where)
            .order_by(*page_order(query))
            .limit(query.limit)
            .offset(query.offset)
        )
        .scalars()
        .all()
    )
    found = {row.trial_id: row for row in connection.execute(sa.select(trials).where(trials.c.trial_id.in_(ids)))}
    rows = [found[i] for i in ids]
    steps = steps_of(connection, study_id, [row.number for row in rows]) if rows else {}
    return int(total), [record(row, steps.get(row.number, _NO_STEPS)) for row in rows]


def trial_summary(connection: sa.Connection, study_id: int) -> TrialSummary:
    """Trials per state, the range of complete values and the last finish: one ``GROUP BY state``."""
    study_row(connection, study_id)
    c = trials.c
    query = (
        sa.select(c.state, sa.func.count(), sa.func.min(c.value), sa.func.max(c.value), sa.func.max(c.finished))
        .where(c.study_id == study_id)
        .group_by(c.state)
    )
    rows = connection.execute(query).all()
    complete = [row for row in rows if row[0] == TrialState.COMPLETE.value]
    finished = [row[4] for row in rows if row[4] is not None]
    return TrialSummary(
        {row[0]: int(row[1]) for row in rows},
        complete[0][2] if complete else None,
        complete[0][3] if complete else None,
        max(finished) if finished else None,
    )


def fail_stale(connection: sa.Connection, study_id: int, *, grace: float, now: float) -> list[int]:
    """Fail the study's RUNNING trials whose heartbeat is older than their own
    ``stale_after`` (``grace`` without one), as at ``now``; their numbers."""
    lock_study(connection, study_id)
    query = (
        sa.select(trials)
        .where(trials.c.study_id == study_id, trials.c.state == TrialState.RUNNING.value)
        .order_by(trials.c.number)
        .with_for_update()
    )
    rows = [
        row
        for row in connection.execute(query).all()
        if (row.heartbeat or 0.0) < now - checks.stale_after(checks.decode(row.system_attrs), grace)
    ]
    for row in rows:
        text = merged(row.system_attrs, {"fail_reason": checks.STALE_REASON}, what="system_attrs")
        update_trial(connection, row.trial_id, state=TrialState.FAILED.value, finished=now, system_attrs=text)
    # trials this call failed in an attempt whose reply was lost carry its time
    earlier = sa.select(trials.c.number).where(
        trials.c.study_id == study_id,
        trials.c.state == TrialState.FAILED.value,
        trials.c.finished == now,
    )
    return sorted({row.number for row in rows} | set(connection.execute(earlier).scalars()))


def add_hint(connection: sa.Connection, values: Mapping[str, Any]) -> HintRecord:
    """Insert a hint row (``values`` checked by the caller); its record."""
    study_row(connection, values["study_id"])
    insert = sa.insert(hints_table).values(**values).returning(hints_table.c.hint_id)
    hint_id = int(connection.execute(insert).scalar_one())
    return hint_record({**values, "hint_id": hint_id})


def hints_of(connection: sa.Connection, study_id: int) -> list[HintRecord]:
    """The study's hints, oldest first."""
    study_row(connection, study_id)
    query = sa.select(hints_table).where(hints_table.c.study_id == study_id).order_by(hints_table.c.hint_id)
    return [hint_record(row._asdict()) for row in connection.execute(query)]


def remove_hint(connection: sa.Connection, study_id: int, hint_id: int) -> None:
    """Delete one hint; NotFoundError naming it if the study has no such hint."""
    c = hints_table.c
    done = connection.execute(sa.delete(hints_table).where(c.study_id == study_id, c.hint_id == hint_id))
    if done.rowcount == 0:
        raise checks.NotFoundError(
            f"the hint must exist in the study, but got {format_values(study_id=study_id, hint_id=hint_id)}"
        )


def add_note(connection: sa.Connection, values: Mapping[str, Any]) -> NoteRecord:
    """Insert a note row (``values`` checked by the caller, its trial looked up here); its record."""
    study_row(connection, values["study_id"])
    if values["trial"] is not None and connection.execute(
        sa.select(trials.c.trial_id).where(*trial_key(values["study_id"], values["trial"]))
    ).first() is None:
        raise checks.trial_not_found(values["study_id"], values["trial"])
    note_id = int(connection.execute(sa.insert(notes_table).values(**values).returning(notes_table.c.note_id)).scalar_one())
    return NoteRecord(note_id, values["study_id"], values["trial"], values["text"], values["author"], values["created"])


def notes_of(connection: sa.Connection, study_id: int) -> list[NoteRecord]:
    """The study's notes, oldest first."""
    study_row(connection, study_id)
    c = notes_table.c
    query = sa.select(c.note_id, c.study_id, c.trial, c.text, c.author, c.created).where(c.study_id == study_id)
    return [NoteRecord(*row) for row in connection.execute(query.order_by(c.note_id))]


def study_directions(connection: sa.Connection, study_id: int) -> tuple[str, ...]:
    """The study's directions, one per objective (one primary-key lookup)."""
    query = sa.select(studies.c.direction, studies.c.directions).where(studies.c.study_id == study_id)
    return directions_of(*connection.execute(query).one())


def directions_of(direction: str, directions: str | None) -> tuple[str, ...]:
    """A study row's directions (``[direction]`` for a row without the column filled)."""
    return tuple(json.loads(directions)) if directions else (direction,)
