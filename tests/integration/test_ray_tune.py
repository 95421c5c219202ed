"""TreefarmSearch as a Ray Tune search algorithm: Ray's own Optuna example runs with it
swapped in, Tune's spaces convert (or are refused by name), and the study persists."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

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
