"""``TreefarmSearchCV``: scikit-learn's hyperparameter search driven by a treefarm study.

A drop-in for ``RandomizedSearchCV`` / scikit-optimize's ``BayesSearchCV``
built on scikit-learn's public API only (``BaseEstimator``, ``clone``,
``check_cv``, ``cross_validate``, ``check_scoring``, metadata routing,
``available_if``), so it holds with every release of scikit-learn the
``sklearn`` extra allows. It gives what the other searches give:
``cv_results_`` (in their layout, ranks included), ``best_index_``,
``best_params_``, ``best_score_``, ``best_estimator_`` and ``refit_time_``
(``refit`` True, a metric's name or a callable), multi-metric ``scoring``,
``return_train_score``, ``error_score`` (failed fits warned as scikit-learn
warns them), ``n_jobs`` and ``pre_dispatch``, metadata routing, and
``predict``, ``predict_proba``, ``transform``, ``score``... delegated to the
best estimator when it has them.

Which candidates are evaluated is the study's choice: a treefarm
:class:`~treefarm.Study` (direction ``maximize``) asks ``n_points``
configurations at a time, each is cross-validated (all their splits in
parallel with ``n_jobs``), and each candidate's mean test score (of the
``refit`` metric) is told back, so TPE, the GP, annealing or random search
choose the next candidates from all the scores so far. Every candidate of
one ``fit`` is scored on the same splits (``cv`` is split once per ``fit``).

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

import math
import numbers
import os
import time
from collections.abc import Callable, Mapping, Sequence
from copy import deepcopy
from typing import Any

import numpy as np
from sklearn import get_config
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.exceptions import FitFailedWarning, NotFittedError
from sklearn.metrics import check_scoring, get_scorer
from sklearn.model_selection import check_cv
from sklearn.utils import check_random_state, get_tags
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping, process_routing
from sklearn.utils.metaestimators import available_if
from sklearn.utils.parallel import Parallel
from sklearn.utils.validation import check_is_fitted, indexable

from ..exceptions import StudyError, format_values
from ..objectives import MAXIMIZE
from ..optimizers import Optimizer, available
from ..space import Config, Space, build
from ..storage import Storage, TrialState
from ..study import Study, Trial
from ..validation import check_has_methods, check_integral, check_one_of, check_type
from .sklearn_results import (
    SINGLE,
    Fitting,
    SplitJob,
    best_index,
    check_fits,
    cv_results,
    decode_split,
    encode_split,
    fill_failed,
    metric_names,
)
from .sklearn_space import check_params, grid_to_space

__all__ = ["TreefarmSearchCV", "decode_split", "encode_split"]

#: The user attribute holding a candidate's per-split records (see ``treefarm.integration.sklearn_results``).
CV_ATTR = "cv_splits"

_SPACE = (
    (Mapping, list, Space, type(None)),
    "a dict of parameter spaces, a list of them, a treefarm space or None",
)
#: Each setting's types (beside ``scoring`` and ``refit``, which may also be callables).
_SETTINGS: dict[str, tuple[tuple[type, ...], str]] = {
    "search_spaces": _SPACE,
    "param_distributions": _SPACE,
    "n_iter": ((numbers.Integral,), "an integer"),
    "algo": ((str, Optimizer), "an optimizer's name or an Optimizer"),
    "n_points": ((numbers.Integral,), "an integer"),
    "scoring": (
        (str, list, tuple, Mapping, type(None)),
        "a scorer's name, a list or dict of them, a callable or None",
    ),
    "n_jobs": ((numbers.Integral, type(None)), "an integer or None"),
    "refit": ((bool, str), "True, False, a metric's name or a callable"),
    "verbose": ((numbers.Integral, bool), "an integer"),
    "pre_dispatch": ((numbers.Integral, str), "an integer or an expression such as '2*n_jobs'"),
    "random_state": (
        (numbers.Integral, np.random.RandomState, type(None)),
        "an integer, a RandomState or None",
    ),
    "error_score": ((numbers.Real, str), "'raise' or a number"),
    "return_train_score": ((bool,), "True or False"),
    "storage": ((str, os.PathLike, Storage, type(None)), "a path, a URL, a Storage or None"),
    "study_name": ((str, type(None)), "a string or None"),
}


def _routing() -> bool:
    """scikit-learn's metadata routing is on (``sklearn.set_config(enable_metadata_routing=True)``)."""
    return bool(get_config().get("enable_metadata_routing", False))


