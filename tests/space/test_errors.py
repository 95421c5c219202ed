"""Every malformed space raises an error whose message names the parameter."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import treefarm as tf
from treefarm.exceptions import SpaceError
from treefarm.space import Choice, Family, I, Int, Join, Normal, Op, R, Real, Shared, Var, convert, op


@pytest.mark.parametrize(
    ("make", "pattern"),
    [
        (lambda: Real(3.0, 1.0), r"low < high must hold, but got low=3.0, high=1.0"),
        (lambda: Real(0.0, 1.0, log=True), r"log=True needs low > 0, but got low=0.0"),
        (lambda: Real(0.0, float("inf")), r"finite, but got low=0.0, high=inf"),
        (lambda: Real("a", 1.0), r"low must be a number, but got low='a'"),
        (lambda: Int(1, 2.5), r"high must be an integer, but got high=2.5"),
        (lambda: Int(5, 5), r"low < high must hold, but got low=5.0, high=5.0"),
        (lambda: Real(0, 1, prior="normal"), r"prior must be Uniform\(\) or Normal"),
        (lambda: Normal(0.0, -1.0), r"sigma > 0, but got mu=0.0, sigma=-1.0"),
        (lambda: Choice(), r"at least one value"),
        (lambda: Choice("a", "a"), r"distinct, but got a repeated value='a'"),
        (lambda: Choice("a", "b", weights=[1.0]), r"one weight per option.*n_weights=1, n_options=2"),
        (lambda: Choice("a", "b", weights=[1.0, -1.0]), r"weights must be finite, >= 0"),
        (lambda: Join(a=Real(0, 1), b=Real(0, 1), weights=[0.0, 0.0]), r"not all 0"),
        (lambda: Family((1.0,)), r"Family member 0 must be a space, but got Family member 0=1.0"),
        (lambda: convert({1: Real(0, 1)}), r"string keys, but got key=1"),
        (lambda: convert({"a.b": Real(0, 1)}), r"without '.'.*key='a.b'"),
        (lambda: convert({"x": 1}) * convert({"x": 2}), r"keyword 'x' is present on both sides"),
        (lambda: convert([Real(0, 1)]).project(3), r"index=3, positions=1"),
        (lambda: convert({"a": 1, "b": 2}).rename({"a": "b"}), r"share a keyword"),
        (lambda: Op(42), r"callable, but got func=42"),
        (lambda: op(lambda x: x), r"name that is an identifier.*name='<lambda>'"),
        (lambda: (Real(0, 1) | Real(1, 2))(Real(0, 1)), r"option '0' is not an op"),
        (lambda: Var("G", max_depth=0), r"max_depth must be an integer in \[1, 100\] \(deeper expansions exceed Python.s recursion limit\), but got max_depth=0"),
        (lambda: Shared(Real(0, 1), key="@x"), r"key='@x'"),
        (lambda: R[0:1:"lin"], r"only be 'log', but got step='lin'"),
        (lambda: I[3], r"takes a slice"),
    ],
)
def test_malformed_space_names_the_parameter(make, pattern: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SpaceError, match=pattern):
        make()


def test_join_labels_must_be_distinct() -> None:
    with pytest.raises(SpaceError, match="repeated label='a'"):
        Join(Join(a=Real(0, 1)), a=Real(0, 2))


def test_spaces_are_immutable() -> None:
    with pytest.raises(AttributeError, match="immutable"):
        Real(0, 1).low = 5  # type: ignore[misc]


def test_errors_are_value_errors_too() -> None:
    with pytest.raises(ValueError):
        Real(1, 0)


def test_numpy_values_are_plain_values_in_spaces() -> None:
    import numpy as np

    space = {
        "alpha": tf.Choice(*np.linspace(0.1, 0.5, 5)),
        "act": tf.Choice(*np.array(["relu", "tanh"])),
        "n": tf.Int(np.int64(1), np.int64(9)),
        "lr": tf.Real(np.float32(0.0), 1.0),
    }
    result = tf.minimize(lambda p: p["alpha"] + p["n"] + p["lr"], space, algo="random", max_evals=6, storage=None, seed=0)
    assert type(result.best_params["alpha"]) is float and type(result.best_params["act"]) is str
    assert result.best_params["act"] in ("relu", "tanh") and 1 <= result.best_params["n"] <= 9


@pytest.mark.parametrize(
    ("make", "pattern"),
    [
        (lambda: tf.Real(-1e308, 1e308), r"high - low must be a finite number"),
        (lambda: tf.Int(0, 10**400), r"high must fit in a float"),
        (lambda: tf.Choice(float("nan"), 1.0), r"NaN does not"),
    ],
)
def test_spaces_nothing_could_sample_are_refused_by_name(make: Callable[[], object], pattern: str) -> None:
    with pytest.raises(SpaceError, match=pattern):
        make()


def test_a_loss_beyond_float_range_fails_its_trial_and_the_study_goes_on() -> None:
    losses = iter([10**400, 1.0])
    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, seed=0)
    study.optimize(lambda p: next(losses), 2)
    assert [t.state.value for t in study.trials] == ["failed", "complete"]
    assert "non-finite" in study.trials[0].system_attrs["fail_reason"]


def test_minimize_knows_a_space_that_applies_a_bound_method_or_a_partial() -> None:
    import functools

    calls: list[float] = []

    class Model:
        def loss(self, x: float) -> float:
            calls.append(x)
            return (x - 1) ** 2

    model = Model()
    result = tf.minimize(model.loss, tf.op(model.loss)(tf.Real(-3, 3)), algo="random", max_evals=3, storage=None, seed=0)
    assert len(calls) == 3 and result.best_value == min((x - 1) ** 2 for x in calls)
    shifted = functools.partial(lambda x, s: (x - 1) ** 2 + s, s=0.5)
    result = tf.minimize(shifted, tf.op(shifted, name="f")(tf.Real(-3, 3)), algo="random", max_evals=3, storage=None, seed=0)
    assert result.best_value == shifted(result.best_params)


def test_one_shared_key_for_two_different_spaces_is_refused() -> None:
    with pytest.raises(SpaceError, match=r"one key must name one shared space.*key='w'"):
        tf.sample({"lr": Shared(Real(0, 1), key="w"), "act": Shared(Choice("x", "y"), key="w")}, 0)
    same = {"a": Shared(Real(0, 1), key="w"), "b": Shared(Real(0, 1), key="w")}
    assert dict(tf.sample(same, 0)).keys() == {"@w"}


def test_two_different_ops_under_one_name_are_refused() -> None:
    """Canonical forms know an op by its name: f(1, 2) of an addition would be taken
    for f(1, 2) of a subtraction."""
    import operator

    plus = op(operator.add, name="f", commutative=True)
    minus = op(operator.sub, name="f")
    with pytest.raises(SpaceError, match=r"one name must name one op.*name='f'"):
        tf.sample(plus(Int(1, 2), Int(1, 2)) | minus(Int(1, 2), Int(1, 2)), 0)
    again = op(operator.add, name="f", commutative=True)  # the same op made twice is one op
    tf.sample(plus(Int(1, 2), Int(1, 2)) | again(Int(3, 4), Int(1, 2)), 0)
