"""Space files: the JSON/YAML form of the flat and conditional language, and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import treefarm as tf
from treefarm.space.files import load_space_file, space_from_data
from treefarm.space.fingerprint import fingerprint

DATA = {
    "lr": {"type": "real", "low": 1e-5, "high": 0.1, "log": True},
    "layers": {"type": "int", "low": 1, "high": 4},
    "activation": {"type": "choice", "values": ["relu", "tanh"], "weights": [3, 1]},
    "seed": 7,
    "tags": {"type": "const", "value": ["a", "b"]},
    "data": {"fraction": {"type": "real", "low": 0.1, "high": 1.0}},
    "optimizer": {
        "type": "join",
        "options": {"adam": {}, "sgd": {"momentum": {"type": "real", "low": 0.0, "high": 0.99}}},
    },
}


def test_a_space_file_is_the_space_written_in_python() -> None:
    python = {
        "lr": tf.Real(1e-5, 0.1, log=True),
        "layers": tf.Int(1, 4),
        "activation": tf.Choice("relu", "tanh", weights=[3, 1]),
        "seed": 7,
        "tags": tf.Const(["a", "b"]),
        "data": {"fraction": tf.Real(0.1, 1.0)},
        "optimizer": tf.Join(adam={}, sgd={"momentum": tf.Real(0.0, 0.99)}),
    }
    assert fingerprint(space_from_data(DATA)) == fingerprint(tf.convert(python))
    rng = np.random.default_rng(0)
    for config in tf.sample(space_from_data(DATA), rng, n=20):
        value = tf.build(space_from_data(DATA), config)
        assert value["optimizer"].option == config["optimizer"] and value["seed"] == 7


def test_json_and_yaml_files_load(tmp_path: Path) -> None:
    path = tmp_path / "space.json"
    path.write_text(json.dumps(DATA))
    assert fingerprint(load_space_file(path)) == fingerprint(space_from_data(DATA))
    yaml = pytest.importorskip("yaml", reason="YAML space files need PyYAML")
    path = tmp_path / "space.yaml"
    path.write_text(yaml.safe_dump(DATA))
    assert fingerprint(load_space_file(path)) == fingerprint(space_from_data(DATA))


def test_yaml_without_pyyaml_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "yaml", None)
    path = tmp_path / "space.yml"
    path.write_text("x: 1\n")
    with pytest.raises(tf.SpaceError, match=r"needs PyYAML \(pip install pyyaml\), or write it as JSON"):
        load_space_file(path)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"lr": {"type": "real", "low": 1, "high": 0}},
            "lr: Real: low < high must hold, but got low=1.0, high=0.0",
        ),
        (
            {"lr": {"type": "real", "low": 1}},
            "a real parameter needs the keys ['high', 'low']; ['high'] is missing",
        ),
        (
            {"lr": {"type": "reel"}},
            "a parameter's type must be one of ['choice', 'const', 'int', 'join', 'real'], but got lr.type='reel'",
        ),
        ({"lr": {"type": "real", "low": 0, "high": 1, "step": 2}}, "['step'] is unknown"),
        (
            {"lr": {"type": "real", "low": 0, "high": 1, "log": "yes"}},
            "log must be true or false, but got lr.log='yes'",
        ),
        (
            {"x": [1, 2]},
            'a list of values must be written {"type": "choice", "values": [...]}, but got x=[1, 2]',
        ),
        ({"c": {"type": "choice", "values": []}}, "values must be a non-empty list, but got c.values=[]"),
        (
            {"o": {"type": "join", "options": {"a": 3}}},
            "a join's option must be a mapping of its own parameters",
        ),
        (
            {"o": {"type": "join", "options": {"a": {"m": {"type": "int", "low": 2, "high": 1}}}}},
            "o.a.m: Int: low < high must hold",
        ),
        ([], "a space file must hold a non-empty mapping"),
    ],
)
def test_mistakes_name_the_parameter(data: object, message: str) -> None:
    with pytest.raises(tf.SpaceError) as info:
        space_from_data(data)
    assert message in str(info.value)


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "space.json"
    bad.write_text('{"x": ')
    with pytest.raises(tf.SpaceError, match="a space file must be valid JSON, but got path="):
        load_space_file(bad)
    other = tmp_path / "space.json5"
    other.write_text("{}")
    with pytest.raises(tf.SpaceError, match=r"must end in \.json, \.yaml or \.yml"):
        load_space_file(other)
    with pytest.raises(tf.SpaceError, match="must be an existing file"):
        load_space_file(tmp_path / "missing.json")
