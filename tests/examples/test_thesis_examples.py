"""The thesis's experiments run as examples: spaces build, losses are sane, studies reproduce."""

from __future__ import annotations

import numpy as np
import pytest

import treefarm as tf
from tests.test_examples import load


def test_symbolic_regression_true_formula_is_at_the_noise_level() -> None:
    ex = load("symbolic_regression")
    x0, x1 = ex.Expr("x0"), ex.Expr("x1")
    truth = ex.Expr("add", (ex.Expr("mul", (x0, ex.Expr("sin", (x1,)))), x0))
    assert str(truth) == "((x0 * sin(x1)) + x0)"
    assert ex.objective(truth) < 2 * ex.NOISE_MSE
    random_losses = [ex.objective(tf.build(ex.space, c)) for c in tf.sample(ex.space, 0, n=50)]
    assert np.median(random_losses) > 100 * ex.NOISE_MSE


def test_symbolic_regression_recognizes_equal_expressions() -> None:
    ex = load("symbolic_regression")
    a = tf.Config({"E": "add", "E.add.0": "x0", "E.add.1": "x1"})
    b = tf.Config({"E": "add", "E.add.0": "x1", "E.add.1": "x0"})
    tf.validate(ex.space, a)
    assert tf.space.canonical(ex.space, a) == tf.space.canonical(ex.space, b)


def test_an_equal_expression_is_never_evaluated_twice() -> None:
    ex = load("symbolic_regression")
    study = tf.Study.create(space=ex.space, algo="random", seed=0)
    study.optimize(ex.objective, n_trials=60)
    keys = [t.system_attrs.get("canonical") for t in study.trials]
    assert len(keys) == len(set(keys)) == 60


@pytest.mark.parametrize("name", ["symbolic_regression", "kernel_search", "elastic_net", "mlp_layers"])
def test_examples_run_and_reproduce(name: str) -> None:
    ex = load(name)
    n = 4 if name in ("mlp_layers", "kernel_search") else 8
    a = tf.minimize(ex.objective, ex.space, algo="random", max_evals=n, seed=1, storage=None)
    b = tf.minimize(ex.objective, ex.space, algo="random", max_evals=n, seed=1, storage=None)
    assert np.isfinite(a.best_value) and a.best_value == b.best_value


def test_mlp_layers_each_layer_has_its_own_size() -> None:
    ex = load("mlp_layers")
    sizes = [tf.build(ex.space, c)["layers"] for c in tf.sample(ex.space, 0, n=60)]
    assert {len(s) for s in sizes} == {1, 2, 3}
    assert any(len(set(s)) > 1 for s in sizes if len(s) > 1)


def test_kernel_search_a_sensible_kernel_beats_a_bad_one() -> None:
    from sklearn.gaussian_process import kernels as k

    ex = load("kernel_search")
    good = k.ConstantKernel(1.0, "fixed") * k.RBF(20.0, "fixed") + k.ExpSineSquared(
        1.0, 1.0, "fixed", "fixed"
    )
    assert ex.objective(good) < 0.5 * ex.objective(k.WhiteKernel(0.1, "fixed"))
