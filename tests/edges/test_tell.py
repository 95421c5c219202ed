"""A tell that holds no result is refused and leaves the trial running, so that a typo can
be mended; a value that says the evaluation failed (NaN) still fails the trial."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import treefarm as tf
from treefarm.cli.main import main


@pytest.mark.parametrize(
    ("directions", "value", "constraints", "said"),
    [
        (["minimize"], None, None, "but returned a NoneType: None"),
        (["minimize"], "abc", None, "but returned a str: 'abc'"),
        (["minimize"], {"score": 1.0}, None, "a mapping without 'loss'"),
        (["minimize"], [1.0, 2.0], None, "the study has 1 objective"),
        (["minimize", "maximize"], 1.0, None, "the study has 2 objectives"),
        (["minimize"], 1.0, "abc", "constraints must be a number or a sequence of numbers"),
        (["minimize"], 1.0, [float("nan")], "constraints must be finite numbers"),
    ],
)
def test_a_tell_without_a_result_leaves_the_trial_running(
    directions: list[str], value: object, constraints: object, said: str
) -> None:
    study = tf.Study.create(space={"x": tf.Real(0, 1)}, directions=directions, algo="random")
    trial = study.ask()
    with pytest.raises(tf.StudyError) as info:
        study.tell(trial, value, constraints=constraints)  # type: ignore[arg-type]
    assert said in str(info.value) and f"trial {trial.number} was not told and is still running" in str(info.value)
    assert study.trials[0].state is tf.TrialState.RUNNING
    study.tell(trial, [0.5] * len(directions) if len(directions) > 1 else 0.5)
    assert study.trials[0].state is tf.TrialState.COMPLETE


def test_a_nan_value_still_fails_the_trial() -> None:
    study = tf.Study.create(space={"x": tf.Real(0, 1)}, algo="random")
    record = study.tell(study.ask(), math.nan)
    assert record.state is tf.TrialState.FAILED


def test_cli_tell_with_two_values_on_one_objective_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    space = tmp_path / "space.json"
    space.write_text('{"x": {"type": "real", "low": 0, "high": 1}}')
    db = str(tmp_path / "s.db")
    assert main(["create", db, "--study", "s", "--space", str(space)]) == 0
    assert main(["ask", db, "--study", "s"]) == 0
    capsys.readouterr()
    assert main(["tell", db, "--study", "s", "--trial", "0", "--value", "1,2"]) == 1
    assert "the study has 1 objective" in capsys.readouterr().err
    assert main(["tell", db, "--study", "s", "--trial", "0", "--value", "1"]) == 0