def _estimator_has(attr: str) -> Callable[[TreefarmSearchCV], bool]:
    """For ``available_if``: the best estimator (or, before ``fit``, the estimator) has
    ``attr``, and the search refits one."""

    def check(self: TreefarmSearchCV) -> bool:
        _check_refit(self, attr)
        getattr(self.best_estimator_ if hasattr(self, "best_estimator_") else self.estimator, attr)
        return True

    return check


def _delegate(method: str) -> Any:
    """The search's ``method``: ``best_estimator_``'s, present exactly when the best
    estimator (before ``fit``, the estimator) has it and the search refits one."""

    def call(self: TreefarmSearchCV, X: Any) -> Any:
        check_is_fitted(self)
        return getattr(self.best_estimator_, method)(X)

    call.__name__ = call.__qualname__ = method
    call.__doc__ = f"``best_estimator_.{method}(X)``."
    return available_if(_estimator_has(method))(call)


def _check_refit(search: TreefarmSearchCV, attr: str) -> None:
    if not search.refit:
        raise AttributeError(
            f"This {type(search).__name__} instance was initialized with refit=False. {attr} is available "
            "only after refitting on the best parameters. You can refit an estimator manually using the "
            "best_params_ attribute"
        )


class TreefarmSearchCV(MetaEstimatorMixin, BaseEstimator):
    """Cross-validated search over a treefarm space; see the module docstring.

    Parameters as in scikit-learn's ``RandomizedSearchCV`` (``scoring``,
    ``n_jobs``, ``refit``, ``cv``, ``verbose``, ``pre_dispatch``,
    ``error_score``, ``return_train_score``), and:

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

    With multi-metric ``scoring`` (a list or dict), ``refit`` names the metric
    the study maximizes (so it is neither False nor a callable); a scoring
    callable returning a dict of scores needs the same. With one metric,
    ``refit`` may be False (no ``best_estimator_``) or a callable choosing
    ``best_index_`` from ``cv_results_``.

    A candidate whose every split failed (with a numeric ``error_score``) is
    failed in the study and left out of ``cv_results_``; one whose fits failed
    on some splits stays, those splits scored ``error_score``. Failed fits are
    warned once per ``fit`` (``FitFailedWarning``); when every fit of a ``fit``
    failed it raises scikit-learn's ``ValueError`` ("All the N fits failed").

    After ``fit``, ``study_`` is the treefarm study, besides scikit-learn's
    ``cv_results_``, ``best_index_``, ``best_params_``, ``best_score_``,
    ``best_estimator_``, ``refit_time_``, ``scorer_``, ``n_splits_`` and
    ``multimetric_``. With ``verbose`` > 0 the search says once how many folds
    and candidates it fits, then one line per candidate (its score and the best
    so far); with ``verbose`` > 1 also one line per split.
    """

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
        self.estimator = estimator
        self.search_spaces = search_spaces
        self.param_distributions = param_distributions
        self.n_iter = n_iter
        self.algo = algo
        self.n_points = n_points
        self.scoring = scoring
        self.n_jobs = n_jobs
        self.refit = refit
        self.cv = cv
        self.verbose = verbose
        self.pre_dispatch = pre_dispatch
        self.random_state = random_state
        self.error_score = error_score
        self.return_train_score = return_train_score
        self.storage = storage
        self.study_name = study_name

    def __sklearn_tags__(self) -> Any:
        """The estimator's kind (classifier, regressor), its pairwise and sparse input tags."""
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.estimator_type = inner.estimator_type
        tags.classifier_tags = deepcopy(inner.classifier_tags)
        tags.regressor_tags = deepcopy(inner.regressor_tags)
        tags.input_tags.pairwise = inner.input_tags.pairwise
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.array_api_support = inner.array_api_support
        return tags

    # --------------------------------------------------------------- settings
    def _check_settings(self) -> None:
        """The types as scikit-learn's searches check theirs (``ConfigError``, a
        ``ValueError``), then the search's own ranges and names (``StudyError``)."""
        check_has_methods("estimator", self.estimator, ["fit"])
        for name, (kinds, what) in _SETTINGS.items():
            value = getattr(self, name)
            if not (name in ("scoring", "refit") and callable(value)):
                check_type(name, value, kinds, what)
        if isinstance(self.error_score, str):
            check_one_of("error_score", self.error_score, ["raise"], also=" or a number")
        check_integral("n_iter", self.n_iter, error=StudyError)
        check_integral("n_points", self.n_points, error=StudyError)
        if isinstance(self.algo, str):
            check_one_of("algo", self.algo, available(), error=StudyError, also=" or an Optimizer")
        self._metric()

    def _multimetric(self) -> bool:
        return isinstance(self.scoring, (list, tuple, Mapping))

    def _metric(self) -> str:
        """The score the study maximizes: the ``refit`` metric (``score`` with one metric)."""
        if not self._multimetric():
            return SINGLE
        check_one_of(
            "refit",
            self.refit,
            [str(n) for n in self.scoring],
            error=StudyError,
            also=" (with multi-metric scoring, refit names the scorer the search maximizes)",
        )
        return str(self.refit)

    def _scorer(self) -> Any:
        """``scorer_``: the scorer (or the callable ``scoring``), or ``{name: scorer}``."""
        if callable(self.scoring):
            return self.scoring
        scorer = check_scoring(self.estimator, self.scoring)  # scikit-learn's checks of every form
        if isinstance(self.scoring, Mapping):
            return {name: get_scorer(s) for name, s in self.scoring.items()}
        if self._multimetric():
            return {name: get_scorer(name) for name in self.scoring}
        return scorer

    def _route(self, params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        """The parameters of ``fit`` as (the estimator's fit, the scorers', the splitter's):
        routed by their requests with metadata routing on; else all go to the estimator
        but ``groups``, which goes to the splitter (as in scikit-learn's searches)."""
        if _routing():
            routed = process_routing(self, "fit", **params)
            return dict(routed.estimator.fit), dict(routed.scorer.score), dict(routed.splitter.split)
        fit = dict(params)
        return fit, {}, {"groups": fit.pop("groups", None)}

    def get_metadata_routing(self) -> MetadataRouter:
        """Where ``fit``'s and ``score``'s parameters go with metadata routing on: the
        estimator's ``fit``, the scorers' ``score`` and the splitter's ``split``."""
        scorer = self.scoring if callable(self.scoring) else check_scoring(self.estimator, self.scoring)
        router = MetadataRouter(owner=type(self).__name__)
        router.add(estimator=self.estimator, method_mapping=MethodMapping().add(caller="fit", callee="fit"))
        router.add(
            scorer=scorer,
            method_mapping=MethodMapping()
            .add(caller="score", callee="score")
            .add(caller="fit", callee="score"),
        )
        router.add(splitter=self.cv, method_mapping=MethodMapping().add(caller="fit", callee="split"))
        return router

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
        """The candidates (and their split records) already in ``study`` from an earlier fit,
        but those whose every split failed (left out of ``cv_results_`` as when they ran)."""
        params: list[dict[str, Any]] = []
        outs: list[dict[str, Any]] = []
        for record in study.trials:
            rows = record.user_attrs.get(CV_ATTR)
            if not (record.state.is_finished and isinstance(rows, list) and len(rows) == self.n_splits_):
                continue
            decoded = [decode_split(row) for row in rows if isinstance(row, Mapping)]
            if len(decoded) == len(rows) and any(row.get("fit_error") is None for row in decoded):
                params.append(check_params(build(study.space, Config(record.params))))
                outs.extend(decoded)
        return params, outs

    # ------------------------------------------------------------- the search
    def fit(self, X: Any, y: Any = None, **params: Any) -> TreefarmSearchCV:
        """Search: ask, cross-validate and tell ``n_iter`` candidates (fewer when resumed),
        then refit the best on all of ``X``, ``y``.

        ``params`` go to the estimator's ``fit`` (``groups`` to the ``cv``
        splitter); with metadata routing on, where each is requested.
        """
        self._check_settings()
        scorer = self._scorer()
        X, y = indexable(X, y)
        fit_params, score_params, split_params = self._route(params)
        cv = check_cv(self.cv, y, classifier=is_classifier(self.estimator))
        self.n_splits_ = cv.get_n_splits(X, y, **split_params)
        splits = list(cv.split(X, y, **split_params))
        if len(splits) != self.n_splits_ or not splits:
            raise ValueError(
                "cv must split the data at least once, as many times as its get_n_splits says, but got "
                f"{format_values(n_splits=self.n_splits_)} and {len(splits)} splits"
            )
        fitting = Fitting(
            self.scoring,
            self.error_score,
            bool(self.return_train_score),
            self._multimetric(),
            {**score_params, **fit_params},
            int(self.verbose),
        )
        study = self.study_ = self._open_study()
        self._restored = self._restore(study)
        candidates, rows = self._search(study, SplitJob(clone(self.estimator), X, y, splits, fitting))
        results = self._choose(candidates, rows)
        if self.refit:
            self._refit(X, y, fit_params)
        self.scorer_ = scorer
        self.cv_results_ = results
        return self

    def _search(self, study: Study, job: SplitJob) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Ask ``n_points`` candidates, cross-validate them, tell their scores, until the
        study holds ``n_iter``; the candidates for ``cv_results_`` (the restored first)
        and their records."""
        params, rows = (list(part) for part in self._restored)
        this_fit: list[dict[str, Any]] = []
        remaining = max(1, self.n_iter - sum(t.state.is_finished for t in study.trials))
        if self.verbose > 0:
            print(
                f"Fitting {self.n_splits_} folds for each of {remaining} candidates, totalling "
                f"{remaining * self.n_splits_} fits ({self.n_points} at a time, each chosen from the scores so far)"
            )
        with Parallel(n_jobs=self.n_jobs, pre_dispatch=self.pre_dispatch) as parallel:
            while remaining > 0:
                trials = [study.ask() for _ in range(min(self.n_points, remaining))]
                for candidate, got in self._evaluate(study, parallel, job, trials):
                    this_fit.extend(got)
                    if any(row["fit_error"] is None for row in got):
                        params.append(candidate)
                        rows.extend(got)
                remaining -= len(trials)
        check_fits(this_fit, self.error_score, FitFailedWarning)
        return params, rows

    def _evaluate(
        self, study: Study, parallel: Parallel, job: SplitJob, trials: Sequence[Trial]
    ) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """Cross-validate ``trials`` and tell each its mean score: failed when every
        split failed or the mean is not finite (then the reason, or the records, are
        kept with the trial)."""
        try:
            candidates = [check_params(t.value) for t in trials]
            results = job.run(parallel, candidates)
            scored = [self._value(rows) for rows in results]
        except BaseException as exc:
            for trial in trials:
                study.tell(trial, exception=exc)
            raise
        for trial, rows, (value, _) in zip(trials, results, scored):
            if value is None:
                reason = str(rows[0]["fit_error"]).strip().splitlines()[-1]
                study.tell(
                    trial, exception=ValueError(f"every fit of the candidate failed, the first with {reason}")
                )
                continue
            trial.set_user_attr(CV_ATTR, [encode_split(r) for r in rows])
            if math.isfinite(value):
                study.tell(trial, value)
            else:
                study.tell(trial, state=TrialState.FAILED)
        if self.verbose > 0:
            for trial, (value, metric) in zip(trials, scored):
                shown = "failed" if value is None else f"{metric} {value:.6g}"
                print(f"[treefarm] candidate {trial.number + 1}/{self.n_iter}: {shown}{self._best(study)}")
        return list(zip(candidates, results))

    def _value(self, rows: list[dict[str, Any]]) -> tuple[float | None, str]:
        """A candidate's mean test score of the metric the study maximizes (its failed
        splits scored ``error_score``; None when every split failed), and that metric."""
        names = metric_names(rows)
        if names is None:
            return None, SINGLE
        fill_failed(rows, names, self.error_score, train=bool(self.return_train_score))
        if names:
            check_one_of(
                "refit",
                self.refit,
                names,
                error=StudyError,
                also=" (a scoring callable returning several "
                "scores needs refit to name the one the search maximizes)",
            )
        metric = str(self.refit) if names else SINGLE
        return float(np.mean([r["test_scores"][metric] if names else r["test_scores"] for r in rows])), metric

    @staticmethod
    def _best(study: Study) -> str:
        try:
            return f" (best {study.best_value:.6g}, candidate {study.best_trial.number + 1})"
        except StudyError:
            return ""

    def _choose(self, candidates: list[dict[str, Any]], rows: list[dict[str, Any]]) -> dict[str, Any]:
        """``cv_results_``, and ``multimetric_``, ``best_index_``, ``best_params_`` and
        (unless ``refit`` is a callable) ``best_score_`` from it."""
        results = cv_results(candidates, rows, self.n_splits_, train=bool(self.return_train_score))
        self.multimetric_ = isinstance(rows[0]["test_scores"], Mapping)
        metric = str(self.refit) if self.multimetric_ else SINGLE
        self.best_index_ = best_index(self.refit, metric, results)
        if not callable(self.refit):
            self.best_score_ = results[f"mean_test_{metric}"][self.best_index_]
        self.best_params_ = results["params"][self.best_index_]
        return results

    def _refit(self, X: Any, y: Any, fit_params: Mapping[str, Any]) -> None:
        """``best_estimator_``: a clone of the estimator with the best parameters, fitted on all the data."""
        estimator = clone(self.estimator).set_params(**clone(self.best_params_, safe=False))
        start = time.perf_counter()
        if y is None:
            estimator.fit(X, **fit_params)
        else:
            estimator.fit(X, y, **fit_params)
        self.refit_time_ = time.perf_counter() - start
        self.best_estimator_ = estimator
        if hasattr(estimator, "feature_names_in_"):
            self.feature_names_in_ = estimator.feature_names_in_

    # ------------------------------------------------- the best estimator's
    def score(self, X: Any, y: Any = None, **params: Any) -> float:
        """The score of ``best_estimator_`` on ``X``, ``y``: by ``scoring`` (its ``refit``
        metric with several), else the estimator's own ``score``; ``params`` go to the
        scorer with metadata routing on."""
        _check_refit(self, "score")
        check_is_fitted(self)
        if params and not _routing():
            raise ValueError(
                "passing parameters to score needs metadata routing "
                f"(sklearn.set_config(enable_metadata_routing=True)), but got params={sorted(params)}"
            )
        score_params = process_routing(self, "score", **params).scorer["score"] if params else {}
        if isinstance(self.scorer_, dict):
            return self.scorer_[self.refit](self.best_estimator_, X, y, **score_params)
        score = self.scorer_(self.best_estimator_, X, y, **score_params)
        return score[self.refit] if self.multimetric_ else score

    score_samples = _delegate("score_samples")
    predict = _delegate("predict")
    predict_proba = _delegate("predict_proba")
    predict_log_proba = _delegate("predict_log_proba")
    decision_function = _delegate("decision_function")
    transform = _delegate("transform")
    inverse_transform = _delegate("inverse_transform")

    @property
    def n_features_in_(self) -> int:
        """The number of features ``best_estimator_`` saw (only with ``refit``)."""
        try:
            check_is_fitted(self)
        except NotFittedError as exc:
            raise AttributeError(f"{type(self).__name__} object has no n_features_in_ attribute.") from exc
        return int(self.best_estimator_.n_features_in_)

    @property
    def classes_(self) -> Any:
        """The class labels of ``best_estimator_`` (only with ``refit``, for a classifier)."""
        _estimator_has("classes_")(self)
        return self.best_estimator_.classes_

    def __getstate__(self) -> dict[str, Any]:
        """The pickled search leaves out ``study_``, which holds an open storage
        (reopen it with ``Study.load(study_name, storage=...)``)."""
        state: dict[str, Any] = dict(super().__getstate__())  # object.__getstate__ gives __dict__ itself
        for name in ("study_", "_restored"):
            state.pop(name, None)
        return state
