"""A command never writes where it must not: its storage, a database, a journal, a
folder, a missing folder, an unwritable file, an image of gigabytes: refused before any
work, with the cause, and the storage stays whole."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

import treefarm as tf
from treefarm.cli.main import main


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("outputs") / "s.db")
    study = tf.Study.create("q", space={"x": tf.Real(0, 1)}, storage=path, algo="random", seed=0)
    study.optimize(lambda p: p["x"], 4)
    study.storage.close()
    return path


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    return capsys.readouterr().err


def _intact(path: str) -> None:
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert len(tf.Study.load("q", space={"x": tf.Real(0, 1)}, storage=path).trials) == 4


@pytest.mark.parametrize("target", ["{db}", "sqlite:///{db}", "{db}-wal"])
def test_export_onto_its_own_storage_is_refused(db: str, target: str, capsys: pytest.CaptureFixture[str]) -> None:
    output = target.format(db=db).removeprefix("sqlite:///")
    err = _refused(["export", target.format(db=db), "--study", "q", "--output", output], capsys)
    assert "it is the storage this command reads" in err
    _intact(db)


def test_export_onto_another_database_or_a_journal_is_refused(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    err = _refused(["export", db, "--study", "q", "--output", str(other)], capsys)
    assert "it is a SQLite database" in err
    journal = tmp_path / "treefarm-journal.jsonl"
    journal.write_text('{"number": 1}\n')
    err = _refused(["export", db, "--study", "q", "--output", str(journal)], capsys)
    assert "it is a journal of results" in err and journal.read_text() == '{"number": 1}\n'


@pytest.mark.parametrize(
    ("command", "name", "cause"),
    [
        ("export", ".", "it is a folder"),
        ("export", "nodir/x.csv", "does not exist"),
        ("plot", "nodir/x.png", "does not exist"),
        ("plot", "pic.png", "it is a folder"),
    ],
)
def test_a_missing_folder_or_a_folder_is_named_with_its_cause(
    db: str, tmp_path: Path, command: str, name: str, cause: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pic.png").mkdir()
    option = "--output" if command == "export" else "-o"
    target = str(tmp_path / name)
    err = _refused([command, db, "--study", "q", option, target], capsys)
    assert f"{option} must be a new or writable file in an existing folder, but got {option}={target!r}" in err
    assert cause in err and "Traceback" not in err


def test_an_unwritable_file_is_refused(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "locked.csv"
    locked.write_text("keep")
    locked.chmod(0o400)
    if os.geteuid() == 0:  # root writes any file: the check is asked as a user's would answer
        real = os.access
        monkeypatch.setattr(os, "access", lambda path, mode: False if Path(path) == locked else real(path, mode))
    assert "the file is not writable" in _refused(["export", db, "--study", "q", "--output", str(locked)], capsys)
    assert locked.read_text() == "keep"


def test_an_absurd_dpi_is_refused_before_drawing(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(["plot", db, "--study", "q", "-o", str(tmp_path / "x.png"), "--dpi", "20000"], capsys)
    assert "--dpi" in err and "expected an integer in [1, 1200]" in err
    assert not (tmp_path / "x.png").exists()


def test_an_ordinary_file_is_still_written(db: str, tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    out.write_text("old")
    assert main(["export", db, "--study", "q", "--output", str(out)]) == 0
    assert out.read_text().startswith("number,")
