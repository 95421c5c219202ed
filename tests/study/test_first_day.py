"""The first day: minimize says where its study is and names it after the objective."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import treefarm as tf

SPACE = {"x": tf.Real(0.0, 1.0)}


def train_model(params: dict[str, float]) -> float:
    return params["x"]


def test_minimize_names_the_study_after_the_objective_and_says_where(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="treefarm")
    db = tmp_path / "runs.db"
    first = tf.minimize(train_model, SPACE, max_evals=2, storage=str(db), progress=False)
    second = tf.minimize(train_model, SPACE, max_evals=2, storage=str(db), progress=False)
    assert (first.study.name, second.study.name) == ("train_model", "train_model-2")
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("minimize: ")]
    assert (
        said[0]
        == f"minimize: study 'train_model' in {db.resolve()} (resume it with study_name='train_model')"
    )
    assert "'train_model-2'" in said[1]
    resumed = tf.minimize(
        train_model, SPACE, max_evals=3, storage=str(db), study_name="train_model", progress=False
    )
    assert resumed.study.name == "train_model" and resumed.n_trials == 3


def test_a_lambda_and_memory_storage(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="treefarm")
    result = tf.minimize(lambda p: p["x"], SPACE, max_evals=2, storage=None, progress=False)
    assert result.study.name == "study"
    assert any("minimize: study 'study' in memory" in r.getMessage() for r in caplog.records)


def test_an_applied_objective_names_the_study(tmp_path: Path) -> None:
    @tf.op
    def loss(x: float) -> float:
        return x

    result = tf.minimize(
        loss, loss(x=tf.Real(0.0, 1.0)), max_evals=2, storage=tmp_path / "a.db", progress=False
    )
    assert result.study.name == "loss"
