"""Configurations: validation messages, JSON round trips, building values."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treefarm.exceptions import ConfigError
from treefarm.space import Choice, Config, Int, Join, Real, Shared, build, op, sample, validate

SVM = {
    "C": Real(1e-3, 1e3, log=True),
    "kernel": Join(
        rbf={"name": "rbf", "gamma": Real(1e-4, 1.0, log=True)},
        poly={"name": "poly", "degree": Int(2, 5)},
    ),
}


@pytest.mark.parametrize(
    ("config", "pattern"),
    [
        ({"C": 1.0}, r"decision at kernel is missing"),
        ({"c": 1.0, "kernel": "poly"}, r"decision at C is missing.*no address of the space: \['c'\]\)"),
        ({"C": 1.0, "kernel": "rbf"}, r"decision at kernel.rbf.gamma is missing"),
        (
            {"C": 1e4, "kernel": "poly", "kernel.poly.degree": 2},
            r"C must lie in \[0.001, 1000\], but got C=10000.0",
        ),
        ({"C": "big", "kernel": "poly", "kernel.poly.degree": 2}, r"C must be a finite number.*C='big'"),
        ({"C": 1.0, "kernel": "poly", "kernel.poly.degree": 2.5}, r"must be an integer.*degree=2.5"),
        ({"C": 1.0, "kernel": "sigmoid"}, r"kernel must be the label of an option, one of \['rbf', 'poly'\]"),
        (
            {"C": 1.0, "kernel": "poly", "kernel.poly.degree": 2, "kernel.rbf.gamma": 0.1},
            r"kernel.rbf.gamma=0.1 \(an unknown address, or a branch this config did not take\)",
        ),
        ({"C": 1.0, "kernel": "poly", "kernel.poly.degree": 2, "lr": 0.1}, r"lr=0.1"),
        ({"C": float("nan"), "kernel": "poly", "kernel.poly.degree": 2}, r"C must be a finite number"),
    ],
)
def test_invalid_config_names_address_and_value(config: dict[str, object], pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern):
        validate(SVM, config)


def test_choice_builds_the_value_not_its_index() -> None:
    space = {"act": Choice("relu", "tanh"), "fn": Choice(len, sum)}
    assert not space["act"].by_index and space["fn"].by_index
    cfg = validate(space, {"act": "tanh", "fn": 1})
    assert build(space, cfg) == {"act": "tanh", "fn": sum}


def test_choice_is_type_exact() -> None:
    with pytest.raises(ConfigError, match="flag must be one of"):
        validate({"flag": Choice(True, False)}, {"flag": 1})


def test_build_calls_ops_with_positional_and_keyword_arguments() -> None:
    calls: list[tuple[tuple[object, ...], dict[str, object]]] = []

    def model(depth: int, *, width: float, act: str) -> str:
        calls.append(((depth,), {"width": width, "act": act}))
        return f"{depth}-{width}-{act}"

    space = op(model)(Int(1, 3), width=Real(0, 1), act=Choice("relu", "tanh"))
    cfg = validate(space, {"0": 2, "width": 0.5, "act": "relu"})
    assert build(space, cfg) == "2-0.5-relu"
    assert calls == [((2,), {"width": 0.5, "act": "relu"})]


def test_shared_subspace_is_one_object_in_the_instance() -> None:
    w = Shared(Real(0, 1), key="w")
    space = {"enc": [w, Int(1, 3)], "dec": [w, Int(1, 3)]}
    cfg = sample(space, 3)
    assert [k for k in cfg if k.startswith("@")] == ["@w"]
    value = build(space, cfg)
    assert value["enc"][0] == value["dec"][0] == cfg["@w"]

    def matrix(n: int) -> list[int]:
        return [0] * n

    m = Shared(op(matrix)(Int(1, 4)), key="m")
    built = build([m, m], sample([m, m], 0))
    assert built[0] is built[1]


def test_numpy_scalars_are_stored_as_python_scalars() -> None:
    np = pytest.importorskip("numpy")
    cfg = Config({"a": np.float64(0.5), "b": np.int64(3)})
    assert type(cfg["a"]) is float and type(cfg["b"]) is int


def test_config_rejects_non_scalar_decisions() -> None:
    with pytest.raises(ConfigError, match=r"JSON scalar.*a=\[1\]"):
        Config({"a": [1]})


def test_config_equality_and_hash() -> None:
    a = Config({"x": 1, "y": "b"})
    assert a == Config({"y": "b", "x": 1}) == {"x": 1, "y": "b"}
    assert hash(a) == hash(Config({"y": "b", "x": 1}))
    assert a != Config({"x": True, "y": "b"})


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_configs_round_trip_through_json(seed: int) -> None:
    cfg = sample(SVM, seed)
    again = Config.from_json(cfg.to_json())
    assert again == cfg
    assert validate(SVM, again) == cfg
    assert json.loads(cfg.to_json()) == cfg.to_dict()
