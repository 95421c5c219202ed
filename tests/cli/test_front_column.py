"""Exports of a study with several objectives say which trials are on the Pareto front."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

import treefarm as tf
from treefarm.cli.main import main


def _study(db: Path) -> tf.Study:
    study = tf.Study.create(
        space={"x": tf.R[0:1]}, directions={"error": "minimize", "size": "minimize"}, storage=str(db), name="mo", seed=0
    )
    for x, values in [(0.1, (1.0, 5.0)), (0.2, (2.0, 2.0)), (0.3, (3.0, 3.0)), (0.4, (5.0, 1.0))]:
        study.enqueue({"x": x})
        trial = study.ask()
        study.tell(trial, values)
    trial = study.ask()
    study.tell(trial, state="failed")
    return study


def test_csv_json_and_dataframe_mark_the_front(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "mo.db"
    study = _study(db)
    assert main(["export", "--storage", str(db), "--study", "mo", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["front"] for r in rows] == ["True", "True", "False", "True", ""]
    assert rows[2]["values.error"] == "3.0" and rows[2]["values.size"] == "3.0"
    assert main(["export", "--storage", str(db), "--study", "mo", "--format", "json"]) == 0
    assert [r["front"] for r in json.loads(capsys.readouterr().out)] == [True, True, False, True, None]
    pytest.importorskip("pandas")
    assert study.to_dataframe()["front"].tolist() == [True, True, False, True, None]


def test_one_objective_has_no_front_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "one.db"
    study = tf.Study.create(space={"x": tf.R[0:1]}, storage=str(db), name="one", seed=0)
    study.optimize(lambda p: p["x"], n_trials=3)
    assert main(["export", "--storage", str(db), "--study", "one", "--format", "json"]) == 0
    assert all("front" not in r for r in json.loads(capsys.readouterr().out))
