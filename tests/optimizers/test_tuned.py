"""The settings the benchmark chose between are not constructor options, yet a study that
ran with one (stored by an earlier release, or a benchmark variant) reopens running as it ran;
a stored setting this release does not have is refused by name."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

import treefarm as tf
from treefarm.exceptions import StudyError
from treefarm.optimizers.base import variant
from treefarm.optimizers.gp import GP
from treefarm.optimizers.registry import from_spec, spec_of
from treefarm.optimizers.tpe import TPE

SPACE = {"x": tf.Real(0, 1), "y": tf.Real(0, 1)}


def _stored(tmp_path: Path, spec: dict) -> tf.Study:
    """A study whose stored optimizer is ``spec`` (as an earlier release wrote it), reopened."""
    study = tf.Study.create(name="s", space=SPACE, storage=tmp_path / "s.db", algo="gp", seed=0)
    study.storage.set_study_attr(study.study_id, "optimizer", spec)
    return tf.Study.load("s", space=SPACE, storage=tmp_path / "s.db")


@pytest.mark.parametrize("cls", [GP, TPE, tf.Auto, tf.GrammarSearch])
def test_the_constructor_takes_no_tuned_setting(cls: type) -> None:
    assert not set(cls.tuned) & set(inspect.signature(cls).parameters)
    assert spec_of(cls())["options"].keys() >= set(cls.tuned)  # stored beside the options


def test_a_study_stored_with_a_setting_no_longer_an_option_reopens_as_it_ran(tmp_path: Path) -> None:
    """The spec of a release whose ``GP()`` took ``hint_prior`` and ``explore_every``:
    reopened without ``algo``, the GP runs at them and suggests what that GP suggests."""
    spec = spec_of(GP())
    spec["options"].update(hint_prior="plain", explore_every=1)
    spec["options"].pop("ehvi_exact")  # not stored before it existed
    reopened = _stored(tmp_path, spec).optimizer
    assert isinstance(reopened, GP)
    assert reopened.tuned_settings() | {"ehvi_exact": 2} == GP().tuned_settings() | {
        "hint_prior": "plain",
        "explore_every": 1,
    }
    ran = variant(GP, {"hint_prior": "plain", "explore_every": 1})
    history = tf.History(
        complete=tuple(
            tf.Observation(c, float((c["x"] - 0.3) ** 2 + c["y"]))
            for c in tf.sample(tf.convert(SPACE), np.random.default_rng(0), n=12)
        )
    )
    assert reopened.suggest(SPACE, history, 2, np.random.default_rng(1)) == ran.suggest(
        SPACE, history, 2, np.random.default_rng(1)
    )


def test_ehvi3_reopens_as_expected_hypervolume_in_closed_form_for_three(tmp_path: Path) -> None:
    spec = spec_of(GP())
    spec["options"]["objectives"] = "ehvi3"
    del spec["options"]["ehvi_exact"]
    reopened = _stored(tmp_path, spec).optimizer
    assert reopened.objectives == "ehvi" and reopened.tuned_settings()["ehvi_exact"] == 3
    assert spec_of(from_spec(spec_of(reopened)))["options"] == spec_of(reopened)["options"]


def test_a_stored_setting_this_release_does_not_have_is_refused_by_name(tmp_path: Path) -> None:
    spec = spec_of(GP())
    spec["options"]["warp_layers"] = 2
    with pytest.raises(StudyError, match=r"stored_algo='gp', warp_layers=2"):
        _stored(tmp_path, spec)
    with pytest.raises(StudyError, match="warp_layers=2"):
        from_spec({"algo": "auto", "options": {"gp": {"optimizer": spec}}, "exact": True})


@pytest.mark.parametrize(
    ("cls", "tuned"),
    [(GP, {"explore_stalls": False, "output": "warp", "ehvi_exact": 3}), (TPE, {"forget": None, "constraints": "rank"})],
)
def test_a_variant_is_stored_and_rebuilt_with_its_settings(cls: type, tuned: dict) -> None:
    made = variant(cls, tuned, n_startup=7)
    rebuilt = from_spec(spec_of(made))
    assert rebuilt.tuned_settings() == made.tuned_settings() == cls().tuned_settings() | tuned
    assert rebuilt.n_startup == 7 and repr(rebuilt) == repr(made)
    assert all(f"{k}={v!r}" in repr(made) for k, v in tuned.items())  # told apart from cls()
    assert "forget" not in repr(TPE())
