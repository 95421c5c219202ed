"""Results kept in a journal reach the storage they were meant for and no other; one bad
entry never stops the others; a file that is no journal is refused untouched; a full disk
keeps the result being recorded in the journal and the run says so."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy.dialects.sqlite.base import SQLiteDialect

import treefarm as tf
from treefarm.cli.main import main


def _running(url: str, token: str = "w") -> tuple[int, int]:
    storage = tf.open_storage(url)
    study_id = storage.create_study("s", direction="minimize", seed=0, attrs={}, load_if_exists=True).study_id
    number = storage.claim_trial(study_id, system_attrs={"worker": {"token": token}}).number  # type: ignore[union-attr]
    storage.close()
    return study_id, number


def _entry(url: str, study_id: int, number: int, value: object = 2.0) -> dict[str, object]:
    return {
        "url": url,
        "study_id": study_id,
        "number": number,
        "state": "complete",
        "value": value,
        "user_attrs": {},
        "system_attrs": {},
        "owner": "w",
    }


def _state(url: str, number: int) -> str:
    storage = tf.open_storage(url, read_only=True)
    try:
        return storage.get_trial(storage.get_study("s").study_id, number).state.value
    finally:
        storage.close()


def test_recover_writes_only_the_entries_of_its_storage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
    (ida, na), (idb, nb) = _running(a), _running(b)
    journal = tmp_path / "j.jsonl"
    journal.write_text(json.dumps(_entry(a, ida, na)) + "\n" + json.dumps(_entry(b, idb, nb)) + "\n")
    assert main(["recover", str(journal), a]) == 1
    out = capsys.readouterr().out
    assert f"left 1 for another storage: {b}" in out and "1 recorded, 0 refused, 1 left" in out
    assert _state(a, na) == "complete" and _state(b, nb) == "running"
    assert [json.loads(line)["url"] for line in journal.read_text().splitlines()] == [b]
    assert main(["recover", str(journal), str(tmp_path / "b.db")]) == 0
    assert _state(b, nb) == "complete" and journal.read_text() == ""


def test_one_bad_entry_does_not_stop_the_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    study_id, first = _running(url)
    _, second = _running(url)
    bad = {**_entry(url, study_id, first), "user_attrs": ["not", "a", "mapping"], "number": "x"}
    journal = tmp_path / "j.jsonl"
    lines = [bad, _entry(url, study_id, first), {**_entry(url, study_id, second), "state": 7}]
    journal.write_text("".join(json.dumps(item) + "\n" for item in lines) + "\n{torn")
    assert main(["recover", str(journal), url]) == 1
    out = capsys.readouterr().out
    assert "1 recorded, 3 refused" in out and "Traceback" not in out
    assert _state(url, first) == "complete"


@pytest.mark.parametrize("kind", ["database", "binary"])
def test_a_file_that_is_no_journal_is_refused_untouched(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    _running(url)
    journal = tmp_path / "a.db" if kind == "database" else tmp_path / "j.bin"
    if kind == "binary":
        journal.write_bytes(bytes(range(256)) * 4)
    before = journal.read_bytes()
    assert main(["recover", str(journal), url]) == 1
    err = capsys.readouterr().err
    assert "a journal must be a text file of JSON lines" in err and "Traceback" not in err
    assert ("a SQLite database" if kind == "database" else "not JSON lines") in err
    assert journal.read_bytes() == before


def test_a_full_disk_keeps_the_result_in_the_journal_and_the_run_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    journal = tmp_path / "journal.jsonl"
    storage = tf.open_storage(str(tmp_path / "s.db"), journal=journal)
    study = tf.Study.create("s", space={"x": tf.Real(0, 1)}, storage=storage, algo="random", seed=0)
    study.optimize(lambda p: p["x"], 2)
    execute = SQLiteDialect.do_execute

    def full_on_finish(self: SQLiteDialect, cursor: object, statement: str, parameters: object, context: object) -> None:
        if statement.startswith("UPDATE treefarm_trials") and "state" in statement:
            raise sqlite3.OperationalError("database or disk is full")
        execute(self, cursor, statement, parameters, context)

    monkeypatch.setattr(SQLiteDialect, "do_execute", full_on_finish)
    with caplog.at_level(logging.WARNING, logger="treefarm"):
        study.optimize(lambda p: 10 * p["x"], 3)
    assert "the result of trial 2 is kept in the journal" in caplog.text
    kept = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [(item["number"], item["state"]) for item in kept] == [(2, "complete")]
    monkeypatch.setattr(SQLiteDialect, "do_execute", execute)
    assert len(study.trials) == 3  # the first call that succeeds writes the journal's results after it
    values = {t.number: (t.state.value, t.value) for t in study.trials}
    assert values[2] == ("complete", kept[0]["value"]) and journal.read_text() == ""
