"""What a study found: its best trial, value, configuration and parameters, and its
trials as a table. A part of :class:`~treefarm.Study`, kept apart because it only reads
(the fields it reads are its base class's, :class:`~treefarm.study.core.StudyBase`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..exceptions import StudyError
from ..space import Config, params
from ..storage import TrialRecord
from .core import StudyBase
from .state.objectives import feasible_front, study_hypervolume

__all__ = ["Results"]


class Results(StudyBase):
    """The reading side of a study (a base of :class:`~treefarm.Study`)."""

    @property
    def best_trial(self) -> TrialRecord:
        """The completed trial with the best value (the lowest number among ties),
        a feasible one first when trials have constraints; with none, the error
        quotes why the trials failed. A study with several objectives has no one
        best trial: the error points to :attr:`best_trials`."""
        objectives = self._cache.objectives
        if objectives.several:
            raise StudyError(
                f"the study has {len(objectives)} objectives (directions={objectives.argument!r}), "
                "so no single best trial: read study.best_trials (the Pareto front)"
            )
        return self._cache.best()

    @property
    def best_trials(self) -> list[TrialRecord]:
        """The feasible Pareto front: the completed, feasible trials no other
        feasible trial dominates (no worse in every objective, better in one), by
        number. With no feasible trial, the trials of least total constraint
        violation. With one objective, the trials tied at the best value."""
        return feasible_front(self._cache.completed(), self._cache.objectives)

    def hypervolume(self, reference: Sequence[float]) -> float:
        """The hypervolume the feasible front dominates up to ``reference``, one
        value per objective in the objectives' own units (below every score that
        should count for a maximized one, above every loss for a minimized one)."""
        return study_hypervolume(self._cache.completed(), self._cache.objectives, reference)

    @property
    def recommended_trial(self) -> TrialRecord:
        """The completed trial the optimizer recommends as the optimum.

        For a noisy objective a lucky draw can make the best observed value
        misleading; an optimizer with a model (the GP) then recommends the
        evaluated point with the best posterior mean (a recommendation strategy of
        Hoffman & Shahriari (2014), "Modular mechanisms for Bayesian optimization"). Otherwise
        this is :attr:`best_trial`.
        """
        best = self.best_trial
        config = self.optimizer.recommend(self.space, self._cache.history())
        if config is None:
            return best
        return next((t for t in self._cache.completed() if self._cache.config_of(t) == config), best)

    @property
    def best_value(self) -> float:
        value = self.best_trial.value
        assert value is not None
        return value

    @property
    def best_config(self) -> Config:
        return Config(self.best_trial.params)

    @property
    def best_params(self) -> Any:
        """The best configuration's parameters, arranged as the space arranges them,
        without calling any op (see :func:`treefarm.space.params`);
        ``build(study.space, study.best_config)`` builds the value itself."""
        return params(self.space, self.best_config)

    # ----------------------------------------------------------------- export
    def to_dataframe(self) -> Any:
        """The trials as a pandas DataFrame (needs pandas: ``pip install treefarm[pandas]``)."""
        try:
            import pandas as pd
        except ImportError as exc:
            raise StudyError("to_dataframe needs pandas: pip install 'treefarm[pandas]'") from exc
        from .state.rows import trial_rows

        trials = sorted(self._cache.finished_and_unfinished(), key=lambda t: t.number)
        return pd.DataFrame(trial_rows(trials, self._cache.objectives, full_fidelity=self._cache.full_fidelity))

