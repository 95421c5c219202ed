"""Log each finished trial as an MLflow run (``pip install 'treefarm[mlflow]'``).

    study.optimize(objective, 50, callbacks=[MLflowCallback(tracking_uri="file:./mlruns")])

Each trial becomes one run of the experiment named after the study (or
``experiment``): its configuration as parameters, its value as the metric
``metric_name`` (none for a failed trial), its reported intermediate values as
``<metric_name>_intermediate`` at their steps, and tags with the study, the
trial number, the state and a failed trial's reason. ``tracking_uri`` None
keeps MLflow's own setting (``MLFLOW_TRACKING_URI``).
"""

from __future__ import annotations

import mlflow
from mlflow.tracking import MlflowClient

from ..storage import TrialRecord
from ..study import Study
from ._tracking import run_fields

__all__ = ["MLflowCallback"]


class MLflowCallback:
    """A study callback: one MLflow run per finished trial (see the module docstring)."""

    def __init__(
        self, *, tracking_uri: str | None = None, experiment: str | None = None, metric_name: str = "value"
    ) -> None:
        self.tracking_uri = tracking_uri
        self.experiment = experiment
        self.metric_name = metric_name

    def __call__(self, study: Study, record: TrialRecord) -> None:
        client = MlflowClient(tracking_uri=self.tracking_uri or mlflow.get_tracking_uri())
        name = self.experiment or study.name
        found = client.get_experiment_by_name(name)
        experiment_id = found.experiment_id if found is not None else client.create_experiment(name)
        fields = run_fields(study.name, record, self.metric_name)
        run = client.create_run(experiment_id, run_name=fields["name"], tags=fields["tags"])
        run_id = run.info.run_id
        for address, value in fields["params"].items():
            client.log_param(run_id, address, value)
        for key, value in fields["metrics"].items():
            client.log_metric(run_id, key, value)
        for step, value in sorted(fields["steps"].items()):
            client.log_metric(run_id, f"{self.metric_name}_intermediate", value, step=step)
        client.set_terminated(run_id, status="FINISHED" if record.value is not None else "FAILED")
