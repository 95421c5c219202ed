"""``treefarm plot``: an image of each kind from a stored study; a bad file name is refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

import treefarm as tf
from treefarm.cli.main import main


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("plot") / "p.db")
    space = {"x": tf.Real(-2, 2), "n": tf.Int(1, 5), "kind": tf.Choice("a", "b")}

    def objective(p: dict, trial: tf.Trial) -> float:
        trial.report(0, p["x"] ** 2 + 1)
        return p["x"] ** 2 + 0.1 * p["n"] + (p["kind"] == "b")

    for name, seed in (("demo", 0), ("other", 1)):
        study = tf.Study.create(name, space=space, storage=path, algo="random", seed=seed)
        study.optimize(objective, 25)
        study.storage.close()
    return path


@pytest.mark.parametrize(
    ("kind", "suffix"),
    [
        ("convergence", "png"),
        ("slices", "svg"),
        ("importance", "pdf"),
        ("parallel", "png"),
        ("intermediate", "png"),
        ("structures", "svg"),
        ("gp", "png"),
    ],
)
def test_each_kind_writes_its_image(db: str, kind: str, suffix: str, tmp_path: Path) -> None:
    out = tmp_path / f"{kind}.{suffix}"
    assert main(["plot", db, "--study", "demo", "--kind", kind, "-o", str(out)]) == 0
    head = out.read_bytes()[:5]
    assert head == {"png": b"\x89PNG\r", "svg": b"<?xml", "pdf": b"%PDF-"}[suffix]


def test_several_studies_give_their_median_band(db: str, tmp_path: Path) -> None:
    out = tmp_path / "band.svg"
    assert main(["plot", db, "--study", "demo", "--study", "other", "-o", str(out)]) == 0
    assert "median of 2 studies" in out.read_text()


def test_an_unknown_image_format_exits_2_naming_it(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["plot", db, "--study", "demo", "-o", "x.gif"])
    assert info.value.code == 2
    assert "-o must end in one of ['.png', '.svg', '.pdf'], but got -o='x.gif'" in capsys.readouterr().err


def test_an_unknown_study_is_an_error_naming_it(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plot", db, "--study", "nope", "-o", "x.png"]) == 1
    assert "nope" in capsys.readouterr().err


def test_plot_reads_only_and_names_a_bad_dpi(tmp_path: Path, db: str, capsys: pytest.CaptureFixture[str]) -> None:
    typo = tmp_path / "typo.db"
    assert main(["plot", str(typo), "--study", "demo", "-o", str(tmp_path / "x.png")]) == 1
    assert "must exist" in capsys.readouterr().err and not typo.exists()
    with pytest.raises(SystemExit) as info:
        main(["plot", db, "--study", "demo", "-o", str(tmp_path / "x.png"), "--dpi", "0"])
    assert info.value.code == 2 and "expected an integer in [1, 1200]" in capsys.readouterr().err


def test_a_study_of_several_objectives_is_drawn_as_its_front_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(tmp_path / "mo.db")
    study = tf.Study.create(
        "mo", space={"x": tf.Real(0, 1)}, storage=path, directions={"error": "minimize", "size": "maximize"},
        algo="random", seed=0,
    )
    study.optimize(lambda p: [p["x"], p["x"] ** 2], 10)
    study.storage.close()
    seen = []
    from treefarm import viz

    drawn = viz.KINDS["front"]
    monkeypatch.setitem(viz.KINDS, "front", lambda data: seen.append(data.objectives.names) or drawn(data))
    assert main(["plot", path, "--study", "mo", "-o", str(tmp_path / "f.png")]) == 0
    assert seen == [("error", "size")] and (tmp_path / "f.png").stat().st_size > 0
