"""A database written by the code of 2026-12-06 (schema revision 0005: two objectives with
constraints, a maximized objective, a pruner's reports, stored optimizer options) opens,
upgrades, reads back every record, and each study goes on with the optimizer it ran."""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
from pathlib import Path

import pytest

import treefarm as tf
from treefarm.optimizers.registry import _LATER_OPTIONS, spec_of
from treefarm.storage import SQLStorage
from treefarm.storage.schema import HEAD, VERSION_TABLE

from .fixtures.make_today_db import read_back

FIXTURES = Path(__file__).parent / "fixtures"
TODAY_DB = FIXTURES / "release-2026-12-06.db"
EXPECTED = json.loads((FIXTURES / "release-2026-12-06.json").read_text())
SPACES = {
    "curves": {"x": tf.Real(-3, 3), "k": tf.Int(1, 5), "opt": tf.Join(adam={}, sgd={"m": tf.Real(0, 0.99)})},
    "front": {"a": tf.Real(0, 2), "b": tf.Real(0, 2)},
    "accuracy": {"C": tf.Real(1e-3, 1e3, log=True)},
}


def _without_later_options(spec: dict, stored: dict) -> dict:
    """``spec`` without the options added since ``stored`` was written, which a
    stored spec rebuilds at their earlier behaviour (``_LATER_OPTIONS``)."""
    later = _LATER_OPTIONS.get(spec["algo"], {})
    options = {}
    for key, value in spec["options"].items():
        if key not in stored["options"] and key in later and value == later[key]:
            continue
        if isinstance(value, dict) and "optimizer" in value and key in stored["options"]:
            value = {"optimizer": _without_later_options(value["optimizer"], stored["options"][key]["optimizer"])}
        options[key] = value
    return {**spec, "options": options}


@pytest.fixture
def today_copy(tmp_path: Path) -> Path:
    """A copy of the fixture (the fixture itself is never opened for writing)."""
    copy = tmp_path / "today.db"
    shutil.copyfile(TODAY_DB, copy)
    return copy


def test_the_fixture_stays_as_the_code_of_2026_12_06_wrote_it() -> None:
    with sqlite3.connect(f"file:{TODAY_DB}?mode=ro", uri=True) as connection:
        assert connection.execute(f"SELECT version_num FROM {VERSION_TABLE}").fetchone() == ("0005",)


def test_the_database_opens_upgrades_and_reads_back_every_record(today_copy: Path) -> None:
    storage = SQLStorage(f"sqlite:///{today_copy}", journal=None)
    try:
        assert read_back(storage) == EXPECTED
    finally:
        storage.close()
    with sqlite3.connect(today_copy) as connection:
        assert connection.execute(f"SELECT version_num FROM {VERSION_TABLE}").fetchone() == (HEAD,)


@pytest.mark.parametrize("name", list(SPACES))
def test_each_study_reopens_with_its_stored_optimizer_and_goes_on(today_copy: Path, name: str) -> None:
    study = tf.Study.load(name, space=SPACES[name], storage=today_copy)
    stored = next(s for s in EXPECTED["studies"] if s["name"] == name)["attrs"]["optimizer"]
    assert _without_later_options(spec_of(study.optimizer), stored) == stored
    before = len(study.trials)
    for _ in range(3):
        trial = study.ask()
        config = trial.config
        if name == "front":
            study.tell(trial, [config["a"], config["b"]])
        else:
            study.tell(trial, float(sum(v for v in config.values() if isinstance(v, (int, float)))))
    assert len(study.trials) == before + 3


def test_the_best_of_each_study_is_what_it_was(today_copy: Path) -> None:
    accuracy = tf.Study.load("accuracy", space=SPACES["accuracy"], storage=today_copy)
    values = [t["values"][0] for t in EXPECTED["trials"]["accuracy"] if t["values"]]
    assert accuracy.best_value == max(values)
    curves = tf.Study.load("curves", space=SPACES["curves"], storage=today_copy)
    complete = [t["values"][0] for t in EXPECTED["trials"]["curves"] if t["state"] == "complete"]
    assert math.isclose(curves.best_value, min(complete))
    front = tf.Study.load("front", space=SPACES["front"], storage=today_copy)
    assert front.best_trials, "the front of a two-objective study with feasible trials is not empty"
