"""Opening a storage says what is wrong: a SQLite path's missing, misplaced or read-only
folder, a database server that never answers (within seconds); read-only commands
leave the file as they found it; ``run`` and ``show`` take ``--retry-deadline``."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import treefarm as tf
from treefarm.cli.main import main
from treefarm.storage import url as storage_url

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart.py"
SPACE = {"x": tf.Real(0.0, 1.0)}


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "runs.db"
    with pytest.raises(
        tf.StorageError, match=r"the folder of a SQLite file must exist, .*nowhere' is missing"
    ):
        tf.Study.create(space=SPACE, storage=str(path))
    assert not path.parent.exists()


def test_a_directory_in_the_files_place_is_named(tmp_path: Path) -> None:
    with pytest.raises(
        tf.StorageError, match=r"a SQLite storage must be a file, but got path=.*, a directory"
    ):
        tf.open_storage(tmp_path)
    with pytest.raises(tf.StorageError, match="a directory"):
        tf.open_storage(f"sqlite:///{tmp_path}", read_only=True)


def test_a_read_only_folder_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.access
    monkeypatch.setattr(
        storage_url.os, "access", lambda p, mode: False if Path(p) == tmp_path else real(p, mode)
    )
    with pytest.raises(
        tf.StorageError, match=r"must be writable \(SQLite keeps its -wal and -shm .* read-only folder"
    ):
        tf.open_storage(str(tmp_path / "runs.db"))


def test_a_read_only_file_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "runs.db"
    tf.open_storage(path).close()
    real = os.access
    monkeypatch.setattr(storage_url.os, "access", lambda p, mode: False if Path(p) == path else real(p, mode))
    with pytest.raises(tf.StorageError, match="a SQLite file opened for writing must be writable"):
        tf.open_storage(path)
    tf.open_storage(path, read_only=True).close()  # looking needs no write access


@pytest.mark.parametrize("url", ["postgresql://u@nohost.invalid/db", "postgresql://u@127.0.0.1:1/db"])
def test_a_wrong_database_server_fails_within_seconds(url: str) -> None:
    pytest.importorskip("psycopg")
    started = time.monotonic()
    with pytest.raises(tf.StorageUnavailableError, match="must answer when a storage is first opened"):
        tf.open_storage(url)
    assert time.monotonic() - started < 10


def test_show_and_run_take_retry_deadline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("psycopg")
    started = time.monotonic()
    assert main(["show", "postgresql://u@127.0.0.1:1/db", "--study", "s", "--retry-deadline", "0.5"]) == 1
    assert "within 0.5 s" in capsys.readouterr().err and time.monotonic() - started < 10
    db = str(tmp_path / "a.db")
    assert main(["run", str(QUICKSTART), "--n-trials", "2", "--storage", db, "--retry-deadline", "3"]) == 0
    with pytest.raises(SystemExit):
        main(["show", db, "--study", "quickstart", "--retry-deadline", "-1"])


def test_read_only_commands_leave_no_wal_or_shm(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "a.db"
    assert main(["run", str(QUICKSTART), "--n-trials", "2", "--storage", str(db)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.db"]
    assert main(["show", str(db), "--study", "quickstart"]) == 0
    assert main(["studies", str(db)]) == 0
    assert main(["export", str(db), "--study", "quickstart", "--format", "json"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.db"]


def test_a_read_only_command_leaves_a_file_in_use_alone(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    study = tf.Study.create("s", space=SPACE, storage=db)
    study.optimize(lambda p: p["x"], 2, progress=False)  # the storage stays open, with its -wal
    assert main(["show", str(db), "--study", "s"]) == 0
    assert (tmp_path / "a.db-wal").exists()
    assert len(study.trials) == 2
    study.storage.close()
