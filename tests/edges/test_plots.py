"""A plot that would show nothing true is refused with a message and exit 1: an empty,
all-failed or one-trial study, a band of studies that do not share a direction, a
hypervolume of one objective; a convergence of several objectives says which it shows."""

from __future__ import annotations

from pathlib import Path

import pytest

import treefarm as tf
from treefarm.cli.main import main

SPACE = {"x": tf.Real(0, 1)}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("plots") / "p.db")

    def fails(p: dict) -> float:
        raise ValueError("no")

    tf.Study.create("empty", space=SPACE, storage=path)
    tf.Study.create("failed", space=SPACE, storage=path, algo="random").optimize(fails, 3)
    tf.Study.create("one", space=SPACE, storage=path, algo="random").optimize(lambda p: p["x"], 1)
    for name, direction in (("low", "minimize"), ("high", "maximize")):
        tf.Study.create(name, space=SPACE, storage=path, algo="random", direction=direction).optimize(
            lambda p: p["x"], 6
        )
    two = tf.Study.create("two", space=SPACE, storage=path, algo="random", directions=["minimize", "maximize"])
    two.optimize(lambda p: (p["x"], 1 - p["x"] ** 2), 6)
    return path


@pytest.mark.parametrize(
    ("study", "said"),
    [
        ("empty", "complete=0 (no trials)"),
        ("failed", "complete=0 (3 failed)"),
        ("one", "complete=1 (1 complete)"),
    ],
)
@pytest.mark.parametrize("kind", ["convergence", "slices", "importance"])
def test_a_study_with_too_few_trials_is_refused(
    db: str, study: str, said: str, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.png"
    assert main(["plot", db, "--study", study, "--kind", kind, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "a plot needs at least 2 complete trials with a finite value" in err and said in err
    assert not out.exists()


def test_studies_of_opposite_directions_are_not_banded(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plot", db, "--study", "low", "--study", "high", "-o", str(tmp_path / "b.png")]) == 1
    assert "must share one direction, but got low='minimize', high='maximize'" in capsys.readouterr().err


def test_a_hypervolume_of_one_objective_is_refused(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plot", db, "--study", "low", "--kind", "hypervolume", "-o", str(tmp_path / "h.png")]) == 1
    assert "a hypervolume needs a study with several objectives" in capsys.readouterr().err


def test_a_convergence_of_two_objectives_names_the_one_it_shows(db: str, tmp_path: Path) -> None:
    out = tmp_path / "c.svg"
    assert main(["plot", db, "--study", "two", "--kind", "convergence", "-o", str(out)]) == 0
    assert "value 0 (minimize)" in out.read_text()
