"""Pruning XGBoost training with a treefarm pruner (``pip install 'treefarm[xgboost]'``).

    def objective(params, trial):
        booster = xgboost.train(
            params, dtrain, evals=[(dvalid, "valid")],
            callbacks=[XGBoostPruningCallback(trial, "valid-logloss")],
        )
        ...

After each boosting round the callback reports the evaluation ``observation``
(``"DATA-METRIC"``: the name given in ``evals``, a dash, XGBoost's metric
name) as the trial's value at that round, and raises
:class:`~treefarm.TrialPruned` when the study's pruner stops the trial. With
``xgboost.cv`` the mean over the folds is reported (``"test-logloss"``).
"""

from __future__ import annotations

from typing import Any

import xgboost

from ..exceptions import StudyError
from ..study import Trial
from ._pruning import report_and_check

__all__ = ["XGBoostPruningCallback"]


class XGBoostPruningCallback(xgboost.callback.TrainingCallback):
    """An XGBoost callback reporting ``observation`` each round (see the module docstring)."""

    def __init__(self, trial: Trial, observation: str) -> None:
        super().__init__()
        self.trial = trial
        self.observation = observation

    def after_iteration(self, model: Any, epoch: int, evals_log: Any) -> bool:
        data, _, metric = self.observation.partition("-")
        history = evals_log.get(data, {}).get(metric)
        if not history:
            found = sorted(f"{d}-{m}" for d, metrics in evals_log.items() for m in metrics)
            raise StudyError(
                "the pruning callback's observation must be one XGBoost evaluates (DATA-METRIC, with "
                f"DATA named in evals), but got observation={self.observation!r}; evaluated: {found}"
            )
        last = history[-1]
        value = last[0] if isinstance(last, tuple) else last  # xgboost.cv logs (mean, std)
        report_and_check(self.trial, epoch, float(value), "round")
        return False
