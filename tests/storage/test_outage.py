"""A storage that goes away: retries ride out a restart, a lost acknowledgement never
records twice, and a result the storage cannot take in time is kept in the journal
and replayed exactly once."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from treefarm.cli.main import main
from treefarm.exceptions import StorageUnavailableError
from treefarm.storage import SQLStorage, TrialState
from treefarm.storage.journal import finish_entry, replay
from treefarm.storage.resilience import Failure, RetryClock

from . import outage_workers
from .postgres import Cluster, required_pg_binaries, restartable_cluster

COMPLETE, RUNNING = TrialState.COMPLETE, TrialState.RUNNING


class LostConnection(sqlite3.OperationalError):
    """A driver error as a dropped PostgreSQL connection reports it (SQLSTATE class 08)."""

    sqlstate = "08006"


@pytest.fixture
def lose_first_ack(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Make a storage's next commit succeed and then report a lost connection, as when
    the server's acknowledgement never arrives."""

    def arm(storage: SQLStorage) -> list[int]:
        dialect = storage.engine.dialect
        original = dialect.do_commit
        lost: list[int] = []

        def commit(dbapi_connection: Any) -> None:
            original(dbapi_connection)
            if not lost:
                lost.append(1)
                raise LostConnection("server closed the connection unexpectedly")

        monkeypatch.setattr(dialect, "do_commit", commit)
        return lost

    return arm


def _storage(tmp_path: Path, **options: Any) -> SQLStorage:
    return SQLStorage(f"sqlite:///{tmp_path / 's.db'}", journal=tmp_path / "journal.jsonl", **options)


def test_a_retried_claim_after_a_lost_acknowledgement_returns_the_same_trial(
    tmp_path: Path, lose_first_ack: Any
) -> None:
    storage = _storage(tmp_path)
    study_id = storage.create_study("s", direction="minimize", seed=0, attrs={}).study_id
    lost = lose_first_ack(storage)
    record = storage.claim_trial(study_id, system_attrs={"worker": {"token": "w"}}, budget=5)
    assert lost == [1]
    assert record is not None and record.number == 0
    assert storage.count_trials(study_id) == 1
    assert dict(record.system_attrs) == {"worker": {"token": "w"}}


def test_a_retried_creation_after_a_lost_acknowledgement_makes_one_trial(
    tmp_path: Path, lose_first_ack: Any
) -> None:
    storage = _storage(tmp_path)
    study_id = storage.create_study("s", direction="minimize", seed=0, attrs={}).study_id
    lose_first_ack(storage)
    record = storage.create_trial(study_id, params={"x": 1.0}, state=TrialState.WAITING)
    assert record.number == 0 and storage.count_trials(study_id) == 1


def test_a_retried_study_creation_after_a_lost_acknowledgement_returns_the_study(
    tmp_path: Path, lose_first_ack: Any
) -> None:
    storage = _storage(tmp_path)
    lose_first_ack(storage)
    record = storage.create_study("s", direction="minimize", seed=0, attrs={})
    assert record.name == "s" and [s.name for s in storage.list_studies()] == ["s"]


def test_a_retried_finish_after_a_lost_acknowledgement_records_once(
    tmp_path: Path, lose_first_ack: Any
) -> None:
    storage = _storage(tmp_path)
    study_id = storage.create_study("s", direction="minimize", seed=0, attrs={}).study_id
    number = storage.claim_trial(study_id, system_attrs={"worker": {"token": "w"}}).number  # type: ignore[union-attr]
    lose_first_ack(storage)
    record = storage.finish_trial(study_id, number, state=COMPLETE, value=2.5, owner="w")
    assert (record.state, record.value) == (COMPLETE, 2.5)
    assert storage.get_trial(study_id, number).value == 2.5


def test_the_retry_clock_gives_up_at_the_deadline_and_bounds_lock_retries() -> None:
    clock = RetryClock(0.3)
    start, waited = time.monotonic(), 0.0
    while (delay := clock.next_delay(Failure.CONNECTION)) is not None:
        assert delay <= 1.5
        time.sleep(delay)
        waited += delay
    assert 0.3 <= time.monotonic() - start < 2.0 and clock.attempts >= 3
    locks = RetryClock(60.0)
    assert sum(1 for _ in iter(lambda: locks.next_delay(Failure.LOCK), None)) == 7
    assert RetryClock(60.0).next_delay(Failure.FATAL) is None


