"""Log each finished trial as a Weights & Biases run (``pip install 'treefarm[wandb]'``).

    study.optimize(objective, 50, callbacks=[WandbCallback(project="tuning")])

Each trial becomes one run of ``project`` (grouped by the study's name): its
configuration as the run's config, its value as the summary metric
``metric_name`` (none for a failed trial), its intermediate values logged at
their steps, and tags with the trial's state. ``init_kwargs`` go to
``wandb.init`` (``mode="offline"``, ``dir=...``, ``entity=...``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import wandb

from ..storage import TrialRecord
from ..study import Study
from ._tracking import run_fields

__all__ = ["WandbCallback"]


class WandbCallback:
    """A study callback: one W&B run per finished trial (see the module docstring)."""

    def __init__(
        self, *, project: str, metric_name: str = "value", init_kwargs: Mapping[str, Any] | None = None
    ) -> None:
        self.project = project
        self.metric_name = metric_name
        self.init_kwargs = dict(init_kwargs or {})

    def __call__(self, study: Study, record: TrialRecord) -> None:
        fields = run_fields(study.name, record, self.metric_name)
        run = wandb.init(
            project=self.project,
            name=fields["name"],
            group=study.name,
            config=fields["params"],
            tags=[record.state.value],
            reinit="create_new",
            **self.init_kwargs,
        )
        try:
            for step, value in sorted(fields["steps"].items()):
                run.log({f"{self.metric_name}_intermediate": value}, step=step)
            run.summary.update({**fields["metrics"], **fields["tags"]})
        finally:
            run.finish(exit_code=0 if record.value is not None else 1)
