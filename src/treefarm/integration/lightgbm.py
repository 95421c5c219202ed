"""Pruning LightGBM training with a treefarm pruner (``pip install 'treefarm[lightgbm]'``).

    def objective(params, trial):
        model = lightgbm.train(
            params, train_set, valid_sets=[valid_set],
            callbacks=[LightGBMPruningCallback(trial, "binary_logloss")],
        )
        ...

After each boosting iteration the callback reports the validation metric
``metric`` of ``valid_name`` (LightGBM's ``valid_0`` for the first
validation set) as the trial's value at that iteration, and raises
:class:`~treefarm.TrialPruned` when the study's pruner stops the trial (the
optimize loop records it PRUNED with its last value). With ``lightgbm.cv``
the mean over the folds is reported (``valid_name`` is then ``"valid"``).
"""

from __future__ import annotations

from typing import Any

from ..exceptions import StudyError
from ..study import Trial
from ._pruning import check_direction, report_and_check

__all__ = ["LightGBMPruningCallback"]


class LightGBMPruningCallback:
    """A LightGBM callback reporting ``metric`` on ``valid_name`` each iteration (see the module docstring)."""

    def __init__(self, trial: Trial, metric: str, valid_name: str = "valid_0") -> None:
        self.trial = trial
        self.metric = metric
        self.valid_name = valid_name
        self.order = 20  # after LightGBM's own callbacks (evaluation logging is 10)
        self._checked = False

    def __call__(self, env: Any) -> None:
        for entry in env.evaluation_result_list or ():
            data, name, value, higher_is_better = entry[0], entry[1], entry[2], entry[3]
            if data == "cv_agg":  # lightgbm.cv: ("cv_agg", "valid binary_logloss", mean, higher, std)
                data, _, name = name.partition(" ")
            if (data, name) != (self.valid_name, self.metric):
                continue
            if not self._checked:
                check_direction(self.trial, self.metric, bool(higher_is_better))
                self._checked = True
            report_and_check(self.trial, env.iteration, value, "iteration")
            return
        found = sorted({f"{e[0]}/{e[1]}" for e in env.evaluation_result_list or ()})
        raise StudyError(
            "the pruning callback's metric must be one LightGBM evaluates (pass valid_sets and the "
            f"metric's name), but got valid_name={self.valid_name!r}, metric={self.metric!r}; evaluated: {found}"
        )
