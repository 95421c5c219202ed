"""Random, mostly invalid, arguments to the public constructors: each either builds or
raises a documented error with a message (a TreefarmError, or Python's TypeError for a
call the signature refuses), never an internal error (AttributeError, IndexError,
OverflowError, RecursionError...). Deterministic (``derandomize``) so CI sees one run."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import treefarm as tf

ODD: list[Any] = [
    None, True, False, 0, 1, -1, 2, 0.5, -0.0, 1e-300, 1e300, 10**30, -(10**30), math.nan, math.inf,
    -math.inf, "", "   ", "no", "log", "minimize", "maximize", "random", "tpe", "x", "\x00", "a" * 600,
    [], [1.0], [1.0, 2.0], ["minimize", "maximize"], (), {}, {"a": 1}, {1, 2}, b"x", object(),
]
values = st.sampled_from(ODD) | st.integers() | st.floats() | st.text(max_size=20)
FUZZ = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


def _attempt(make: Callable[[], object]) -> None:
    try:
        make()
    except tf.TreefarmError as exc:
        assert str(exc).strip(), f"{type(exc).__name__} without a message"
    except TypeError as exc:  # a call the signature refuses (a missing or unknown argument)
        assert "argument" in str(exc), exc


@FUZZ
@given(low=values, high=values, log=values)
def test_real_and_int(low: object, high: object, log: object) -> None:
    _attempt(lambda: tf.Real(low, high, log=log))  # type: ignore[arg-type]
    _attempt(lambda: tf.Int(low, high, log=log))  # type: ignore[arg-type]


@FUZZ
@given(options=st.lists(values, max_size=4), weights=values)
def test_choice_and_join(options: list[object], weights: object) -> None:
    _attempt(lambda: tf.Choice(*options, weights=weights))  # type: ignore[arg-type]
    _attempt(lambda: tf.Join(*options, weights=weights))  # type: ignore[arg-type]
    _attempt(lambda: tf.Join(**{f"o{i}": v for i, v in enumerate(options)}))


@FUZZ
@given(name=values, algo=values, direction=values, directions=values, seed=values, flag=values, space=values)
def test_study_create(
    name: object, algo: object, direction: object, directions: object, seed: object, flag: object, space: object
) -> None:
    def create() -> None:
        study = tf.Study.create(
            name,  # type: ignore[arg-type]
            space={"x": tf.Real(0, 1), "other": space},
            algo=algo,  # type: ignore[arg-type]
            direction=direction,  # type: ignore[arg-type]
            directions=directions,  # type: ignore[arg-type]
            seed=seed,  # type: ignore[arg-type]
            load_if_exists=flag,  # type: ignore[arg-type]
        )
        study.optimize(lambda p: p["x"] if len(study.directions) == 1 else [p["x"]] * len(study.directions), 2)
        assert len(study.trials) == 2

    _attempt(create)


@FUZZ
@given(a=values, b=values, c=values)
def test_pruners(a: object, b: object, c: object) -> None:
    _attempt(lambda: tf.MedianPruner(n_startup_trials=a, n_warmup_steps=b, interval_steps=c))  # type: ignore[arg-type]
    _attempt(lambda: tf.PercentilePruner(a, n_startup_trials=b))  # type: ignore[arg-type]
    _attempt(lambda: tf.SuccessiveHalvingPruner(min_resource=a, reduction_factor=b))  # type: ignore[arg-type]
    _attempt(lambda: tf.HyperbandPruner(min_resource=a, max_resource=b, reduction_factor=c))  # type: ignore[arg-type]
    _attempt(lambda: tf.ThresholdPruner(lower=a, upper=b))  # type: ignore[arg-type]
    _attempt(lambda: tf.PatiencePruner(a, min_delta=b))  # type: ignore[arg-type]
