"""``treefarm run --max-cost`` with a file's Fidelity: the budget spent once, the cost and the
fidelity shown and exported, the best taken at the full fidelity; bad flags named."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from treefarm.cli.main import main

FILE = '''
import math
import treefarm as tf

space = {"x": tf.Real(-5.0, 10.0), "y": tf.Real(0.0, 15.0)}
fidelity = tf.Fidelity(1 / 9, 1.0, cost=lambda f: f**2)
other = 3


def objective(config, trial):
    x, y, f = config["x"], config["y"], trial.fidelity
    b = 5.1 / (4 * math.pi**2) - 0.01 * (1 - f)
    return (y - b * x**2 + 5 / math.pi * x - 6) ** 2 + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x) + 10
'''


@pytest.fixture
def branin(tmp_path: Path) -> Path:
    path = tmp_path / "branin.py"
    path.write_text(FILE)
    return path


def test_run_spends_the_budget_and_show_and_export_say_what_it_cost(
    branin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "f.db")
    assert main(["run", str(branin), "--storage", db, "--max-cost", "3", "--seed", "0"]) == 0
    capsys.readouterr()
    assert main(["show", db, "--study", "branin"]) == 0
    shown = capsys.readouterr().out
    spent = float(shown.split("cost spent: ")[1].split()[0])
    assert 3.0 <= spent < 4.0
    assert main(["export", db, "--study", "branin", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert sum(float(r["cost"]) for r in rows) == pytest.approx(spent, rel=1e-5)  # show prints 6 digits
    full = [r for r in rows if float(r["fidelity"]) == 1.0]
    best = min(full, key=lambda r: float(r["value"]))
    assert f"best: trial {best['number']} " in shown


def test_fidelity_must_name_a_fidelity_and_max_cost_must_be_positive(
    branin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "f.db")
    with pytest.raises(SystemExit):
        main(["run", str(branin), "--storage", db, "--fidelity", "other"])
    assert "--fidelity must name a Fidelity in the file, but 'other' is 3" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["run", str(branin), "--storage", db, "--max-cost", "-2"])
    assert "--max-cost" in capsys.readouterr().err


RESUMING = '''
import pickle
import treefarm as tf

space = {"x": tf.Real(0.0, 1.0)}
fidelity = tf.Fidelity(1, 9, integer=True)


def objective(config, trial):
    state = trial.load_checkpoint()
    epochs = pickle.loads(state) if state is not None else 0
    trial.set_user_attr("trained", trial.fidelity - epochs)
    trial.save_checkpoint(pickle.dumps(trial.fidelity))
    return (config["x"] - 0.3) ** 2 + 1 / trial.fidelity
'''


def test_show_and_export_say_which_trial_a_promotion_continues_and_whether_it_resumed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, db = tmp_path / "epochs.py", str(tmp_path / "e.db")
    path.write_text(RESUMING)
    assert main(["run", str(path), "--storage", db, "--max-cost", "20", "--seed", "0", "--algo", "random"]) == 0
    capsys.readouterr()
    assert main(["show", db, "--study", "epochs"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split()
    assert header.index("fidelity") < header.index("continues") < header.index("resumed") < header.index("cost")
    assert main(["export", db, "--study", "epochs", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    promoted = [r for r in rows if r["continues"]]
    assert promoted and all(r["resumed"] == "True" for r in promoted)
    for r in promoted:  # a continuation pays only the epochs it adds: 3 - 1 or 9 - 3
        source = rows[int(r["continues"])]
        assert float(r["cost"]) == float(r["fidelity"]) - float(source["fidelity"])
    assert all(r["resumed"] == "" for r in rows if not r["continues"])
