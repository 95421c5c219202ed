"""The commands close the SQLite file they wrote: the ``.db`` file alone, copied elsewhere
without its ``-wal``, holds every trial and hint."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from treefarm.cli.main import main

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart.py"


def _copy_alone(db: Path, folder: Path) -> Path:
    folder.mkdir()
    return Path(shutil.copy(db, folder / db.name))


def test_after_run_and_hint_the_db_file_alone_holds_everything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "q.db"
    argv = ["run", str(QUICKSTART), "--n-trials", "6", "--algo", "random", "--storage", str(db), "--seed", "0"]
    assert main(argv) == 0
    assert main(["hint", str(db), "--study", "quickstart", "--config", '{"layers": 3}']) == 0
    capsys.readouterr()
    wal = Path(f"{db}-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    copy = _copy_alone(db, tmp_path / "copy")
    assert main(["show", str(copy), "--study", "quickstart"]) == 0
    shown = capsys.readouterr().out
    assert "states: complete 6" in shown and '{"layers": 3}' in shown
    assert main(["export", str(copy), "--study", "quickstart", "--format", "json"]) == 0
    assert [row["number"] for row in json.loads(capsys.readouterr().out)] == list(range(6))
    assert main(["hint", str(copy), "--study", "quickstart", "--list"]) == 0
    assert '{"layers": 3}' in capsys.readouterr().out
