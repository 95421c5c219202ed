"""A SQLite file deleted or replaced under a running study: the next write says so
and stops the run, instead of writing on into a file nobody can open again."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import treefarm as tf
from treefarm.exceptions import StorageError, StorageReplacedError
from treefarm.storage import SQLStorage


def _study(path: Path) -> tf.Study:
    """A study on ``path`` whose storage keeps no journal (the default one is a file in
    the working directory)."""
    storage = SQLStorage(f"sqlite:///{path}", journal=None)
    return tf.Study.create(space={"x": tf.Real(0, 1)}, algo="random", storage=storage, seed=0)


def test_a_deleted_file_stops_the_run_at_the_next_write(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    study = _study(path)
    done = []

    def objective(p: dict) -> float:
        done.append(p)
        if len(done) == 3:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        return float(p["x"])

    with pytest.raises(StorageError, match=r"s\.db was deleted or replaced"):
        study.optimize(objective, 10)
    assert len(done) == 3
    assert not path.exists()  # nothing recreated an empty file in its place


def test_a_replaced_file_is_not_written_through_the_old_handle(tmp_path: Path) -> None:
    """``mv other.db s.db`` while a worker runs: the worker's next write is refused
    (it would have gone to the old, now unreachable, file), and the new file keeps
    what it had."""
    path, other = tmp_path / "s.db", tmp_path / "other.db"
    study = _study(path)
    study.optimize(lambda p: float(p["x"]), 2)
    replacement = _study(other)
    replacement.optimize(lambda p: float(p["x"]), 5)
    replacement.storage.close()  # other.db alone holds its five trials
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    os.replace(other, path)
    with pytest.raises(StorageError, match="deleted or replaced"):
        study.optimize(lambda p: float(p["x"]), 4)
    reopened = SQLStorage(f"sqlite:///{path}", read_only=True)
    (record,) = reopened.list_studies()
    assert len(reopened.get_trials(record.study_id)) == 5


def test_the_result_the_deleted_file_refused_is_kept_in_the_journal(tmp_path: Path) -> None:
    """Nothing evaluated is lost: the finish the replaced file refused goes to the
    local journal (with its value), as a finish an unreachable storage refused does."""
    path, journal = tmp_path / "s.db", tmp_path / "journal.jsonl"
    storage = SQLStorage(f"sqlite:///{path}", journal=journal)
    study = tf.Study.create(space={"x": tf.Real(0, 1)}, algo="random", storage=storage, seed=0)
    trial = study.ask()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with pytest.raises(StorageReplacedError, match="kept in the journal") as refused:
        study.tell(trial, 0.25)
    assert refused.value.journal == str(journal)
    (entry,) = [json.loads(line) for line in journal.read_text().splitlines()]
    assert (entry["number"], entry["value"], entry["state"]) == (trial.number, 0.25, "complete")

