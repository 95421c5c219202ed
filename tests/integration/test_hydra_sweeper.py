"""``hydra/sweeper=treefarm``: a real Hydra multirun of a small app runs a study, and a multirun
killed mid-job is resumed by the next, the cut trial run again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import treefarm as tf

pytest.importorskip("hydra", reason="the Hydra sweeper needs Hydra: pip install 'treefarm[hydra]'")

from treefarm.integration.hydra import overrides_of, space_of

ROOT = Path(__file__).resolve().parents[2]

APP = """
import os

import hydra


@hydra.main(config_path="conf", config_name="config", version_base=None)
def main(cfg):
    if "kill_marker" in cfg and not os.path.exists(cfg.kill_marker):
        open(cfg.kill_marker, "w").close()
        os._exit(3)  # the whole multirun dies mid-job
    if cfg.model.kind == "broken":
        raise RuntimeError("this model does not train")
    return (cfg.model.lr - 0.01) ** 2 * 1e4 + 0.1 * cfg.layers + cfg.offset


if __name__ == "__main__":
    main()
"""

CONFIG = """
defaults:
  - override hydra/sweeper: treefarm

offset: 0.5
layers: 2
model:
  lr: 0.1
  kind: plain

hydra:
  sweeper:
    n_trials: 6
    algo: tpe
    seed: 0
    params:
      model.lr: tag(log, interval(1e-4, 1.0))
      layers: range(1, 5)
      model.kind: choice(plain, wide, broken)
"""


def _multirun(app: Path, *overrides: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    return subprocess.run(
        [sys.executable, str(app), "--multirun", *overrides],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=app.parent,
    )


def test_a_multirun_runs_a_study_and_one_killed_midway_resumes(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "config.yaml").write_text(CONFIG)
    app = tmp_path / "app.py"
    app.write_text(APP)
    db = tmp_path / "sweep.db"
    common = (f"hydra.sweeper.storage={db}", "offset=1.5")
    first = _multirun(app, *common, "hydra.sweep.dir=first")
    assert first.returncode == 0, first.stderr[-3000:]
    storage = tf.open_storage(db, read_only=True)
    trials = storage.get_trials(storage.get_study("hydra").study_id)
    assert len(trials) == 6
    for t in trials:
        expected = (t.params["model.lr"] - 0.01) ** 2 * 1e4 + 0.1 * t.params["layers"] + 1.5
        if t.params["model.kind"] == "broken":
            assert t.state is tf.TrialState.FAILED and "does not train" in str(t.system_attrs["fail_reason"])
        else:
            assert t.value == pytest.approx(expected)  # the job ran with the trial's overrides
        assert 1 <= t.params["layers"] <= 4
    results = (tmp_path / "first" / "optimization_results.yaml").read_text()
    assert "best_value" in results and "model.lr" in results
    assert sorted(p.name for p in (tmp_path / "first").iterdir() if p.is_dir()) == [str(i) for i in range(6)]

    killed = _multirun(
        app, *common, "hydra.sweeper.n_trials=9", "hydra.sweep.dir=second", f"+kill_marker={tmp_path / 'k'}"
    )
    assert killed.returncode == 3
    third = _multirun(app, *common, "hydra.sweeper.n_trials=9", "hydra.sweep.dir=third")
    assert third.returncode == 0, third.stderr[-3000:]
    trials = storage.get_trials(storage.get_study("hydra").study_id)
    [interrupted] = [t for t in trials if t.number == 6]  # the job the kill cut short
    assert interrupted.state is tf.TrialState.FAILED
    [rerun] = [t for t in trials if t.system_attrs.get("requeued_from") == 6]
    assert rerun.params == interrupted.params and rerun.state.is_finished
    assert [t.number for t in trials] == list(range(9))  # resumed to its total of 9
    assert all(t.state.is_finished for t in trials)
    storage.close()


def test_sweeps_convert_as_the_optuna_sweeper_reads_them(tmp_path: Path) -> None:
    space, fixed = space_of(
        [
            "a=interval(0, 1)",
            "b=int(interval(1, 8))",
            "c=tag(log, interval(1e-3, 1))",
            "d=range(2, 10, 3)",
            "e=choice(x, 3, true)",
            "f=1,2",
            "g.h=range(1, 4)",
            "plain=7",
            "+extra=yes",
        ]
    )
    assert (space["a"].low, space["a"].high, space["a"].log) == (0.0, 1.0, False)
    assert isinstance(space["b"], tf.Int) and (space["b"].low, space["b"].high) == (1, 8)
    assert space["c"].log
    assert space["d"].values == (2, 5, 8)  # range excludes its stop, as Python's
    assert space["e"].values == ("x", 3, True) and space["f"].values == (1, 2)
    assert (space["g"]["h"].low, space["g"]["h"].high) == (1, 3)
    assert fixed == ["plain=7", "+extra=yes"]


def test_a_space_files_join_becomes_a_config_group_choice(tmp_path: Path) -> None:
    path = tmp_path / "space.json"
    path.write_text(
        '{"optimizer": {"type": "join", "options": {"adam": {}, "sgd": {"momentum": {"type": "real", "low": 0, "high": 1}}}}}'
    )
    space, _ = space_of(["lr=interval(0, 1)"], str(path))
    value = tf.build(space, {"optimizer": "sgd", "optimizer.sgd.momentum": 0.5, "lr": 0.25})
    assert overrides_of(value) == ["optimizer=sgd", "optimizer.momentum=0.5", "lr=0.25"]
    with pytest.raises(tf.StudyError, match="key='lr'"):
        space_of(["lr=interval(0, 1)", "lr=interval(0, 2)"])


def test_hydra_discovers_the_sweeper_its_config_names() -> None:
    """Hydra instantiates only plugin classes defined under ``hydra_plugins``: the class the
    stored config's ``_target_`` names is found by Hydra's own scan and is the study sweeper."""
    from hydra.core.plugins import Plugins
    from hydra.plugins.sweeper import Sweeper

    from treefarm.integration.hydra import StudySweeper, TreefarmSweeperConf

    found = Plugins.instance().class_name_to_class.get(TreefarmSweeperConf._target_)
    assert found is not None and issubclass(found, StudySweeper) and issubclass(found, Sweeper)
    assert found.__module__ == "hydra_plugins.treefarm_sweeper.treefarm_sweeper"
    assert found.__name__ != StudySweeper.__name__
