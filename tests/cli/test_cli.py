"""The treefarm command: run a file, list, show and export studies; argument errors are named."""

from __future__ import annotations

import csv
import importlib.metadata
import io
import json
from pathlib import Path

import pytest

import treefarm as tf
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


def test_version_is_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    import treefarm

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"treefarm {treefarm.__version__}"
    assert treefarm.__version__ == importlib.metadata.version("treefarm")


@pytest.mark.parametrize("command", [["show", "{db}", "--study", "x"], ["studies", "{db}"], ["export", "{db}", "--study", "x"]])
def test_read_only_commands_refuse_a_missing_file_and_create_nothing(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "typo.db"
    assert main([c.format(db=db) for c in command]) == 1
    assert f"must exist, but got path='{db}'" in capsys.readouterr().err
    assert not db.exists()


FAILING = '''
import treefarm as tf
space = {"x": tf.Real(0, 1)}
def objective(p):
    if p["x"] < 0.5:
        raise ValueError("x too small: " + "y" * 200 + "\\nsecond line")
    return p["x"]
'''


def test_failed_trials_show_their_reason_in_run_and_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "failing.py"
    script.write_text(FAILING)
    db = str(tmp_path / "f.db")
    assert main(["run", str(script), "--n-trials", "12", "--storage", db, "--seed", "0"]) == 0
    err = capsys.readouterr().err
    failed_lines = [line for line in err.splitlines() if ": failed (" in line]
    assert failed_lines and all("ValueError: x too small" in line for line in failed_lines)
    assert all("second line" not in line for line in failed_lines)
    assert main(["show", db, "--study", "failing"]) == 0
    shown = capsys.readouterr().out
    header = shown.splitlines()[0].split()
    assert header[-1] == "reason"
    assert any(line.startswith(tuple("0123456789")) and "ValueError: x too small" in line for line in shown.splitlines())


def test_csv_export_writes_json_for_structured_attributes_and_a_header_for_no_trial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "e.db"
    study = tf.Study.create("s", space={"x": tf.Real(0.0, 1.0)}, storage=db, seed=0)
    tf.Study.create("empty", space={"x": tf.Real(0.0, 1.0)}, storage=db, seed=0)
    study.optimize(lambda p: {"loss": p["x"], "info": {"ok": True, "none": None}, "folds": [0.1, 0.2]}, 1)
    assert main(["export", str(db), "--study", "s", "--format", "csv"]) == 0
    row = next(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert json.loads(row["user_attrs.info"]) == {"ok": True, "none": None}
    assert json.loads(row["user_attrs.folds"]) == [0.1, 0.2]
    assert main(["export", str(db), "--study", "empty", "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith("number,state,value,")
    with pytest.raises(SystemExit) as info:  # a wrong argument: status 2, naming it and why
        main(["export", str(db), "--study", "s", "--output", str(tmp_path / "no" / "x.csv")])
    assert info.value.code == 2
    assert "--output must be a new or writable file in an existing folder" in capsys.readouterr().err


def test_a_changed_space_is_named_and_run_goes_on_with_allow_space_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script, db = tmp_path / "widened.py", str(tmp_path / "w.db")
    body = "import treefarm as tf\nspace = {{'x': tf.Real(0, {high})}}\n\ndef objective(p):\n    return p['x']\n"
    script.write_text(body.format(high=1))
    assert main(["run", str(script), "--n-trials", "3", "--storage", db, "--algo", "random"]) == 0
    # another length: rewritten within the second at the same size, the file's cached bytecode would pass
    script.write_text(body.format(high=10))
    assert main(["run", str(script), "--n-trials", "5", "--storage", db]) == 1
    assert "changed=['x: R[0:1] -> R[0:10]']" in capsys.readouterr().err
    assert main(["run", str(script), "--n-trials", "5", "--storage", db, "--allow-space-change"]) == 0
    assert len(tf.Study.load("widened", storage=db, space={"x": tf.Real(0, 10)}).trials) == 5
