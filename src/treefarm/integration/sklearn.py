"""``TreefarmSearchCV``: scikit-learn's hyperparameter search driven by a treefarm study.

A drop-in for ``RandomizedSearchCV`` / scikit-optimize's ``BayesSearchCV``
built on scikit-learn's own ``BaseSearchCV``, which brings ``cv_results_``,
``best_*``, ``refit``, multi-metric ``scoring``, ``error_score``,
``n_jobs`` and metadata routing exactly as the other searches have them.
This class only decides *which* candidates to evaluate
(:meth:`TreefarmSearchCV._run_search`): a treefarm :class:`~treefarm.Study`
(direction ``maximize``) asks ``n_points`` configurations at a time, each
batch is cross-validated, and each candidate's mean test score (of the
``refit`` metric) is told back, so TPE, the GP, annealing or random search
choose the next candidates from all the scores so far.

The search space may be conditional (see
:mod:`treefarm.integration.sklearn_space`): choosing a pipeline step also
chooses which parameters exist, which scikit-optimize cannot express.

Resuming: with ``storage`` and ``study_name`` the study lives in a file or
database, and every candidate's per-split results are stored with its trial.
A later ``fit`` with the same storage and name (and the same data and
``cv``) restores those candidates into ``cv_results_`` without refitting
them, lets the optimizer learn from them, and evaluates only the rest of
``n_iter`` (at least one new candidate). With a shuffling ``cv`` splitter
give it a ``random_state``, or restored and new candidates are scored on
different splits.
"""

from __future__ import annotations

import contextlib
import io
import math
import numbers
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from sklearn.model_selection._search import BaseSearchCV
from sklearn.utils import check_random_state

from ..exceptions import StudyError, format_values
from ..objectives import MAXIMIZE
from ..optimizers import Optimizer, available
from ..space import Config, Space, build
from ..storage import Storage, TrialState
from ..study import Study, Trial
from ..validation import check_int
from .sklearn_space import check_params, grid_to_space

__all__ = ["TreefarmSearchCV"]

#: The user attribute holding a candidate's per-split results (the ``_fit_and_score`` dicts).
CV_ATTR = "cv_splits"
_SCORE_KEYS = ("test_scores", "train_scores")


def _encode_score(score: Any) -> Any:
    """A score as JSON: a non-finite float as its text ("nan", "inf")."""
    if isinstance(score, Mapping):
        return {k: _encode_score(v) for k, v in score.items()}
    value = float(score)
    return value if math.isfinite(value) else str(value)


def _decode_score(score: Any) -> Any:
    if isinstance(score, Mapping):
        return {k: _decode_score(v) for k, v in score.items()}
    return float(score)


def encode_split(out: Mapping[str, Any]) -> dict[str, Any]:
    """One split's result from scikit-learn's ``_fit_and_score`` as JSON."""
    row = {k: v for k, v in out.items() if k in ("fit_error", "n_test_samples", "fit_time", "score_time")}
    row["n_test_samples"] = int(row["n_test_samples"])
    row["fit_time"], row["score_time"] = float(row["fit_time"]), float(row["score_time"])
    for key in _SCORE_KEYS:
        if key in out:
            row[key] = _encode_score(out[key])
    return row


def decode_split(row: Mapping[str, Any]) -> dict[str, Any]:
    """The inverse of :func:`encode_split`."""
    out = dict(row)
    for key in _SCORE_KEYS:
        if key in out:
            out[key] = _decode_score(out[key])
    return out


class _WithoutHeader(io.TextIOBase):
    """Standard output without scikit-learn's per-call ``Fitting N folds for each of M
    candidates`` line, which a sequential search would repeat for every batch."""

    HEADER = re.compile(r"^Fitting \d+ folds for each of \d+ candidates?, totalling \d+ fits\n?$")

    def __init__(self, out: Any) -> None:
        self.out = out
        self.dropped = False  # print writes its line, then the newline apart

    def write(self, text: str) -> int:
        if self.HEADER.match(text) or (self.dropped and text == "\n"):
            self.dropped = not self.dropped and not text.endswith("\n")
            return len(text)
        self.dropped = False
        self.out.write(text)
        return len(text)

    def flush(self) -> None:
        self.out.flush()


