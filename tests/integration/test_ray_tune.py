"""TreefarmSearch as a Ray Tune search algorithm: Ray's own Optuna example runs with it
swapped in, Tune's spaces convert (or are refused by name), and the study persists."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import treefarm as tf

pytest.importorskip("ray.tune", reason="TreefarmSearch needs Ray Tune: pip install 'treefarm[ray]'")

from ray import tune

from treefarm.integration.ray import TreefarmSearch, tune_space

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # about 100 s on 2 busy cores: Ray and Tune start in a process of their own
def test_rays_optuna_example_runs_with_treefarm_search_swapped_in(tmp_path: Path) -> None:
    import ray.tune.examples

    source = (Path(ray.tune.examples.__file__).parent / "optuna_example.py").read_text()
    swapped = source.replace(
        "from ray.tune.search.optuna import OptunaSearch",
        "from treefarm.integration.ray import TreefarmSearch",
    ).replace("OptunaSearch()", f"TreefarmSearch(storage={str(tmp_path / 'tune.db')!r}, seed=0)")
    swapped = swapped.replace('"steps": 100', '"steps": 5').replace("time.sleep(0.1)", "time.sleep(0.01)")
    swapped = swapped.replace(
        "ray.init(configure_logging=False)",
        "ray.init(configure_logging=False, num_cpus=2, include_dashboard=False)",
    )
    assert "OptunaSearch" not in swapped
    example = tmp_path / "treefarm_example.py"
    example.write_text(swapped)
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
        "RAY_AIR_NEW_OUTPUT": "0",
    }
    done = subprocess.run(
        [sys.executable, str(example), "--smoke-test"],
        capture_output=True,
        text=True,
        timeout=400,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert re.search(r"Best hyperparameters found were:.*'width'", done.stdout), done.stdout[-2000:]
    storage = tf.open_storage(tmp_path / "tune.db", read_only=True)
    trials = storage.get_trials(storage.get_study("ray-tune").study_id)
    assert len(trials) == 10 and all(t.state is tf.TrialState.COMPLETE for t in trials)
    assert all(t.intermediate for t in trials)  # each reported result, by training iteration
    storage.close()


def test_tune_spaces_convert_as_optuna_search_converts_them() -> None:
    space = tune_space(
        {
            "lr": tune.loguniform(1e-4, 1e-1),
            "layers": tune.randint(1, 4),
            "width": tune.qrandint(8, 32, 8),
            "drop": tune.quniform(0.0, 0.5, 0.25),
            "opt": {"name": tune.choice(["adam", "sgd"]), "fixed": 3},
        }
    )
    assert space["lr"].log and (space["lr"].low, space["lr"].high) == (1e-4, 1e-1)
    assert (space["layers"].low, space["layers"].high) == (1, 3)  # randint excludes its upper bound
    assert space["width"].values == (8, 16, 24, 32)
    assert space["drop"].values == (0.0, 0.25, 0.5)
    assert space["opt"] == {"name": space["opt"]["name"]} and space["opt"]["name"].values == ("adam", "sgd")


def test_what_treefarm_cannot_search_is_refused_by_name() -> None:
    with pytest.raises(tf.StudyError, match="name='a/b'"):
        tune_space({"a": {"b": tune.randn(0, 1)}})
    with pytest.raises(tf.StudyError, match=r"grid_search at \['g'\]"):
        tune_space({"g": tune.grid_search([1, 2])})
    with pytest.raises(tf.StudyError, match="mode='obs'"):
        TreefarmSearch(mode="obs")


def test_the_searcher_asks_and_tells_a_stored_study_that_a_restore_continues(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    searcher = TreefarmSearch(storage=db, algo="random", seed=0)
    searcher.set_search_properties("loss", "min", {"x": tune.uniform(0, 1), "k": 2})
    for i in range(4):
        config = searcher.suggest(f"t{i}")
        assert config is not None and set(config) == {"x"}
        searcher.on_trial_result(f"t{i}", {"loss": config["x"] + 1, "training_iteration": 1})
        if i < 3:
            searcher.on_trial_complete(f"t{i}", {"loss": config["x"], "training_iteration": 2})
    searcher.save(str(tmp_path / "ckpt.pkl"))
    restored = TreefarmSearch()
    restored.restore(str(tmp_path / "ckpt.pkl"))
    restored.on_trial_complete("t3", error=True)
    assert restored.suggest("t4") is not None
    trials = restored.study.trials
    assert [t.state.value for t in trials] == ["complete"] * 3 + ["failed", "running"]
    assert trials[0].intermediate == {1: trials[0].value + 1, 2: trials[0].value}
    assert restored.study.best_value == min(t.value for t in trials[:3])


# Ray Tune's own searcher suite (ray/tune/tests/test_searchers.py) is not shipped with Ray; the
# tests below put TreefarmSearch through its scenarios: invalid values, results after the end,
# evaluated points, save and restore, several objectives.


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _invalid_objective(config: dict[str, Any]) -> None:
    r = config["report"]
    value = math.inf if r > 4 else -math.inf if r > 3 else math.nan if r > 2 else (r or 0.1)
    tune.report({"_metric": value})


@pytest.mark.slow  # Tune in this process: about a minute on 2 busy cores
def test_invalid_values_fail_their_trials_and_constants_stay(local_ray: None, tmp_path: Path) -> None:
    search = TreefarmSearch(algo="random", seed=3)
    out = tune.run(
        _invalid_objective,
        search_alg=search,
        config={"report": tune.uniform(0.0, 5.0), "list": [1, 2, 3], "num": 4},
        metric="_metric",
        mode="max",
        num_samples=8,
        reuse_actors=False,
        storage_path=str(tmp_path),
        verbose=0,
    )
    best = out.best_trial
    assert best.config["report"] <= 2.0 and best.config["list"] == [1, 2, 3] and best.config["num"] == 4
    states = {t.params["report"] > 2: t.state for t in search.study.trials}
    assert states.get(True, tf.TrialState.FAILED) is tf.TrialState.FAILED  # inf, -inf and NaN: failed
    assert search.study.best_value == max(t.value for t in search.study.trials if t.value is not None)


def test_results_after_the_end_are_ignored() -> None:
    searcher = TreefarmSearch({"x": tune.uniform(0, 1)}, metric="m", mode="max", seed=0)
    searcher.suggest("a")
    searcher.on_trial_result("a", {"training_iteration": 1, "m": 1})
    searcher.on_trial_complete("a", {"training_iteration": 2, "m": 1})
    searcher.on_trial_result("a", {"training_iteration": 3, "m": 1})
    searcher.on_trial_complete("a", {"training_iteration": 4, "m": 1})
    [trial] = searcher.study.trials
    assert trial.value == 1 and trial.intermediate == {1: 1.0, 2: 1.0}


def test_evaluated_points_are_trials_of_the_study() -> None:
    searcher = TreefarmSearch({"report": tune.uniform(0.0, 5.0)}, metric="metric", mode="max", seed=0)
    searcher.add_evaluated_point({"report": 1.0}, 1.0, intermediate_values=[0.8, 0.9])
    searcher.add_evaluated_point({"report": 1.0}, 1.0, error=True)
    searcher.add_evaluated_point({"report": 2.0}, 0.5, pruned=True)
    assert [t.state.value for t in searcher.study.trials] == ["complete", "failed", "pruned"]
    assert searcher.study.trials[0].intermediate == {0: 0.8, 1: 0.9}
    assert searcher.suggest("1") is not None
    with pytest.raises(tf.ConfigError):
        searcher.add_evaluated_point({"report": 7.0}, 1.0)  # outside the space, named by the space


def test_a_memory_study_saved_and_restored_keeps_its_trials(tmp_path: Path) -> None:
    def callbacks(searcher: TreefarmSearch, trial_id: str) -> None:
        result = {"training_iteration": 1, "metric": 1, "time_total_s": 1}
        searcher.on_trial_result(trial_id, result)
        searcher.on_trial_complete(trial_id, result)

    path = str(tmp_path / "checkpoint.pkl")
    searcher = TreefarmSearch({"a": tune.uniform(0.0, 5.0)}, metric="metric", mode="max", seed=0)
    for trial_id in ("1", "2", "not_completed"):
        searcher.suggest(trial_id)
    callbacks(searcher, "1")
    searcher.save(path)
    restored = TreefarmSearch()  # no set_search_properties: the checkpoint has it all
    restored.restore(path)
    callbacks(restored, "2")
    restored.suggest("3")
    callbacks(restored, "3")
    assert "not_completed" in restored._live_trial_mapping
    assert [t.state.value for t in restored.study.trials] == ["complete", "complete", "running", "complete"]


def _three(config: dict[str, Any]) -> None:
    tune.report({"a": config["a"] * 100, "b": config["b"] * -100, "c": config["c"]})


@pytest.mark.slow  # Tune in this process
def test_several_objectives(local_ray: None, tmp_path: Path) -> None:
    search = TreefarmSearch(metric=["a", "b", "c"], mode=["max", "min", "max"], algo="random", seed=1)
    out = tune.run(
        _three,
        search_alg=search,
        config={"a": tune.uniform(0, 1), "b": tune.uniform(0, 1), "c": tune.uniform(0, 1)},
        num_samples=16,
        reuse_actors=False,
        storage_path=str(tmp_path),
        verbose=0,
    )
    assert out.get_best_trial("a", "max").config["a"] >= 0.8
    assert search.study.directions == ("maximize", "minimize", "maximize")
    assert len(search.study.best_trials) >= 1 and all(len(t.values or ()) == 3 for t in search.study.trials)
