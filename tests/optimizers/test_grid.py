"""Grid search: conformance, every point once (also across worker processes), the order, exhaustion."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import treefarm as tf
from treefarm import Choice, Config, Grid, History, Int, Join, Observation, Optimizer, Real
from treefarm.exceptions import ConfigError, SpaceError
from treefarm.optimizers.grid import GridExhaustedError, grid_points, permute
from treefarm.storage import TrialState, open_storage
from treefarm.testing.optimizer_suite import OptimizerSuite

from . import grid_worker

CONDITIONAL = {
    "C": Real(1e-3, 1e3, log=True),
    "kernel": Join(
        rbf={"gamma": Real(1e-4, 1.0, log=True)}, poly={"degree": Int(2, 5), "coef": Real(0, 1)}, linear={}
    ),
}


class TestGridConformance(OptimizerSuite):
    supports_recursive = False

    @pytest.fixture
    def optimizer_factory(self) -> Callable[[], Optimizer]:
        return lambda: Grid(resolution=3)


def test_the_grid_of_a_conditional_space_counts_each_branch() -> None:
    points = grid_points(CONDITIONAL, resolution=3)
    assert len(points) == 3 * (3 + 4 * 3 + 1) == Grid(resolution=3).size(CONDITIONAL)
    assert len(set(points)) == len(points)
    assert {p["C"] for p in points} == {1e-3, 1.0, 1e3}
    assert all(tf.validate(CONDITIONAL, p) == p for p in points)


def test_the_order_is_a_permutation_of_every_point() -> None:
    for n in (1, 2, 7, 130, 1000):
        assert sorted(permute(i, n, 99) for i in range(n)) == list(range(n)), n
    assert [permute(i, 1000, 1) for i in range(20)] != [permute(i, 1000, 2) for i in range(20)]


def test_suggestions_visit_every_point_once_then_stop() -> None:
    space = {"a": Int(0, 2), "b": Choice("x", "y")}
    grid, complete, rng = Grid(), [], np.random.default_rng([4, 0])
    for _ in range(6):
        (config,) = grid.suggest(space, History(complete=tuple(complete)), 1, rng)
        complete.append(Observation(config, 0.0))
    assert {c.config for c in complete} == set(grid_points(space))
    with pytest.raises(GridExhaustedError, match="size=6"):
        grid.suggest(space, History(complete=tuple(complete)), 1, rng)


def test_the_order_depends_on_the_study_seed_only() -> None:
    space = {"a": Int(0, 9), "b": Int(0, 9)}
    first = Grid().suggest(space, History(), 5, np.random.default_rng([1, 0]))
    assert Grid().suggest(space, History(), 5, np.random.default_rng([1, 8])) == first
    assert Grid().suggest(space, History(), 5, np.random.default_rng([2, 0])) != first


def test_a_study_resumed_follows_the_uninterrupted_order(tmp_path: Path) -> None:
    space = {"a": Int(0, 4), "b": Choice("x", "y", "z"), "c": Real(0, 1)}
    straight = tf.Study.create(space=space, algo=Grid(resolution=2), seed=3)
    straight.optimize(lambda p: p["a"], n_trials=12)
    db = tmp_path / "g.db"
    tf.Study.create("g", space=space, algo=Grid(resolution=2), seed=3, storage=db).optimize(
        lambda p: p["a"], n_trials=5
    )
    tf.Study.load("g", space=space, storage=db).optimize(lambda p: p["a"], n_trials=12)
    resumed = tf.Study.load("g", space=space, storage=db)
    assert [dict(t.params) for t in resumed.trials] == [dict(t.params) for t in straight.trials]


def test_an_exhausted_grid_ends_the_run_saying_so_and_leaves_no_failed_trial(caplog: pytest.LogCaptureFixture) -> None:
    space = {"a": Int(0, 1), "b": Choice("x", "y", "z")}
    study = tf.Study.create(space=space, algo="grid", seed=0)
    with caplog.at_level(logging.INFO, logger="treefarm"):
        study.optimize(lambda p: float(p["a"]), n_trials=10)
    assert "the run stops" in caplog.text
    assert [t.state for t in study.trials] == [TrialState.COMPLETE] * 6
    assert sorted(Config(t.params).to_json() for t in study.trials) == sorted(c.to_json() for c in grid_points(space))
    study.optimize(lambda p: float(p["a"]), n_trials=10)  # nothing left: ends at once
    study.enqueue({"a": 1, "b": "z"})
    study.optimize(lambda p: float(p["a"]), n_trials=10)  # an enqueued trial still runs
    assert len(study.trials) == 7 and study.trials[-1].state is TrialState.COMPLETE
    history = History(complete=[Observation(Config(t.params), 0.0) for t in study.trials])
    with pytest.raises(GridExhaustedError, match="every point of the grid"):
        Grid().suggest(space, history, 1, np.random.default_rng(0))


def test_a_real_without_resolution_is_refused_naming_it() -> None:
    with pytest.raises(SpaceError, match=r"resolution=k\) for the real c="):
        Grid().suggest({"a": Int(0, 1), "c": Real(0, 1)}, History(), 1, np.random.default_rng(0))
    with pytest.raises(ConfigError, match="resolution"):
        Grid(resolution=1)


def test_four_worker_processes_visit_every_point_exactly_once(tmp_path: Path) -> None:
    db = tmp_path / "grid.db"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(tf.__file__).parents[1]), *sys.path])}
    tf.Study.create("shared", space=grid_worker.SPACE, storage=db, algo=Grid(resolution=4), seed=5)
    workers = [
        subprocess.Popen(
            [sys.executable, grid_worker.__file__, str(db), "shared"],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    for w in workers:
        _, err = w.communicate(timeout=240)
        assert w.returncode == 0, err
    storage = open_storage(db)
    try:
        trials = storage.get_trials(storage.get_study("shared").study_id)
    finally:
        storage.close()
    assert [t.state for t in trials] == [TrialState.COMPLETE] * 24
    visited = sorted(Config(t.params).to_json() for t in trials)
    assert visited == sorted(c.to_json() for c in grid_points(grid_worker.SPACE, resolution=4))
