"""Pruning Keras 3 training with a treefarm pruner (``pip install 'treefarm[keras]'``)::

    def objective(params, trial):
        model = make_model(params)
        history = model.fit(x, y, validation_split=0.2, epochs=20,
                            callbacks=[KerasPruningCallback(trial, monitor="val_loss")])
        return history.history["val_loss"][-1]

After each epoch the callback reports the metric ``monitor`` that Keras
logged (``loss``, ``val_loss``, ``val_accuracy``, ...) as the trial's value
at that epoch, and raises :class:`~treefarm.TrialPruned` when the study's
pruner stops the trial, which ends ``model.fit`` (the optimize loop records
the trial PRUNED with its last value). The metric must run the study's way:
a loss in a minimizing study, an accuracy in a maximizing one. Any Keras 3
backend works (``KERAS_BACKEND=torch``, ``jax`` or ``tensorflow``, set before
Keras is first imported).
"""

from __future__ import annotations

from typing import Any

import keras

from ..exceptions import StudyError
from ..study import Trial
from ._pruning import report_and_check

__all__ = ["KerasPruningCallback"]


class KerasPruningCallback(keras.callbacks.Callback):
    """A Keras callback reporting ``monitor`` after each epoch (see the module docstring)."""

    def __init__(self, trial: Trial, monitor: str = "val_loss") -> None:
        super().__init__()
        self.trial = trial
        self.monitor = monitor

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            raise StudyError(
                "the pruning callback's monitor must be a metric Keras logs each epoch (val_ metrics need "
                f"validation data), but got monitor={self.monitor!r}; logged: {sorted(logs)}"
            )
        report_and_check(self.trial, epoch, float(value), "epoch")
