"""MLflow (a file store) and Weights & Biases (offline) record one run per trial, with
its parameters and value."""

from __future__ import annotations

from pathlib import Path

import pytest

import treefarm as tf

SPACE = {"lr": tf.Real(1e-4, 1e-1, log=True), "opt": tf.Join(adam={}, sgd={"momentum": tf.Real(0.0, 0.9)})}


def _objective(params: dict, trial: tf.Trial) -> float:
    for step in range(3):
        trial.report(step, params["lr"] * (3 - step))
    if params["lr"] > 0.05:
        raise ValueError("diverged")
    return params["lr"]


def test_mlflow_records_one_run_per_trial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mlflow")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow's local file store, as the tests of the issue ask
    from mlflow.tracking import MlflowClient

    from treefarm.integration.mlflow import MLflowCallback

    uri = (tmp_path / "mlruns").as_uri()
    study = tf.Study.create("tune", space=SPACE, seed=0, algo="random")
    study.optimize(_objective, 6, callbacks=[MLflowCallback(tracking_uri=uri)], progress=False)
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("tune")
    runs = client.search_runs([experiment.experiment_id])
    assert len(runs) == 6
    by_trial = {int(r.data.tags["treefarm.trial"]): r for r in runs}
    for t in study.trials:
        run = by_trial[t.number]
        assert run.data.params["lr"] == str(t.params["lr"]) and run.data.params["opt"] == t.params["opt"]
        assert run.data.tags["treefarm.state"] == t.state.value
        if t.value is not None:
            assert run.data.metrics["value"] == pytest.approx(t.value)
        else:
            assert "value" not in run.data.metrics and run.data.tags["treefarm.reason"].startswith("ValueError")
    history = client.get_metric_history(by_trial[0].info.run_id, "value_intermediate")
    assert [m.step for m in history] == [0, 1, 2]


def test_wandb_offline_records_one_run_per_trial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wandb = pytest.importorskip("wandb")
    from treefarm.integration.wandb import WandbCallback

    for name, folder in (("WANDB_DIR", ""), ("WANDB_CONFIG_DIR", "config"), ("WANDB_CACHE_DIR", "cache")):
        monkeypatch.setenv(name, str(tmp_path / folder))
    monkeypatch.setenv("WANDB_SILENT", "true")
    finished: list[tuple[str, dict[str, object], dict[str, object]]] = []
    real_init = wandb.init

    def init(**kwargs: object) -> object:  # the real run, whose config and summary are read as it finishes
        run = real_init(**kwargs)
        real_finish = run.finish

        def finish(*args: object, **options: object) -> object:
            finished.append((run.name, dict(run.config), dict(run.summary)))
            return real_finish(*args, **options)

        run.finish = finish
        return run

    monkeypatch.setattr(wandb, "init", init)
    study = tf.Study.create("tune", space=SPACE, seed=0, algo="random")
    callback = WandbCallback(project="tuning", init_kwargs={"mode": "offline", "dir": str(tmp_path)})
    study.optimize(_objective, 3, callbacks=[callback], progress=False)
    assert len(sorted((tmp_path / "wandb").glob("offline-run-*"))) == 3
    assert [name for name, _, _ in finished] == [f"tune-trial-{n}" for n in range(3)]
    for trial, (_, config, summary) in zip(study.trials, finished):
        assert config == dict(trial.params)
        assert summary["treefarm.state"] == trial.state.value
        if trial.value is not None:
            assert summary["value"] == pytest.approx(trial.value)
