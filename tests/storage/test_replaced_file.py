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


def test_after_a_replaced_file_every_result_still_goes_to_the_journal(tmp_path: Path) -> None:
    """The journal is not replayed into a replaced file (that raised before the next
    result could be kept, and made reads fail), so a second finished trial is kept too
    and the trials can still be read; a new storage on the new file opens as usual."""
    path, journal = tmp_path / "s.db", tmp_path / "journal.jsonl"
    storage = SQLStorage(f"sqlite:///{path}", journal=journal)
    study = tf.Study.create(space={"x": tf.Real(0, 1)}, algo="random", storage=storage, seed=0)
    first, second = study.ask(), study.ask()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    for trial, value in ((first, 0.25), (second, 0.5)):
        with pytest.raises(StorageReplacedError):
            study.tell(trial, value)
    assert len(study.trials) == 2  # read from the open, unlinked file
    kept = [json.loads(line) for line in journal.read_text().splitlines()]
    assert [(e["number"], e["value"]) for e in kept] == [(first.number, 0.25), (second.number, 0.5)]
    fresh = SQLStorage(f"sqlite:///{path}", journal=journal)  # the journal's entries: refused, kept aside
    assert fresh.list_studies() == []


def test_a_storage_opening_with_a_journal_to_replay_does_not_crash(tmp_path: Path) -> None:
    """The journal is replayed in the opening's first transaction, before the file's
    identity is known: that write must not need it (an AttributeError did)."""
    from treefarm.storage import journal as journal_file

    path, journal = tmp_path / "s.db", tmp_path / "journal.jsonl"
    storage = SQLStorage(f"sqlite:///{path}", journal=None)
    study_id = storage.create_study("s", direction="minimize", seed=0, attrs={}, load_if_exists=False).study_id
    record = storage.claim_trial(study_id, system_attrs={"worker": {"token": "w"}})
    assert record is not None
    storage.set_trial_params(study_id, record.number, {"x": 0.5}, owner="w")
    storage.close()
    item = journal_file.entry(
        url=f"sqlite:///{path}", study_id=study_id, number=record.number, state="complete", value=0.1,
        user_attrs={}, system_attrs={}, owner="w",
    )
    journal_file.append(journal, item)
    reopened = SQLStorage(f"sqlite:///{path}", journal=journal)
    assert reopened.get_trial(study_id, record.number).value == 0.1

