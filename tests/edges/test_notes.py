"""Notes are rows: two dashboards (two processes on one file) adding notes at the same
instant lose none, and the notes an older database kept in the study attribute move to rows."""

from __future__ import annotations

import json
import multiprocessing
import shutil
import sqlite3
from pathlib import Path

import treefarm as tf
from treefarm.dashboard.readonly import open_for_writes
from treefarm.dashboard.writes import Writer
from treefarm.storage import open_storage

FIXTURE = Path(__file__).parents[1] / "storage" / "fixtures" / "release-2026-12-06.db"


def _add_notes(path: str, author: str, count: int, start: multiprocessing.synchronize.Event) -> None:  # type: ignore[name-defined]
    storage = open_for_writes(path)
    writer = Writer(storage)
    record = storage.get_study("s")
    start.wait()
    for i in range(count):
        writer.note(record, {"text": f"{author} {i}", "author": author})
    writer.close()
    storage.close()


def test_two_dashboards_adding_notes_at_once_lose_none(tmp_path: Path) -> None:
    path = str(tmp_path / "n.db")
    tf.Study.create("s", space={"x": tf.Real(0, 1)}, storage=path).storage.close()
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    workers = [context.Process(target=_add_notes, args=(path, who, 30, start)) for who in ("ann", "bob")]
    for worker in workers:
        worker.start()
    start.set()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    storage = open_storage(path, read_only=True)
    notes = storage.get_notes(storage.get_study("s").study_id)
    storage.close()
    assert sorted(n.text for n in notes) == sorted(f"{who} {i}" for who in ("ann", "bob") for i in range(30))


def test_the_notes_of_an_older_database_move_to_rows(tmp_path: Path) -> None:
    copy = tmp_path / "old.db"
    shutil.copyfile(FIXTURE, copy)
    old = [
        {"author": "ann", "time": 100.0, "text": "first", "trial": None},
        {"author": "bob", "time": 200.0, "text": "on trial 0", "trial": 0},
        "a user's own entry",
    ]
    with sqlite3.connect(copy) as connection:
        study_id, attrs = connection.execute("SELECT study_id, attrs FROM treefarm_studies LIMIT 1").fetchone()
        connection.execute(
            "UPDATE treefarm_studies SET attrs = ? WHERE study_id = ?",
            (json.dumps({**json.loads(attrs), "notes": old}), study_id),
        )
    storage = open_storage(str(copy))
    try:
        notes = storage.get_notes(study_id)
        assert [(n.author, n.created, n.text, n.trial) for n in notes] == [
            ("ann", 100.0, "first", None),
            ("bob", 200.0, "on trial 0", 0),
        ]
        name = next(s.name for s in storage.list_studies() if s.study_id == study_id)
        assert storage.get_study(name).attrs["notes"] == ["a user's own entry"]
    finally:
        storage.close()
