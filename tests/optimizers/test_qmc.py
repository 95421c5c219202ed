"""Quasi-random search: conformance, trial i is Sobol point i, resumes continue the sequence."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import qmc

import treefarm as tf
from treefarm import QMC, History, Int, Join, Observation, Optimizer, Real
from treefarm.optimizers.qmc import sobol_points
from treefarm.testing.optimizer_suite import OptimizerSuite


class TestQMCConformance(OptimizerSuite):
    supports_recursive = False

    @pytest.fixture
    def optimizer_factory(self) -> Callable[[], Optimizer]:
        return QMC


def test_sobol_points_continue_one_sequence() -> None:
    whole = sobol_points(3, 0, 16, seed=9)
    assert np.array_equal(np.vstack([sobol_points(3, 0, 5, 9), sobol_points(3, 5, 11, 9)]), whole)
    assert qmc.discrepancy(whole) < qmc.discrepancy(np.random.default_rng(0).random((16, 3)))


def test_trial_i_is_point_i_of_the_scrambled_sequence() -> None:
    space = {"x": Real(0, 1), "y": Real(-2, 2)}
    study = tf.Study.create(space=space, algo=QMC(seed=4), seed=0)
    study.optimize(lambda p: p["x"], n_trials=8)
    u = sobol_points(2, 0, 8, seed=4)
    got = np.array([[t.params["x"], (t.params["y"] + 2) / 4] for t in study.trials])
    assert np.allclose(got, u)


def test_the_design_follows_the_study_seed_not_the_trial() -> None:
    space = {"x": Real(0, 1), "k": Join(a={"u": Int(0, 9)}, b={})}
    first = QMC().suggest(space, History(), 3, np.random.default_rng([7, 0]))
    assert QMC().suggest(space, History(), 3, np.random.default_rng([7, 5])) == first
    assert QMC().suggest(space, History(), 3, np.random.default_rng([8, 0])) != first
    later = QMC().suggest(
        space,
        History(complete=tuple(Observation(c, 0.0) for c in first[:2])),
        1,
        np.random.default_rng([7, 2]),
    )
    assert later == first[2:]


def test_a_study_resumed_equals_the_uninterrupted_one(tmp_path: Path) -> None:
    space = {"lr": Real(1e-4, 1, log=True), "k": Join(a={"u": Int(0, 9)}, b={"v": Real(0, 1)})}
    straight = tf.Study.create(space=space, algo="qmc", seed=3)
    straight.optimize(lambda p: p["lr"], n_trials=10)
    db = tmp_path / "q.db"
    tf.Study.create("q", space=space, algo="qmc", seed=3, storage=db).optimize(lambda p: p["lr"], n_trials=4)
    tf.Study.load("q", space=space, storage=db).optimize(lambda p: p["lr"], n_trials=10)
    resumed = tf.Study.load("q", space=space, storage=db)
    assert [dict(t.params) for t in resumed.trials] == [dict(t.params) for t in straight.trials]


def test_both_branches_of_a_join_are_spread() -> None:
    space = {"k": Join(a={"u": Real(0, 1)}, b={"v": Real(0, 1)})}
    configs = QMC(seed=1).suggest(space, History(), 64, np.random.default_rng(0))
    u = sorted(c["k.a.u"] for c in configs if c["k"] == "a")
    assert 28 <= len(u) <= 36
    assert np.max(np.diff([0.0, *u, 1.0])) < 0.12  # no gap a random design of 32 points would often leave
