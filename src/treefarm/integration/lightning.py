"""Pruning PyTorch Lightning training with a treefarm pruner (``pip install 'treefarm[lightning]'``).

    def objective(params, trial):
        trainer = lightning.Trainer(
            max_epochs=20, callbacks=[LightningPruningCallback(trial, monitor="val_loss")]
        )
        trainer.fit(model, train_loader, val_loader)
        return trainer.callback_metrics["val_loss"].item()

After each validation (an epoch, unless Lightning is told otherwise) the
callback reports the logged metric ``monitor`` as the trial's value at that
epoch, and raises :class:`~treefarm.TrialPruned` when the study's pruner
stops the trial, which ends ``trainer.fit`` (the optimize loop records the
trial PRUNED with its last value). Lightning's sanity check is not reported.
"""

from __future__ import annotations

from typing import Any

import lightning.pytorch as pl

from ..exceptions import StudyError
from ..study import Trial
from ._pruning import report_and_check

__all__ = ["LightningPruningCallback"]


class LightningPruningCallback(pl.Callback):
    """A Lightning callback reporting ``monitor`` after each validation (see the module docstring)."""

    def __init__(self, trial: Trial, monitor: str) -> None:
        super().__init__()
        self.trial = trial
        self.monitor = monitor

    def on_validation_end(self, trainer: Any, pl_module: Any) -> None:
        if trainer.sanity_checking:
            return
        value = trainer.callback_metrics.get(self.monitor)
        if value is None:
            raise StudyError(
                "the pruning callback's monitor must be a metric the model logs (self.log(name, value) in "
                f"validation_step), but got monitor={self.monitor!r}; logged: {sorted(trainer.callback_metrics)}"
            )
        report_and_check(self.trial, trainer.current_epoch, float(value), "epoch")