class TreefarmSearchCV(BaseSearchCV):
    """Cross-validated search over a treefarm space; see the module docstring.

    Parameters beyond ``BaseSearchCV``'s (``scoring``, ``n_jobs``, ``refit``,
    ``cv``, ``verbose``, ``pre_dispatch``, ``error_score``,
    ``return_train_score``, documented by scikit-learn):

    search_spaces
        A dict ``{parameter: space}``, a list of such dicts, or a treefarm
        space building such a dict (:mod:`treefarm.integration.sklearn_space`).
    param_distributions
        The same, under ``RandomizedSearchCV``'s name (give one of the two); its
        ``scipy.stats`` ``uniform``, ``loguniform`` and ``randint`` are read as
        ``Real``, ``Real(log=True)`` and ``Int``.
    n_iter
        Candidates in the study when the search ends (each cross-validated).
    algo
        The optimizer: ``"tpe"``, ``"gp"``, ``"anneal"``, ``"random"`` or an
        :class:`~treefarm.optimizers.Optimizer`.
    n_points
        Candidates asked and cross-validated together (in parallel with
        ``n_jobs``); each is asked with the earlier ones pending.
    random_state
        Seeds the study (an int, a ``RandomState`` or None).
    storage, study_name
        Where the study lives (a path, URL or :class:`~treefarm.Storage`;
        None keeps it in memory) and its name: the same pair resumes a search.

    After ``fit``, ``study_`` is the treefarm study, besides scikit-learn's
    ``cv_results_``, ``best_params_``, ``best_score_``, ``best_estimator_``.
    With ``verbose`` > 0 the search says once how many folds and candidates it
    fits, then one line per candidate (its score and the best so far), instead of
    scikit-learn's header for every batch of ``n_points``.
    """

    # scikit-learn checks the types as it checks its own searches' (types only: its range and
    # option constraints live in a private module); the ranges are checked in _run_search
    _parameter_constraints: dict[str, list[Any]] = {  # noqa: RUF012 (scikit-learn's convention)
        **BaseSearchCV._parameter_constraints,
        "search_spaces": [dict, list, Space, None],
        "param_distributions": [dict, list, Space, None],
        "n_iter": [numbers.Integral],
        "algo": [str, Optimizer],
        "n_points": [numbers.Integral],
        "random_state": ["random_state"],
        "storage": [str, os.PathLike, Storage, None],
        "study_name": [str, None],
    }

    def __init__(
        self,
        estimator: Any,
        search_spaces: Any = None,
        *,
        n_iter: int = 50,
        algo: str | Optimizer = "tpe",
        n_points: int = 1,
        scoring: Any = None,
        n_jobs: int | None = None,
        refit: bool | str | Callable[..., Any] = True,
        cv: Any = None,
        verbose: int = 0,
        pre_dispatch: int | str = "2*n_jobs",
        random_state: Any = None,
        error_score: Any = np.nan,
        return_train_score: bool = False,
        storage: str | os.PathLike[str] | Storage | None = None,
        study_name: str | None = None,
        param_distributions: Any = None,
    ) -> None:
        self.search_spaces = search_spaces
        self.param_distributions = param_distributions
        self.n_iter = n_iter
        self.algo = algo
        self.n_points = n_points
        self.random_state = random_state
        self.storage = storage
        self.study_name = study_name
        super().__init__(
            estimator=estimator,
            scoring=scoring,
            n_jobs=n_jobs,
            refit=refit,
            cv=cv,
            verbose=verbose,
            pre_dispatch=pre_dispatch,
            error_score=error_score,
            return_train_score=return_train_score,
        )

    # ------------------------------------------------------------------ study
    def _seed(self) -> int | None:
        if self.random_state is None:
            return None
        if isinstance(self.random_state, numbers.Integral):
            return int(self.random_state) % 2**63
        return int(check_random_state(self.random_state).randint(2**31 - 1))

    def _spaces(self) -> Any:
        """``search_spaces`` or ``param_distributions``, whichever is given (exactly one)."""
        if (self.search_spaces is None) == (self.param_distributions is None):
            raise StudyError(
                "give the space as search_spaces or as param_distributions (scikit-learn's name), "
                "exactly one, but got "
                f"{format_values(search_spaces=self.search_spaces, param_distributions=self.param_distributions)}"
            )
        return self.search_spaces if self.search_spaces is not None else self.param_distributions

    def _open_study(self) -> Study:
        return Study.create(
            self.study_name,
            space=grid_to_space(self._spaces()),
            storage=self.storage,
            algo=self.algo,
            direction=MAXIMIZE,
            seed=self._seed(),
            load_if_exists=self.study_name is not None,
        )

    def _restore(self, study: Study) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The candidates (and their split results) already in ``study`` from an earlier fit."""
        params: list[dict[str, Any]] = []
        outs: list[dict[str, Any]] = []
        for record in study.trials:
            rows = record.user_attrs.get(CV_ATTR)
            if not (record.state.is_finished and isinstance(rows, list) and len(rows) == self.n_splits_):
                continue
            params.append(check_params(build(study.space, Config(record.params))))
            outs.extend(decode_split(row) for row in rows if isinstance(row, Mapping))
        return params, outs

    def _metric(self) -> str:
        """The score the study maximizes: the ``refit`` metric."""
        if isinstance(self.scoring, (list, tuple, dict)):
            if not isinstance(self.refit, str):
                raise StudyError(
                    "with multi-metric scoring, refit must name the scorer the search maximizes, "
                    f"but got refit={self.refit!r}"
                )
            return self.refit
        return "score"

    # ----------------------------------------------------------- the search
    def _format_results(
        self,
        candidate_params: Sequence[dict[str, Any]],
        n_splits: int,
        out: Sequence[dict[str, Any]],
        more_results: Mapping[str, list[Any]] | None = None,
    ) -> dict[str, Any]:
        """scikit-learn's results with the restored candidates first; also keeps the
        split results of this fit, to store each candidate's with its trial."""
        self._split_results = list(out)
        params, outs = self._restored
        extra = {k: [None] * len(params) + list(v) for k, v in (more_results or {}).items()}
        return super()._format_results([*params, *candidate_params], n_splits, [*outs, *out], extra)

    def _tell(self, study: Study, trials: Sequence[Trial], scores: np.ndarray, n_splits: int) -> None:
        first = len(self._split_results) - len(trials) * n_splits
        for i, (trial, score) in enumerate(zip(trials, scores)):
            rows = self._split_results[first + i * n_splits : first + (i + 1) * n_splits]
            trial.set_user_attr(CV_ATTR, [encode_split(r) for r in rows])
            if np.isfinite(score):
                study.tell(trial, float(score))
            else:
                study.tell(trial, state=TrialState.FAILED)

    def _evaluate(
        self, study: Study, evaluate_candidates: Callable[..., dict[str, Any]], trials: Sequence[Trial]
    ) -> bool:
        """Cross-validate ``trials`` and tell their scores; False if every fit failed.

        scikit-learn raises when every fit of one ``evaluate_candidates`` call
        fails, even with a numeric ``error_score``; a sequential search calls it
        per batch, so a batch of hopeless candidates is told FAILED (with the
        reason) and the search goes on, without them in ``cv_results_``.
        """
        metric = self._metric()
        try:
            with contextlib.redirect_stdout(_WithoutHeader(sys.stdout)):
                results = evaluate_candidates([check_params(t.value) for t in trials])
        except ValueError as exc:
            for trial in trials:
                study.tell(trial, exception=exc)
            if self.error_score == "raise" or "fits failed" not in str(exc):
                raise
            self._last_failure = exc
            return False
        except BaseException as exc:
            for trial in trials:
                study.tell(trial, exception=exc)
            raise
        if f"mean_test_{metric}" not in results and isinstance(self.refit, str):
            metric = self.refit  # a callable scoring that returned a dict of scores
        if f"mean_test_{metric}" not in results:
            raise StudyError(
                "a scoring callable returning several scores needs refit to name the one the search "
                f"maximizes, but got refit={self.refit!r}"
            )
        scores = np.asarray(results[f"mean_test_{metric}"][-len(trials) :], dtype=float)
        self._tell(study, trials, scores, self.n_splits_)
        if self.verbose > 0:
            for trial, score in zip(trials, scores):
                print(
                    f"[treefarm] candidate {trial.number + 1}/{self.n_iter}: {metric} {score:.6g}{self._best(study)}"
                )
        return True

    @staticmethod
    def _best(study: Study) -> str:
        try:
            return f" (best {study.best_value:.6g}, candidate {study.best_trial.number + 1})"
        except StudyError:
            return ""

    def _run_search(self, evaluate_candidates: Callable[..., dict[str, Any]]) -> None:
        """Ask ``n_points`` candidates, cross-validate them, tell their scores; until ``n_iter``."""
        check_int("n_iter", self.n_iter, error=StudyError)
        check_int("n_points", self.n_points, error=StudyError)
        if isinstance(self.algo, str) and self.algo not in available():
            raise StudyError(f"algo must be one of {available()} or an Optimizer, but got algo={self.algo!r}")
        self._metric()
        study = self.study_ = self._open_study()
        self._restored = self._restore(study)
        finished = sum(t.state.is_finished for t in study.trials)
        remaining, evaluated = max(1, self.n_iter - finished), False
        if self.verbose > 0:
            print(
                f"Fitting {self.n_splits_} folds for each of {remaining} candidates, totalling "
                f"{remaining * self.n_splits_} fits ({self.n_points} at a time, each chosen from the scores so far)"
            )
        while remaining > 0:
            trials = [study.ask() for _ in range(min(self.n_points, remaining))]
            evaluated |= self._evaluate(study, evaluate_candidates, trials)
            remaining -= len(trials)
        if not evaluated:
            raise self._last_failure

    def __getstate__(self) -> dict[str, Any]:
        """The pickled search leaves out ``study_``, which holds an open storage
        (reopen it with ``Study.load(study_name, storage=...)``)."""
        state: dict[str, Any] = dict(super().__getstate__())  # object.__getstate__ gives __dict__ itself
        for name in ("study_", "_last_failure", "_restored", "_split_results"):
            state.pop(name, None)
        return state
