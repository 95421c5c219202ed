"""A SQLite file holds every committed trial once treefarm is done with it (its ``-wal``
copied in on close and at exit), so the ``.db`` file alone can be copied or backed up;
a read-only opening reads a ``-wal`` that holds data instead of ignoring it (``immutable``)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
import weakref
from pathlib import Path
from urllib.parse import quote

import pytest

import treefarm as tf
from treefarm.exceptions import StorageError
from treefarm.storage import SQLStorage, TrialState, sqlite_file, transactions
from treefarm.storage.sqlite_file import read_only_flags


def _url(path: Path) -> str:
    return f"sqlite:///{path}"


def _wal(path: Path) -> Path:
    return Path(f"{path}-wal")


def _wal_size(path: Path) -> int:
    return _wal(path).stat().st_size if _wal(path).exists() else 0


def _fill(storage: SQLStorage, n: int, *, name: str = "s") -> None:
    study_id = storage.create_study(name, direction="minimize", seed=0, attrs={}, load_if_exists=True).study_id
    for _ in range(n):
        number = storage.create_trial(study_id, params={"x": 0.5}).number
        storage.finish_trial(study_id, number, state=TrialState.COMPLETE, value=float(number))


def _alone(path: Path, folder: Path, *suffixes: str) -> Path:
    """A copy of the file ``path`` (and of the files beside it with ``suffixes``) in ``folder``."""
    folder.mkdir()
    for suffix in ("", *suffixes):
        shutil.copy(f"{path}{suffix}", folder / f"{path.name}{suffix}")
    return folder / path.name


def _numbers(path: Path, name: str = "s") -> list[int]:
    reader = SQLStorage(_url(path), read_only=True)
    try:
        return [t.number for t in reader.get_trials(reader.get_study(name).study_id)]
    finally:
        reader.close()


def test_closing_leaves_every_trial_in_the_file_alone(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    storage = SQLStorage(_url(db), journal=None)
    _fill(storage, 5)
    assert _wal_size(db) > 0  # the commits are in the -wal until a checkpoint
    storage.close()
    assert _wal_size(db) == 0
    assert _numbers(_alone(db, tmp_path / "copy")) == [0, 1, 2, 3, 4]


def test_the_exit_hook_closes_a_storage_that_wrote_and_was_left_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "s.db"
    monkeypatch.setattr(transactions, "_OPEN", weakref.WeakSet())  # this test's storages only
    storage = SQLStorage(_url(db), journal=None)
    _fill(storage, 3)
    reader = SQLStorage(_url(db), read_only=True)  # wrote nothing: left alone
    transactions._close_at_exit()
    assert _numbers(_alone(db, tmp_path / "copy")) == [0, 1, 2]
    assert reader.count_trials(reader.get_study("s").study_id) == 3
    reader.close()
    storage.close()


def test_a_program_that_never_closes_its_storage_leaves_a_complete_file(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    program = (
        "import treefarm as tf\n"
        f"study = tf.Study.create('p', space={{'x': tf.Real(0.0, 1.0)}}, storage={str(db)!r}, algo='random', seed=0)\n"
        "study.optimize(lambda p: p['x'], 4)\n"
    )
    path = [str(Path(tf.__file__).resolve().parents[1]), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), "OMP_NUM_THREADS": "1"}
    subprocess.run([sys.executable, "-c", program], check=True, env=env, cwd=tmp_path, timeout=60)
    assert _numbers(_alone(db, tmp_path / "copy"), "p") == [0, 1, 2, 3]


def test_minimize_closes_the_storage_it_opened(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    result = tf.minimize(lambda p: p["x"], {"x": tf.Real(0.0, 1.0)}, algo="random", max_evals=4, storage=str(db), seed=0)
    assert _wal_size(db) == 0
    assert _numbers(_alone(db, tmp_path / "copy"), result.study.name) == [0, 1, 2, 3]
    assert len(result.study.trials) == 4  # the study reconnects when used after


def test_closing_copies_the_wal_into_the_file_while_other_connections_stay_open(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    storage = SQLStorage(_url(db), journal=None)
    _fill(storage, 1)
    other = sqlite3.connect(db)  # e.g. a dashboard, idle between two reads
    assert other.execute("SELECT count(*) FROM treefarm_trials").fetchone() == (1,)
    _fill(storage, 2)
    storage.close()  # not the last connection: SQLite would not checkpoint by itself
    assert _numbers(_alone(db, tmp_path / "copy")) == [0, 1, 2]
    other.close()


def test_closing_while_another_connection_reads_neither_raises_nor_waits_long(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    storage = SQLStorage(_url(db), journal=None)
    _fill(storage, 2)
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM treefarm_trials").fetchone() == (2,)  # holds its snapshot
    _fill(storage, 2)
    started = time.monotonic()
    storage.close()  # the TRUNCATE checkpoint cannot complete while the reader holds its snapshot
    assert time.monotonic() - started < 5.0
    reader.execute("COMMIT")
    reader.close()  # the last connection to close copies the rest
    assert _numbers(_alone(db, tmp_path / "copy")) == [0, 1, 2, 3]


def test_read_only_flags_use_immutable_only_when_no_wal_holds_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "s.db"
    db.write_bytes(b"")
    assert read_only_flags(db) == "mode=ro"  # a file we may write: someone else may write it too
    monkeypatch.setattr(sqlite_file, "_writable", lambda path: False)  # as in a read-only folder
    assert read_only_flags(db) == "mode=ro&immutable=1"
    _wal(db).write_bytes(b"")  # emptied by a TRUNCATE checkpoint: the file holds everything
    assert read_only_flags(db) == "mode=ro&immutable=1"
    _wal(db).write_bytes(b"\0" * 32)
    assert read_only_flags(db) == "mode=ro"


def _frozen(tmp_path: Path, *suffixes: str) -> Path:
    """A copy of a database whose commits are all in its -wal (a run that was never closed)."""
    db = tmp_path / "s.db"
    writer = SQLStorage(_url(db), journal=None)
    _fill(writer, 5)
    frozen = _alone(db, tmp_path / "frozen", "-wal", *suffixes)
    writer.close()
    assert _wal_size(frozen) > 0
    immutable = sqlite3.connect(f"file:{quote(str(frozen))}?mode=ro&immutable=1", uri=True)
    assert immutable.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,)  # the bug's view
    immutable.close()
    return frozen


def test_a_read_only_opening_reads_a_wal_that_holds_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from treefarm.cli.main import main

    frozen = _frozen(tmp_path, "-shm")
    monkeypatch.setattr(sqlite_file, "_writable", lambda path: False)  # as in a read-only folder
    reader = SQLStorage(_url(frozen), read_only=True)
    assert str(reader.engine.url.database).endswith("?mode=ro")  # not immutable: the -wal is read
    assert [t.number for t in reader.get_trials(reader.get_study("s").study_id)] == [0, 1, 2, 3, 4]
    reader.close()
    assert main(["show", str(frozen), "--study", "s"]) == 0
    assert "states: complete 5" in capsys.readouterr().out
    assert main(["export", str(frozen), "--study", "s", "--format", "json"]) == 0
    assert capsys.readouterr().out.count('"state": "complete"') == 5


def test_a_wal_that_cannot_be_read_in_a_read_only_folder_is_refused_naming_the_shm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frozen = _frozen(tmp_path)
    monkeypatch.setattr(sqlite_file, "_writable", lambda path: False)

    def cannot_open() -> sqlite3.Connection:  # what SQLite says when it cannot create the -shm
        raise sqlite3.OperationalError("unable to open database file")

    with pytest.raises(StorageError, match=r"s\.db-shm.*read-only folder.*unable to open database file"):
        SQLStorage(_url(frozen), read_only=True, engine_kwargs={"creator": cannot_open})


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs permissions that are enforced")
def test_a_read_only_folder_with_a_wal_holding_data(tmp_path: Path) -> None:
    frozen = _frozen(tmp_path, "-shm")
    folder = frozen.parent
    try:
        for path in folder.iterdir():
            path.chmod(0o444)
        folder.chmod(0o555)
        assert _numbers(frozen) == [0, 1, 2, 3, 4]
        folder.chmod(0o755)
        Path(f"{frozen}-shm").unlink()
        folder.chmod(0o555)
        with pytest.raises(StorageError, match=r"s\.db-shm.*read-only folder"):
            SQLStorage(_url(frozen), read_only=True)
    finally:
        folder.chmod(0o755)