def test_a_finish_past_the_deadline_goes_to_the_journal_and_is_replayed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    storage = _storage(tmp_path)
    study_id = storage.create_study("s", direction="minimize", seed=0, attrs={}).study_id
    number = storage.claim_trial(study_id, system_attrs={"worker": {"token": "w"}}).number  # type: ignore[union-attr]

    def unreachable(*args: Any, **kwargs: Any) -> None:
        raise StorageUnavailableError("the storage must answer within its retry deadline, but got (test)")

    with monkeypatch.context() as patch:
        patch.setattr(storage, "_finish", unreachable)
        with pytest.raises(StorageUnavailableError, match="journal") as caught:
            storage.finish_trial(study_id, number, state=COMPLETE, value=1.5, user_attrs={"a": 1}, owner="w")
    journal = tmp_path / "journal.jsonl"
    assert caught.value.journal == str(journal)
    assert f"trial {number} was kept in the journal" in capsys.readouterr().err
    [line] = journal.read_text().splitlines()
    assert json.loads(line)["value"] == 1.5
    assert storage.count_trials(study_id) == 1  # the storage answers: the journal is replayed after this call
    assert storage.get_trial(study_id, number).state is COMPLETE
    assert journal.read_text() == ""
    # replaying the same entry again (a copy of the journal, another process) records nothing twice
    journal.write_text(line + "\n")
    done = replay(journal, lambda item: finish_entry(storage.finish_trial, item))  # as `treefarm recover`
    assert len(done.recorded) == 1 and not done.refused
    record = storage.get_trial(study_id, number)
    assert (record.state, record.value, record.user_attrs) == (COMPLETE, 1.5, {"a": 1})
    assert storage.count_trials(study_id) == 1


def test_a_journaled_finish_keeps_every_value_and_the_constraints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    storage = _storage(tmp_path)
    study_id = storage.create_study("mo", directions=["minimize", "maximize"], seed=0, attrs={}).study_id
    number = storage.claim_trial(study_id, system_attrs={"worker": {"token": "w"}}).number  # type: ignore[union-attr]

    def unreachable(*args: Any, **kwargs: Any) -> None:
        raise StorageUnavailableError("the storage must answer within its retry deadline, but got (test)")

    with monkeypatch.context() as patch:
        patch.setattr(storage, "_finish", unreachable)
        with pytest.raises(StorageUnavailableError, match="journal"):
            storage.finish_trial(study_id, number, state=COMPLETE, values=[1.5, 2.5], constraints=[-1.0], owner="w")
    [line] = (tmp_path / "journal.jsonl").read_text().splitlines()
    assert {k: json.loads(line)[k] for k in ("value", "values", "constraints")} == {
        "value": 1.5,
        "values": [1.5, 2.5],
        "constraints": [-1.0],
    }
    storage.count_trials(study_id)  # the storage answers: the journal is replayed after this call
    record = storage.get_trial(study_id, number)
    assert (record.state, record.values, record.constraints, record.feasible) == (COMPLETE, (1.5, 2.5), (-1.0,), True)
    capsys.readouterr()


def test_recover_writes_a_journal_and_moves_refused_entries_aside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    storage = _storage(tmp_path)
    study_id = storage.create_study("s", direction="minimize", seed=0, attrs={}).study_id
    mine = storage.claim_trial(study_id, system_attrs={"worker": {"token": "w"}}).number  # type: ignore[union-attr]
    other = storage.claim_trial(study_id, system_attrs={"worker": {"token": "v"}}).number  # type: ignore[union-attr]
    storage.finish_trial(study_id, other, state=TrialState.FAILED, owner="v")
    journal = tmp_path / "kept.jsonl"
    entries = [
        {
            "study_id": study_id,
            "number": n,
            "state": "complete",
            "value": 3.0,
            "user_attrs": {},
            "system_attrs": {},
        }
        | {"owner": owner, "url": f"sqlite:///{tmp_path / 's.db'}"}
        for n, owner in ((mine, "w"), (other, "w"))
    ]
    journal.write_text("".join(json.dumps(e) + "\n" for e in entries))
    assert main(["recover", str(journal), f"sqlite:///{tmp_path / 's.db'}"]) == 1
    out = capsys.readouterr().out
    assert "1 recorded, 1 refused" in out and f"refused trial {other}" in out
    assert storage.get_trial(study_id, mine).value == 3.0
    assert storage.get_trial(study_id, other).state is TrialState.FAILED
    assert journal.read_text() == ""
    assert json.loads((tmp_path / "kept.jsonl.rejected").read_text())["number"] == other
    assert main(["recover", str(journal), f"sqlite:///{tmp_path / 's.db'}"]) == 0


