"""Ask and tell from the command line: a study made from a space file, driven by any
program; several shells at once make exactly the budget, each trial once."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import treefarm as tf
from treefarm.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SPACE = ROOT / "examples" / "shell_space.json"


def _create(db: Path, *extra: str) -> None:
    assert main(["create", str(db), "--study", "s", "--space", str(SPACE), "--seed", "0", *extra]) == 0


def test_ask_prints_the_trial_and_its_configuration_and_tell_records_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "a.db"
    _create(db)
    capsys.readouterr()
    assert main(["ask", str(db), "--study", "s"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "0"
    config = dict(line.split(" ", 1) for line in lines[1:])
    assert set(config) >= {"x", "y", "solver"} and -5 <= float(config["x"]) <= 10
    assert main(["ask", str(db), "--study", "s", "--json"]) == 0
    asked = json.loads(capsys.readouterr().out)
    assert asked["trial"] == 1 and asked["config"]["solver"] in ("fast", "careful")
    assert main(["tell", str(db), "--study", "s", "--trial", "0", "--value", "1.25"]) == 0
    assert main(["tell", str(db), "--study", "s", "--trial", "1", "--failed", "solver gave up"]) == 0
    assert main(["tell", str(db), "--study", "s", "--trial", "0", "--value", "2"]) == 1
    assert "needs a running trial" in capsys.readouterr().err
    storage = tf.open_storage(db, read_only=True)
    trials = storage.get_trials(storage.get_study("s").study_id)
    assert [(t.state.value, t.value) for t in trials] == [("complete", 1.25), ("failed", None)]
    assert trials[1].system_attrs["fail_reason"] == "solver gave up"
    assert trials[0].params["x"] == float(config["x"])
    storage.close()


def test_the_budget_ends_asking_with_status_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "a.db"
    _create(db, "--n-trials", "2")
    assert main(["ask", str(db), "--study", "s"]) == 0
    assert main(["ask", str(db), "--study", "s"]) == 0
    assert main(["ask", str(db), "--study", "s"]) == 3
    assert "the study's budget of 2 trials is spent" in capsys.readouterr().err
    assert main(["ask", str(db), "--study", "s", "--n-trials", "3"]) == 0


def test_bad_inputs_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "a.db"
    bad = tmp_path / "space.json"
    bad.write_text('{"x": {"type": "real", "low": 2, "high": 1}}')
    assert main(["create", str(db), "--study", "s", "--space", str(bad)]) == 1
    assert "x: Real: low < high must hold" in capsys.readouterr().err
    _create(db)
    assert main(["create", str(db), "--study", "s", "--space", str(SPACE)]) == 1
    assert "the study name must be new" in capsys.readouterr().err
    _create(db, "--skip-if-exists")
    tf.Study.create("python", space={"x": tf.Real(0, 1)}, storage=db).storage.close()
    assert main(["ask", str(db), "--study", "python"]) == 1
    assert "need a study made by `treefarm create --space FILE`" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["tell", str(db), "--study", "s", "--trial", "0", "--value", "nan"])
    assert "expected finite numbers" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["tell", str(db), "--study", "s", "--trial", "0"])


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("awk") is None, reason="needs bash and awk")
def test_three_shell_loops_at_once_make_exactly_the_budget(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "TREEFARM": f"{sys.executable} -m treefarm.cli.main",
        "N_TRIALS": "6",
    }
    db = tmp_path / "shell.db"
    loops = [
        subprocess.Popen(
            ["bash", str(ROOT / "examples" / "shell_study.sh"), str(db)],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    for loop in loops:
        _, err = loop.communicate(timeout=280)
        assert loop.returncode == 0, err
    storage = tf.open_storage(db, read_only=True)
    trials = storage.get_trials(storage.get_study("shell").study_id)
    storage.close()
    assert [t.number for t in trials] == list(range(6))
    assert all(t.state.is_finished for t in trials), [t.state for t in trials]
    assert any(t.state is tf.TrialState.COMPLETE for t in trials)


def test_several_objectives_and_constraints_are_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "a.db"
    args = ["create", str(db), "--study", "two", "--space", str(SPACE), "--directions", "minimize,maximize"]
    assert main(args) == 0
    for _ in range(2):
        assert main(["ask", str(db), "--study", "two"]) == 0
    assert (
        main(
            [
                "tell",
                str(db),
                "--study",
                "two",
                "--trial",
                "0",
                "--value",
                "0.5,3",
                "--constraints=-1,-0.5",  # a leading minus needs the = form, as with any argparse option
            ]
        )
        == 0
    )
    assert (
        main(["tell", str(db), "--study", "two", "--trial", "1", "--value", "0.25,4", "--constraints", "2"])
        == 0
    )
    assert main(["tell", str(db), "--study", "two", "--trial", "0", "--value", "1"]) == 1
    storage = tf.open_storage(db, read_only=True)
    trials = storage.get_trials(storage.get_study("two").study_id)
    storage.close()
    assert [(t.values, t.constraints) for t in trials] == [((0.5, 3.0), (-1.0, -0.5)), ((0.25, 4.0), (2.0,))]
    with pytest.raises(SystemExit):
        main(["tell", str(db), "--study", "two", "--trial", "0", "--value", "1,x"])
    assert "expected comma-separated numbers" in capsys.readouterr().err


def test_named_objectives_are_created_from_the_command_line(tmp_path: Path) -> None:
    db = tmp_path / "n.db"
    args = ["create", str(db), "--study", "named", "--space", str(SPACE), "--directions", "error=minimize,size=maximize"]
    assert main(args) == 0
    storage = tf.open_storage(db, read_only=True)
    assert storage.get_study("named").objectives.argument == {"error": "minimize", "size": "maximize"}
    storage.close()


def test_a_study_with_a_fidelity_asks_each_trial_at_its_rung_until_the_cost_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "f.db"
    _create(db, "--fidelity", "1,27", "--integer-fidelity", "--max-cost", "100")
    capsys.readouterr()
    asked: list[tuple[int, int, int | None]] = []
    while main(["ask", str(db), "--study", "s"]) == 0:
        lines = capsys.readouterr().out.splitlines()
        number, fidelity, continues = lines[0].split()
        config = dict(line.split(" ", 1) for line in lines[1:])
        asked.append((int(number), int(fidelity), None if continues == "-" else int(continues)))
        value = (float(config["x"]) - 2.0) ** 2 + 10.0 / int(fidelity)
        assert main(["tell", str(db), "--study", "s", "--trial", number, "--value", repr(value)]) == 0
        capsys.readouterr()
    assert "the study's cost budget of 100 is spent" in capsys.readouterr().err
    assert asked[:2] == [(0, 1, None), (1, 27, 0)]  # the first check: the lowest rung, then the top, continued
    assert {f for _, f, _ in asked} <= {1, 3, 9, 27}
    spent = sum(f for _, f, _ in asked)
    assert 100 <= spent < 100 + 27  # one evaluation beyond the budget at most
    assert main(["ask", str(db), "--study", "s", "--json", "--max-cost", "200"]) == 0
    extra = json.loads(capsys.readouterr().out)
    assert extra["trial"] == len(asked) and extra["fidelity"] in (1, 3, 9, 27) and "continues" in extra


def test_the_reduction_factor_given_to_create_sets_the_rungs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "eta.db"
    _create(db, "--fidelity", "1,27", "--integer-fidelity", "--reduction-factor", "9")
    capsys.readouterr()
    assert main(["ask", str(db), "--study", "s"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "0 3 -"  # rungs 3 and 27: 27 / 9, not 27 / 3**3


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--max-cost", "10"], "--max-cost is spent by the trials' fidelities, but got --max-cost=10.0"),
        (["--integer-fidelity"], "describe a --fidelity LOW,HIGH, but got no --fidelity"),
        (["--fidelity", "27,1"], r"a fidelity needs low < high, but got \(low=27.0, high=1.0\)"),
        (["--fidelity", "1,27", "--max-cost", "0.5"], r"at least the cost of the lowest rung \(1.0\)"),
        (["--fidelity", "1,27", "--reduction-factor", "1"], "reduction_factor must be an integer >= 2"),
        (["--fidelity", "0.5,1"], "a fidelity needs two rungs or more"),
    ],
)
def test_a_bad_fidelity_or_cost_budget_is_refused_before_the_study_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    db = tmp_path / "bad.db"
    assert main(["create", str(db), "--study", "s", "--space", str(SPACE), *extra]) == 1
    assert re.search(message, capsys.readouterr().err)
    with pytest.raises(SystemExit):
        main(["create", str(db), "--study", "s", "--space", str(SPACE), "--fidelity", "1"])
    assert "expected LOW,HIGH, two numbers, but got '1'" in capsys.readouterr().err
