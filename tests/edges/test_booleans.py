"""A flag of the API takes True or False and nothing else: ``log="no"`` (truthy) never
turns a log scale on, and each refusal names the argument and the value."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import treefarm as tf

SPACE = {"x": tf.Real(0, 1)}


@pytest.mark.parametrize("value", ["no", "false", "False", 0, 1, None, [], np.float64(1.0)])
@pytest.mark.parametrize(
    ("make", "error", "name"),
    [
        (lambda v: tf.Real(1e-3, 1, log=v), tf.SpaceError, "Real log"),
        (lambda v: tf.Int(1, 100, log=v), tf.SpaceError, "Int log"),
        (lambda v: tf.op(lambda a, b: a, name="f", commutative=v), tf.SpaceError, "commutative"),
        (lambda v: tf.Study.create(space=SPACE, load_if_exists=v), tf.StudyError, "load_if_exists"),
        (lambda v: tf.Study.create(space=SPACE, allow_space_change=v), tf.StudyError, "allow_space_change"),
        (lambda v: tf.Study.create(space=SPACE, requeue_interrupted=v), tf.StudyError, "requeue_interrupted"),
    ],
)
def test_a_flag_that_is_not_a_bool_is_refused_naming_it(
    make: Callable[[Any], object], error: type[Exception], name: str, value: object
) -> None:
    with pytest.raises(error) as info:
        make(value)
    assert f"{name} must be True or False, but got" in str(info.value)


@pytest.mark.parametrize("value", ["yes", 1, 0.0])
def test_progress_takes_a_bool_or_none(value: object) -> None:
    study = tf.Study.create(space=SPACE, algo="random")
    with pytest.raises(tf.StudyError, match=r"progress must be True, False or None, but got progress="):
        study.optimize(lambda p: p["x"], 1, progress=value)  # type: ignore[arg-type]
    assert study.trials == []


def test_numpy_bools_are_bools() -> None:
    assert tf.Real(1e-3, 1, log=np.bool_(True)).log is True
    assert tf.Real(1e-3, 1, log=False).log is False


def test_the_message_names_the_owner_and_the_argument_as_written() -> None:
    with pytest.raises(tf.SpaceError, match=r"^Real log must be True or False, but got log='no'$"):
        tf.Real(1e-3, 1, log="no")  # type: ignore[arg-type]
