"""What only a SQL storage does: persistence across reopening, the schema
version check, SQLite's journal settings, foreign files refused clearly."""

from __future__ import annotations

import math
import os
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from treefarm.exceptions import StorageError
from treefarm.storage import SQLStorage, TrialState
from treefarm.storage.interrupts import sigint_deferred
from treefarm.storage.sql import BUSY_TIMEOUT_MS, SCHEMA_VERSION


def _url(path: Path) -> str:
    return f"sqlite:///{path}"


def test_reopening_a_file_keeps_everything(sqlite_path: Path) -> None:
    storage = SQLStorage(_url(sqlite_path))
    study = storage.create_study("kept", direction="maximize", seed=11, attrs={"space": "R(0, 1)"})
    storage.create_trial(study.study_id, params={"x": 0.5}, system_attrs={"worker": "h:1"})
    storage.report_intermediate(study.study_id, 0, 3, math.nan)
    storage.report_intermediate(study.study_id, 0, 4, 0.5)
    storage.finish_trial(study.study_id, 0, state=TrialState.COMPLETE, value=2.5, user_attrs={"a": [1]})
    storage.create_trial(study.study_id, params={"x": 0.1}, state=TrialState.WAITING)
    before = storage.get_trials(study.study_id)
    storage.close()

    reopened = SQLStorage(_url(sqlite_path))
    assert reopened.get_study("kept") == study
    after = reopened.get_trials(study.study_id)
    assert [(t.number, t.state, t.params, t.value, t.user_attrs, t.system_attrs) for t in after] == [
        (t.number, t.state, t.params, t.value, t.user_attrs, t.system_attrs) for t in before
    ]
    assert math.isnan(after[0].intermediate[3]) and after[0].intermediate[4] == 0.5
    assert reopened.create_trial(study.study_id, params={}).number == 2
    reopened.close()


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(sqlite_path: Path) -> None:
    storage = SQLStorage(_url(sqlite_path))
    connection = storage.engine.raw_connection()
    try:
        assert connection.execute("PRAGMA busy_timeout").fetchone()[0] == BUSY_TIMEOUT_MS == 30_000
        assert connection.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    finally:
        connection.close()
        storage.close()
    with sqlite3.connect(sqlite_path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


@pytest.mark.parametrize("found", [str(SCHEMA_VERSION + 1), "banana"])
def test_a_database_without_a_revision_must_be_schema_version_1(sqlite_path: Path, found: str) -> None:
    # without Alembic's version table, only a 0.1.0 database (schema_version 1) is upgraded
    SQLStorage(_url(sqlite_path)).close()
    with sqlite3.connect(sqlite_path) as connection:
        connection.execute("DROP TABLE treefarm_alembic_version")
        connection.execute("UPDATE treefarm_meta SET value = ? WHERE key = 'schema_version'", (found,))
    with pytest.raises(StorageError, match=f"schema_version='{found}'"):
        SQLStorage(_url(sqlite_path))


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a database, just some notes\n" * 100)
    with pytest.raises(StorageError, match=r"notes\.txt"):
        SQLStorage(_url(path))


def test_tables_of_other_tools_are_left_alone(sqlite_path: Path) -> None:
    with sqlite3.connect(sqlite_path) as connection:
        connection.execute("CREATE TABLE trials (trial_id INTEGER PRIMARY KEY, other TEXT)")
    storage = SQLStorage(_url(sqlite_path))
    study = storage.create_study("s", direction="minimize", seed=None, attrs={})
    assert storage.create_trial(study.study_id, params={}).number == 0
    storage.close()


@pytest.mark.postgres
def test_postgres_reopen_and_version_check(postgres_factory: object, postgres_url: str) -> None:
    storage = SQLStorage(postgres_url)
    study = storage.create_study("pg", direction="minimize", seed=1, attrs={})
    storage.create_trial(study.study_id, params={"x": 1})
    storage.close()
    reopened = SQLStorage(postgres_url.replace("postgresql+psycopg://", "postgresql://"))
    assert reopened.get_trial(study.study_id, 0).params == {"x": 1}
    reopened.close()


def test_a_ctrl_c_inside_a_transaction_is_raised_after_it_and_leaves_no_lock(sqlite_path: Path) -> None:
    storage = SQLStorage(f"sqlite:///{sqlite_path}")
    study_id = storage.create_study("s", direction="minimize", seed=0, attrs={}).study_id
    storage.create_trial(study_id, params={"x": 1.0})

    finished: list[bool] = []

    def interrupted_write(connection: object) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # arrives while the write lock is held
        time.sleep(0.05)
        finished.append(True)

    with pytest.raises(KeyboardInterrupt):
        storage._write(interrupted_write)  # type: ignore[arg-type]
    assert finished == [True]  # the transaction ran to its end; the interrupt came after
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    other = sqlite3.connect(sqlite_path, timeout=0.5)  # the write lock is free at once
    other.execute("BEGIN IMMEDIATE")
    other.rollback()
    other.close()
    storage.finish_trial(study_id, 0, state=TrialState.COMPLETE, value=1.0)
    storage.close()


def test_sigint_deferral_leaves_a_callers_own_handler_alone() -> None:
    seen: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: seen.append(signum))
    try:
        with sigint_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
        assert seen == [signal.SIGINT]  # a caller's own handler runs as usual
    finally:
        signal.signal(signal.SIGINT, previous)