def test_a_torn_or_edited_journal_line_is_set_aside_and_nothing_else_stops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A worker killed while appending leaves half a line; one edited by hand may lack
    a field: both move to JOURNAL.rejected, the good entry is recorded, no traceback."""
    storage = _storage(tmp_path)
    study_id = storage.create_study("s", direction="minimize", seed=0, attrs={}).study_id
    mine = storage.claim_trial(study_id, system_attrs={"worker": {"token": "w"}}).number  # type: ignore[union-attr]
    good = {"study_id": study_id, "number": mine, "state": "complete", "value": 2.0, "user_attrs": {},
            "system_attrs": {}, "owner": "w", "url": f"sqlite:///{tmp_path / 's.db'}"}
    journal = tmp_path / "torn.jsonl"
    journal.write_text(json.dumps(good) + "\n" + json.dumps({"study_id": study_id}) + "\n" + '{"url": "x", "num')
    assert main(["recover", str(journal), f"sqlite:///{tmp_path / 's.db'}"]) == 1
    out = capsys.readouterr().out
    assert "1 recorded, 2 refused" in out and "unreadable line" in out
    assert storage.get_trial(study_id, mine).value == 2.0
    assert len((tmp_path / "torn.jsonl.rejected").read_text().splitlines()) == 2
    assert main(["recover", str(journal), str(tmp_path / "typo.db")]) == 2
    assert not (tmp_path / "typo.db").exists()


# ---------------------------------------------------------------- PostgreSQL
@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with restartable_cluster(required_pg_binaries()) as running:
        yield running


@pytest.mark.postgres
def test_workers_ride_out_a_postgres_restart_without_losing_a_result(
    cluster: Cluster, tmp_path: Path
) -> None:
    budget, name = 60, "restart"
    storage = SQLStorage(cluster.url, journal=None)
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(
            target=outage_workers.optimize,
            args=(cluster.url, name, budget, str(tmp_path / f"journal-{i}.jsonl")),
        )
        for i in range(3)
    ]
    for worker in workers:
        worker.start()
    deadline = time.time() + 120
    while time.time() < deadline:
        studies = storage.list_studies()
        if studies and storage.count_trials(studies[0].study_id, states=[COMPLETE]) >= 6:
            break
        time.sleep(0.1)
    cluster.stop()
    time.sleep(5.0)
    cluster.start()
    for worker in workers:
        worker.join(timeout=180)
    assert [worker.exitcode for worker in workers] == [0, 0, 0]
    study_id = storage.get_study(name).study_id
    trials = storage.get_trials(study_id)
    assert [t.number for t in trials] == list(range(budget))
    assert all(t.state is COMPLETE and t.value == t.params["x"] ** 2 for t in trials)
    assert not any((tmp_path / f"journal-{i}.jsonl").exists() for i in range(3))
    storage.close()


@pytest.mark.postgres
def test_a_finish_during_a_long_postgres_outage_is_journaled_and_replayed_once(
    cluster: Cluster, tmp_path: Path
) -> None:
    journal = tmp_path / "journal.jsonl"
    storage = SQLStorage(cluster.url, retry_deadline=1.0, journal=journal)
    study_id = storage.create_study("outage", direction="minimize", seed=0, attrs={}).study_id
    number = storage.claim_trial(study_id, system_attrs={"worker": {"token": "w"}}).number  # type: ignore[union-attr]
    storage.set_trial_params(study_id, number, {"x": 1.0}, owner="w")  # a worker's claim is durable from here
    cluster.stop()
    try:
        with pytest.raises(StorageUnavailableError) as caught:
            storage.finish_trial(study_id, number, state=COMPLETE, value=4.0, owner="w")
        assert caught.value.journal == str(journal) and len(journal.read_text().splitlines()) == 1
    finally:
        cluster.start()
    assert storage.count_trials(study_id) == 1  # the storage answers: the journal is replayed after this call
    assert storage.count_trials(study_id, states=[COMPLETE]) == 1
    assert journal.read_text() == ""
    assert main(["recover", str(journal), cluster.url]) == 0
    reader = SQLStorage(cluster.url, journal=None)
    assert [(t.number, t.state, t.value) for t in reader.get_trials(study_id)] == [(number, COMPLETE, 4.0)]
    reader.close()
    storage.close()
