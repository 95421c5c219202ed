"""The thesis's experiments run as examples: spaces build, losses are sane, studies reproduce."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import treefarm as tf
from tests.test_examples import EXAMPLES as EXAMPLES_DIR
from tests.test_examples import load

EXAMPLES = ["symbolic_regression", "kernel_search", "elastic_net", "mlp_layers"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_space_samples_and_builds(name: str) -> None:
    ex = load(name)
    configs = tf.sample(ex.space, 0, n=20)
    assert len(set(configs)) > 10  # the draws explore the space
    for config in configs:
        assert tf.validate(ex.space, config) == config
        value = tf.build(ex.space, config)
        assert value is not None
        assert math.isfinite(ex.objective(value))  # what the example's study would evaluate


def test_symbolic_regression_true_formula_is_at_the_noise_level() -> None:
    ex = load("symbolic_regression")
    truth = tf.build(ex.space, ex.TRUTH)
    assert str(truth) == "(x0 * sin(x1)) + x0"
    assert np.allclose(truth(ex.X), ex.X[:, 0] * np.sin(ex.X[:, 1]) + ex.X[:, 0])
    assert abs(ex.objective(truth) - ex.NOISE_MSE) < 0.5 * ex.NOISE_MSE
    random_losses = [ex.objective(tf.build(ex.space, c)) for c in tf.sample(ex.space, 0, n=50)]
    assert np.median(random_losses) > 100 * ex.NOISE_MSE


def test_symbolic_regression_overflow_is_a_large_finite_loss() -> None:
    ex = load("symbolic_regression")
    blowup = tf.Config({"E": "exp", "E.exp.0": "exp", "E.exp.0.exp.0": "exp", "E.exp.0.exp.0.exp.0": "x0"})
    assert ex.objective(tf.build(ex.space, blowup)) == ex.WORST


def _sum(a: str, b: str) -> tf.Config:
    return tf.Config({"E": "add", "E.add.0": a, "E.add.1": b})


def test_symbolic_regression_recognizes_equal_expressions() -> None:
    ex = load("symbolic_regression")
    a, b = _sum("x0", "x1"), _sum("x1", "x0")
    product = tf.Config({"E": "mul", "E.mul.0": "x0", "E.mul.1": "x1"})
    left = tf.Config(
        {"E": "add", "E.add.0": "add", "E.add.0.add.0": "x0", "E.add.0.add.1": "x1", "E.add.1": "x0"}
    )
    right = tf.Config(
        {"E": "add", "E.add.0": "x0", "E.add.1": "add", "E.add.1.add.0": "x1", "E.add.1.add.1": "x0"}
    )
    for config in (a, b, product, left, right):
        tf.validate(ex.space, config)
    assert tf.space.canonical(ex.space, a) == tf.space.canonical(ex.space, b)
    assert tf.space.canonical(ex.space, a) != tf.space.canonical(ex.space, product)
    assert tf.space.canonical(ex.space, left) == tf.space.canonical(ex.space, right)


def test_symbolic_regression_constants_apart_in_the_fourth_digit_are_different_points() -> None:
    ex = load("symbolic_regression")
    a, b = (tf.Config({"E": "c", "E.c.0": v}) for v in (0.12341, 0.12342))
    assert str(tf.build(ex.space, a)) == str(tf.build(ex.space, b)) == "0.123"
    assert tf.space.canonical(ex.space, a) != tf.space.canonical(ex.space, b)


def test_an_equal_expression_is_never_evaluated_twice() -> None:
    ex = load("symbolic_regression")
    study = tf.Study.create(space=ex.space, algo="random", seed=0)
    study.optimize(ex.objective, n_trials=60)
    keys = [t.system_attrs.get("canonical") for t in study.trials]
    assert len(keys) == len(set(keys)) == 60


def _cheap(name: str) -> tuple[Any, Callable[..., float], int]:
    """The example, its objective made cheap for a test, and how many trials to run."""
    ex = load(name)
    if name == "mlp_layers":
        return ex, functools.partial(ex.objective, max_iter=5), 4
    return ex, ex.objective, 20 if name == "symbolic_regression" else 10


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_run_and_reproduce(name: str) -> None:
    ex, objective, n = _cheap(name)
    runs = [tf.minimize(objective, ex.space, algo="random", max_evals=n, seed=1, storage=None) for _ in "ab"]
    assert np.isfinite(runs[0].best_value) and len(runs[0].trials) == n
    assert [t.params for t in runs[0].trials] == [t.params for t in runs[1].trials]
    assert [t.value for t in runs[0].trials] == [t.value for t in runs[1].trials]


def test_elastic_net_a_light_penalty_matches_least_squares() -> None:
    ex = load("elastic_net")
    light = ex.objective({"alpha": 1e-4, "l1_ratio": 0.5})
    heavy = ex.objective({"alpha": 10.0, "l1_ratio": 0.0})
    assert 2800 < light < 3200 < 5000 < heavy


def test_mlp_layers_each_layer_has_its_own_size() -> None:
    ex = load("mlp_layers")
    sizes = [tf.build(ex.space, c)["layers"] for c in tf.sample(ex.space, 0, n=60)]
    assert {len(s) for s in sizes} == {1, 2, 3}
    assert any(len(set(s)) > 1 for s in sizes if len(s) > 1)
    assert all(4 <= n <= 128 for s in sizes for n in s)


def test_mlp_layers_a_sensible_network_learns_digits() -> None:
    ex = load("mlp_layers")
    params = {"learning_rate": 1e-2, "alpha": 1e-4, "layers": (32,)}
    assert ex.objective(params, max_iter=15) < 0.1


def test_kernel_search_a_sensible_kernel_beats_a_bad_one() -> None:
    from sklearn.gaussian_process import kernels as k

    ex = load("kernel_search")
    good = k.ConstantKernel(1.0, "fixed") * k.RBF(20.0, "fixed") + k.ExpSineSquared(
        1.0, 1.0, "fixed", "fixed"
    )
    assert ex.objective(good) < 0.5 * ex.objective(k.WhiteKernel(0.1, "fixed"))


def test_kernel_search_builds_sums_and_products_of_base_kernels() -> None:
    ex = load("kernel_search")
    texts = [str(tf.build(ex.space, c)) for c in tf.sample(ex.space, 2, n=40)]
    assert any(" + " in s for s in texts) and any(" * " in s for s in texts)
    assert any("ExpSineSquared" in s for s in texts)


def test_the_documented_command_runs_and_resumes_a_grammar_study(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from treefarm.cli.main import main

    path, db = str(EXAMPLES_DIR / "symbolic_regression.py"), str(tmp_path / "sr.db")
    assert main(["run", path, "--algo", "random", "--n-trials", "15", "--storage", db, "--seed", "0"]) == 0
    assert main(["run", path, "--algo", "random", "--n-trials", "30", "--storage", db, "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "30 trials" in out and "Expr(" not in out
    study = tf.Study.load("symbolic_regression", space=load("symbolic_regression").space, storage=db)
    keys = [t.system_attrs.get("canonical") for t in study.trials]
    assert len(set(keys)) == len(keys) == 30
