"""The treefarm command: run a file, list, show and export studies; argument errors are named."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from treefarm.cli.main import main

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart.py"


def test_run_show_studies_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "q.db")
    assert main(["run", str(QUICKSTART), "--n-trials", "15", "--storage", db, "--seed", "0"]) == 0
    out, err = capsys.readouterr()
    assert "best value:" in out and "best params:" in out
    assert "trial 14:" in err and "done 15/15" in err
    assert main(["run", str(QUICKSTART), "--n-trials", "20", "--storage", db]) == 0
    assert "20 trials" in capsys.readouterr().out
    assert main(["studies", db]) == 0
    assert "quickstart\tminimize\t20 trials" in capsys.readouterr().out
    assert main(["show", db, "--study", "quickstart"]) == 0
    shown = capsys.readouterr().out
    assert "params.learning_rate" in shown and "states: complete 20" in shown
    out_csv = tmp_path / "t.csv"
    assert main(["export", db, "--study", "quickstart", "--format", "csv", "--output", str(out_csv)]) == 0
    rows = list(csv.DictReader(out_csv.open()))
    assert len(rows) == 20 and rows[0]["state"] == "complete"
    assert main(["export", db, "--study", "quickstart", "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 20


@pytest.mark.parametrize(
    ("argv", "pattern"),
    [
        (["run", "missing.py"], "FILE must be an existing .py file, but got FILE='missing.py'"),
        (["run", str(QUICKSTART), "--n-trials", "0"], "expected an integer >= 1, but got '0'"),
        (["run", str(QUICKSTART), "--algo", "magic"], "invalid choice: 'magic'"),
        (["run", f"{QUICKSTART}:nothing"], "the file must define the objective 'nothing'"),
    ],
)
def test_bad_arguments_exit_2_with_the_argument_named(
    argv: list[str], pattern: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert pattern in capsys.readouterr().err


def test_bad_storage_url_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["studies", "mysqlx://nowhere"]) == 1
    assert "mysqlx://nowhere" in capsys.readouterr().err
