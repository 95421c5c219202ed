"""What a space cannot record or search is refused where it is written: a set (its order
follows the hash seed, so the study could not be reopened in another process)."""

from __future__ import annotations

import pytest

import treefarm as tf


@pytest.mark.parametrize("member", [{"a", "b", "c"}, frozenset({1, 2})])
@pytest.mark.parametrize("where", ["dict", "choice", "list"])
def test_a_set_as_a_space_member_is_refused_naming_the_remedy(member: object, where: str) -> None:
    with pytest.raises(tf.SpaceError) as info:
        if where == "dict":
            tf.Study.create(space={"opt": member}, algo="random")
        elif where == "choice":
            tf.Choice("x", member)
        else:
            tf.Study.create(space={"layers": [tf.Int(1, 3), member]}, algo="random")
    assert "a set has no order" in str(info.value) and "tf.Choice(*sorted(...))" in str(info.value)


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda: tf.Int(0, 10**30), "Int: high must lie in [-2**53, 2**53]"),
        (lambda: tf.Int(-(2**60), 0), "Int: low must lie in [-2**53, 2**53]"),
        (lambda: tf.Var("E", max_depth=10**6), "Var max_depth must be an integer in [1, 100]"),
    ],
)
def test_what_cannot_be_searched_is_refused_at_definition(make: object, said: str) -> None:
    with pytest.raises(tf.SpaceError, match=said.replace("[", r"\[").replace("*", r"\*")):
        make()  # type: ignore[operator]


def test_the_largest_allowed_bounds_are_searched() -> None:
    study = tf.Study.create(space={"n": tf.Int(-(2**53), 2**53)}, algo="gp", seed=0)
    study.optimize(lambda p: abs(p["n"]) / 2**53, 7, catch=())
    assert all(t.state is tf.TrialState.COMPLETE for t in study.trials)
