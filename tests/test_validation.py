"""The library-wide argument checks: the rule, then name=value, in the caller's error type."""

from __future__ import annotations

import numpy as np
import pytest

from treefarm.exceptions import ConfigError, SpaceError, StudyError
from treefarm.validation import (
    check_bool,
    check_callable,
    check_has_methods,
    check_int,
    check_integral,
    check_nonnegative,
    check_one_of,
    check_positive,
    check_range,
    check_type,
    is_integer,
    is_integral,
    is_number,
)


def test_bools_are_not_numbers_and_strings_are_not_bools() -> None:
    assert not is_integer(True) and not is_integral(True) and not is_number(False)
    assert is_integral(np.int64(3)) and not is_integer(np.int64(3))
    assert is_number(np.float64(0.5)) and is_number(2)
    with pytest.raises(ConfigError, match=r"^explore must be True or False, but got explore='no'$"):
        check_bool("explore", "no")
    with pytest.raises(ConfigError, match=r"^n_startup must be an integer >= 1, but got n_startup=True$"):
        check_int("n_startup", True)


def test_the_error_type_is_the_callers() -> None:
    with pytest.raises(StudyError, match=r"^n_workers must be an integer >= 1 or None, but got n_workers=0$"):
        check_int("n_workers", 0, error=StudyError, or_none=True)
    check_int("n_workers", None, error=StudyError, or_none=True)
    with pytest.raises(SpaceError, match=r"^Var max_depth must be an integer >= 1, but got max_depth=0$"):
        check_int("max_depth", 0, error=SpaceError, owner="Var")


@pytest.mark.parametrize("value", [0, -1.0, float("nan"), "1", None])
def test_positive_refuses_what_is_not_above_zero(value: object) -> None:
    with pytest.raises(ConfigError, match=r"^bandwidth must be a number > 0, but got bandwidth="):
        check_positive("bandwidth", value)


def test_nonnegative_and_range_bounds_are_inclusive() -> None:
    check_nonnegative("min_delta", 0.0)
    check_range("gamma", 0.0, 0.0, 1.0)
    check_range("gamma", 1, 0.0, 1.0)
    with pytest.raises(StudyError, match=r"^min_delta must be a number >= 0, but got min_delta=-0.1$"):
        check_nonnegative("min_delta", -0.1, error=StudyError)
    with pytest.raises(ConfigError, match=r"^gamma must lie in \[0, 1\], but got gamma=1.5$"):
        check_range("gamma", 1.5, 0.0, 1.0)


def test_integral_takes_numpy_integers_and_gives_an_int() -> None:
    assert check_integral("step", np.int64(3), 0) == 3 and type(check_integral("step", np.int64(3), 0)) is int
    for bad in (True, 2.0, -1, "1"):
        with pytest.raises(StudyError, match=rf"^step must be an integer >= 0, but got step={bad!r}$"):
            check_integral("step", bad, 0, error=StudyError)


def test_none_is_taken_only_when_allowed() -> None:
    check_bool("progress", None, or_none=True)
    check_callable("constraints_func", None, or_none=True)
    with pytest.raises(StudyError, match=r"^progress must be True, False or None, but got progress='yes'$"):
        check_bool("progress", "yes", error=StudyError, or_none=True)
    with pytest.raises(ConfigError, match=r"^objective must be callable, but got objective=None$"):
        check_callable("objective", None)
    with pytest.raises(ConfigError, match=r"^constraints_func must be callable or None, but got constraints_func=3$"):
        check_callable("constraints_func", 3, or_none=True)


def test_finite_refuses_infinity() -> None:
    check_nonnegative("eta", float("inf"))
    with pytest.raises(ConfigError, match=r"^eta must be a finite number >= 0, but got eta=inf$"):
        check_nonnegative("eta", float("inf"), finite=True)


def test_an_upper_bound_is_named_with_its_reason() -> None:
    with pytest.raises(SpaceError, match=r"^Var max_depth must be an integer in \[1, 100\] \(too deep\), but got max_depth=101$"):
        check_int("max_depth", 101, error=SpaceError, owner="Var", maximum=100, why="too deep")
    check_int("max_depth", 100, error=SpaceError, owner="Var", maximum=100)


def test_a_type_check_names_what_it_takes_and_takes_a_bool_only_as_a_bool() -> None:
    check_type("n_jobs", np.int64(2), (int, np.integer, type(None)), "an integer or None")
    check_type("verbose", np.True_, (int, bool), "an integer")
    with pytest.raises(ConfigError, match=r"^n_jobs must be an integer or None, but got n_jobs=True$"):
        check_type("n_jobs", True, (int, type(None)), "an integer or None")
    with pytest.raises(StudyError, match=r"^n_iter must be an integer, but got n_iter='2'$"):
        check_type("n_iter", "2", (int,), "an integer", error=StudyError)


def test_one_of_lists_the_names_and_what_else_is_taken() -> None:
    check_one_of("algo", "tpe", ["tpe", "gp"])
    with pytest.raises(ConfigError, match=r"^algo must be one of \['tpe', 'gp'\] or an Optimizer, but got algo=3$"):
        check_one_of("algo", 3, ["tpe", "gp"], also=" or an Optimizer")


def test_has_methods_names_the_missing_ones() -> None:
    check_has_methods("estimator", [], ["append", "pop"])
    with pytest.raises(ConfigError, match=r"^estimator must be an object with the methods \['fit'\], but got "):
        check_has_methods("estimator", "svc", ["fit"])
