"""Artifacts: files a trial makes, kept beside the storage, listed per trial, never in the database."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import treefarm as tf

SPACE = {"x": tf.Real(0.0, 1.0)}


def test_saved_files_and_bytes_sit_beside_the_sqlite_file_and_are_listed(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    model = tmp_path / "model.bin"
    model.write_bytes(b"payload" * 1000)

    def objective(params: dict[str, float], trial: tf.Trial) -> float:
        trial.save_artifact(model)
        trial.save_artifact(f"x={params['x']}".encode(), name="note.txt")
        return params["x"]

    study = tf.Study.create("s", space=SPACE, storage=db, seed=0)
    study.optimize(objective, 2, progress=False)
    assert study.artifact_store == f"{db}.artifacts"
    listed = study.artifacts(1)
    assert [a["name"] for a in listed] == ["model.bin", "note.txt"]
    assert listed[0]["size"] == 7000 and len(listed[0]["sha256"]) == 64
    assert (tmp_path / "runs.db.artifacts" / "s" / "1" / "model.bin").read_bytes() == model.read_bytes()
    x = study.trials[1].params["x"]
    assert study.load_artifact(1, "note.txt") == f"x={x}".encode()
    study.storage.close()
    with sqlite3.connect(db) as raw:  # the database holds the list, never the content
        dump = "\n".join(raw.iterdump())
    assert "payload" not in dump and "model.bin" in dump


def test_a_second_save_of_a_name_replaces_it(tmp_path: Path) -> None:
    study = tf.Study.create(space=SPACE, storage=tmp_path / "a.db", seed=0)
    trial = study.ask()
    trial.save_artifact(b"one", name="m")
    trial.save_artifact(b"two", name="m")
    assert [a["size"] for a in study.artifacts(trial.number)] == [3]
    assert study.load_artifact(trial.number, "m") == b"two"


def test_an_fsspec_url_as_the_store() -> None:
    pytest.importorskip("fsspec")
    study = tf.Study.create("mem", space=SPACE, seed=0)
    study.artifact_store = "memory://treefarm-test-artifacts"
    trial = study.ask()
    trial.save_artifact(b"plot", name="curve.png")
    assert study.load_artifact(trial.number, "curve.png") == b"plot"


def test_mistakes_are_named(tmp_path: Path) -> None:
    study = tf.Study.create(space=SPACE, storage=tmp_path / "a.db", seed=0)
    trial = study.ask()
    with pytest.raises(tf.StudyError, match="needs a name"):
        trial.save_artifact(b"x")
    with pytest.raises(tf.StudyError, match="a file name of letters"):
        trial.save_artifact(b"x", name="../escape")
    with pytest.raises(tf.StudyError, match="bytes or an existing file"):
        trial.save_artifact(tmp_path / "missing.bin")
    with pytest.raises(tf.StudyError, match=r"one the trial saved, .* it saved \[\]"):
        study.load_artifact(trial.number, "nothing")
    trial.save_artifact(b"abc", name="m")
    (Path(study.artifact_store) / study.name / str(trial.number) / "m").write_bytes(b"abd")
    with pytest.raises(tf.StudyError, match="must match the SHA-256"):
        study.load_artifact(trial.number, "m")
    with pytest.raises(tf.StudyError, match="artifact_store must be a directory or an fsspec URL"):
        study.artifact_store = ""
