"""TreefarmSearchCV gives what GridSearchCV gives: on the same candidates, the same
``cv_results_`` (keys, split scores, means, ranks, masked parameter columns), the same
best candidate for every form of ``refit``, the same failed-fit handling, and the
best estimator's methods exactly when the estimator has them."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sklearn")

import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_classifier, is_regressor
from sklearn.datasets import load_iris, make_classification
from sklearn.decomposition import PCA
from sklearn.exceptions import FitFailedWarning
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import accuracy_score, make_scorer
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold, StratifiedKFold, cross_val_score
from sklearn.svm import SVC

import treefarm as tf
from treefarm.sklearn import TreefarmSearchCV


@pytest.fixture(scope="module")
def iris() -> tuple[np.ndarray, np.ndarray]:
    return load_iris(return_X_y=True)


def _same_candidates(search: TreefarmSearchCV) -> list[dict[str, list[Any]]]:
    """A ``param_grid`` that makes GridSearchCV evaluate the search's candidates in its order."""
    return [{name: [value] for name, value in p.items()} for p in search.cv_results_["params"]]


def assert_same_results(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    """The same keys in the same order (GridSearchCV sorts the parameter names of a
    candidate, a treefarm space keeps them as written) and the same values."""
    assert set(ours) == set(theirs)
    assert [k for k in ours if not k.startswith("param_")] == [
        k for k in theirs if not k.startswith("param_")
    ]
    for key, expected in theirs.items():
        got = ours[key]
        if key == "params":
            assert got == expected
        elif key.startswith("param_"):
            assert isinstance(got, np.ma.MaskedArray) and got.dtype == expected.dtype, key
            np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(expected))
            assert list(got.compressed()) == list(expected.compressed()), key
        elif key.endswith("_time"):
            assert got.shape == expected.shape and np.all(np.isfinite(got)), key
        elif key.startswith("rank_"):
            np.testing.assert_array_equal(got, expected)
            assert got.dtype == expected.dtype
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-12, equal_nan=True, err_msg=key)


def test_cv_results_equal_grid_search_cv_on_the_same_candidates(iris: tuple[np.ndarray, np.ndarray]) -> None:
    grids = [
        {"kernel": ["linear"], "C": tf.Real(1e-2, 10, log=True)},
        {"kernel": ["rbf"], "gamma": tf.Real(1e-3, 1.0, log=True), "C": [0.5, 1.0]},
    ]
    ours = TreefarmSearchCV(
        SVC(), grids, n_iter=8, cv=3, algo="random", random_state=0, return_train_score=True
    ).fit(*iris)
    assert {p["kernel"] for p in ours.cv_results_["params"]} == {"linear", "rbf"}  # masked columns
    theirs = GridSearchCV(SVC(), _same_candidates(ours), cv=3, return_train_score=True).fit(*iris)
    assert_same_results(ours.cv_results_, theirs.cv_results_)
    assert ours.best_index_ == theirs.best_index_ and ours.best_params_ == theirs.best_params_
    assert ours.best_score_ == theirs.best_score_
    assert ours.n_splits_ == theirs.n_splits_ == 3 and ours.multimetric_ is theirs.multimetric_ is False
    assert ours.refit_time_ > 0 and ours.scorer_(ours.best_estimator_, *iris) == ours.score(*iris)
    np.testing.assert_array_equal(ours.predict(iris[0]), theirs.predict(iris[0]))
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    assert ours.n_features_in_ == theirs.n_features_in_ == 4


def test_multi_metric_refit_by_name_equals_grid_search_cv(iris: tuple[np.ndarray, np.ndarray]) -> None:
    scoring = {"acc": "accuracy", "f1": "f1_macro"}
    space = {"C": tf.Real(1e-3, 1e2, log=True)}
    ours = TreefarmSearchCV(
        LogisticRegression(max_iter=500), space, n_iter=5, cv=3, scoring=scoring, refit="f1", random_state=0
    ).fit(*iris)
    theirs = GridSearchCV(
        LogisticRegression(max_iter=500), _same_candidates(ours), cv=3, scoring=scoring, refit="f1"
    ).fit(*iris)
    assert_same_results(ours.cv_results_, theirs.cv_results_)
    assert ours.multimetric_ is True and set(ours.scorer_) == {"acc", "f1"}
    assert (ours.best_index_, ours.best_score_) == (theirs.best_index_, theirs.best_score_)
    assert ours.score(*iris) == pytest.approx(theirs.score(*iris))
    told = sorted(t.value for t in ours.study_.trials)
    assert told == pytest.approx(sorted(ours.cv_results_["mean_test_f1"]))  # the study maximizes f1


def test_a_refit_callable_chooses_the_best_index(iris: tuple[np.ndarray, np.ndarray]) -> None:
    def worst(results: dict[str, Any]) -> int:
        return int(np.argmin(results["mean_test_score"]))

    space = {"C": tf.Real(1e-4, 1e2, log=True)}
    search = TreefarmSearchCV(
        LogisticRegression(max_iter=500), space, n_iter=5, cv=3, refit=worst, random_state=0
    )
    search.fit(*iris)
    assert search.best_index_ == worst(search.cv_results_)
    assert search.best_params_ == search.cv_results_["params"][search.best_index_]
    assert not hasattr(search, "best_score_")  # as in scikit-learn: a callable says no score
    assert search.best_params_["C"] == search.best_estimator_.C
    for refit, error in ((lambda r: "0", TypeError), (lambda r: 99, IndexError)):
        with pytest.raises(error, match="refit must return"):
            TreefarmSearchCV(LogisticRegression(), space, n_iter=2, cv=2, refit=refit).fit(*iris)


def test_refit_false_keeps_the_best_candidate_but_no_estimator(iris: tuple[np.ndarray, np.ndarray]) -> None:
    search = TreefarmSearchCV(SVC(), {"C": tf.Real(0.1, 10.0)}, n_iter=3, cv=2, refit=False, random_state=0)
    search.fit(*iris)
    assert search.best_score_ == max(search.cv_results_["mean_test_score"])
    assert not hasattr(search, "best_estimator_") and not hasattr(search, "predict")
    with pytest.raises(AttributeError, match="refit=False"):
        search.score(*iris)


class OddFails(ClassifierMixin, BaseEstimator):
    """A classifier whose fit fails on an odd number of samples when ``fails`` is set."""

    def __init__(self, fails: bool = False) -> None:
        self.fails = fails

    def fit(self, X: np.ndarray, y: np.ndarray) -> OddFails:
        if self.fails and len(X) % 2:
            raise ValueError("an odd number of samples")
        self.classes_ = np.unique(y)
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.full(len(X), self.classes_[0])


def test_failed_fits_are_warned_scored_nan_and_ranked_last_as_in_grid_search_cv() -> None:
    X, y = make_classification(n_samples=61, random_state=0)  # KFold(2) trains on 30 and on 31 samples
    cv = KFold(2)
    ours = TreefarmSearchCV(OddFails(), {"fails": [False, True]}, n_iter=2, n_points=2, cv=cv, algo="grid")
    with (
        pytest.warns(FitFailedWarning, match="1 fits failed out of a total of 4"),
        pytest.warns(UserWarning, match="test scores are non-finite"),
    ):
        ours.fit(X, y)
    assert sorted(ours.cv_results_["param_fails"]) == [False, True]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = GridSearchCV(OddFails(), _same_candidates(ours), cv=cv).fit(X, y)
    assert_same_results(ours.cv_results_, theirs.cv_results_)
    states = {t.params["fails"]: t.state.value for t in ours.study_.trials}
    assert states == {False: "complete", True: "failed"}  # a NaN mean is no score to learn from


def test_a_candidate_failing_every_split_is_warned_and_left_out() -> None:
    X, y = make_classification(n_samples=60, random_state=0)
    search = TreefarmSearchCV(
        LogisticRegression(), {"C": [1.0, -1.0]}, n_iter=2, n_points=2, cv=2, algo="grid"
    )
    with pytest.warns(FitFailedWarning, match="2 fits failed out of a total of 4"):
        search.fit(X, y)
    assert search.cv_results_["params"] == [{"C": 1.0}]
    failed = [t for t in search.study_.trials if t.state.value == "failed"]
    assert [t.params["C"] for t in failed] == [-1.0]
    with pytest.raises(ValueError, match="C"):
        TreefarmSearchCV(LogisticRegression(), {"C": [-1.0]}, n_iter=1, cv=2, error_score="raise").fit(X, y)


def test_methods_are_delegated_only_when_the_estimator_has_them(iris: tuple[np.ndarray, np.ndarray]) -> None:
    X, y = iris
    classifier = TreefarmSearchCV(LogisticRegression(max_iter=500), {"C": tf.Real(0.1, 10.0)}, n_iter=2, cv=2)
    svc = TreefarmSearchCV(SVC(), {"C": tf.Real(0.1, 10.0)}, n_iter=2, cv=2)
    pca = TreefarmSearchCV(PCA(), {"n_components": tf.Int(1, 3)}, n_iter=2, cv=2)
    assert hasattr(classifier, "predict_proba") and not hasattr(svc, "predict_proba")  # before fit too
    for search in (classifier.fit(X, y), svc.fit(X, y), pca.fit(X)):
        best = search.best_estimator_
        for method in ("predict", "predict_proba", "predict_log_proba", "decision_function", "transform"):
            assert hasattr(search, method) == hasattr(best, method), method
            if hasattr(best, method):
                np.testing.assert_array_equal(getattr(search, method)(X), getattr(best, method)(X))
    np.testing.assert_allclose(
        pca.inverse_transform(pca.transform(X)), pca.best_estimator_.inverse_transform(pca.transform(X))
    )
    np.testing.assert_array_equal(pca.score_samples(X), pca.best_estimator_.score_samples(X))
    assert pca.score(X) == pytest.approx(pca.best_estimator_.score(X))
    assert not hasattr(pca, "classes_") and not hasattr(pca, "predict")
    assert is_classifier(svc) and is_regressor(TreefarmSearchCV(Ridge(), {"alpha": [1.0]}))


def test_feature_names_come_from_the_best_estimator() -> None:
    pd = pytest.importorskip("pandas")
    X, y = load_iris(return_X_y=True, as_frame=True)
    assert isinstance(X, pd.DataFrame)
    search = TreefarmSearchCV(
        LogisticRegression(max_iter=500), {"C": [0.5, 1.0]}, n_iter=2, cv=2, algo="grid"
    )
    search.fit(X, y)
    assert list(search.feature_names_in_) == list(X.columns)


def test_clone_round_trip_and_nested_cross_validation(iris: tuple[np.ndarray, np.ndarray]) -> None:
    search = TreefarmSearchCV(SVC(), {"C": tf.Real(0.1, 10.0, log=True)}, n_iter=3, cv=2, random_state=0)
    copy = clone(search.fit(*iris))
    assert not hasattr(copy, "cv_results_") and not hasattr(copy, "study_")
    ours, theirs = search.get_params(deep=False), copy.get_params(deep=False)
    assert ours.keys() == theirs.keys()
    for name, value in ours.items():
        assert theirs[name] is value or theirs[name] == value or name == "estimator", name
    assert copy.fit(*iris).cv_results_["params"] == search.cv_results_["params"]  # same seed, same candidates
    scores = cross_val_score(clone(search), *iris, cv=StratifiedKFold(2, shuffle=True, random_state=0))
    assert scores.shape == (2,) and np.all(scores > 0.8)


def test_groups_go_to_the_splitter_as_in_grid_search_cv(iris: tuple[np.ndarray, np.ndarray]) -> None:
    X, y = iris
    groups = np.arange(len(y)) % 5
    ours = TreefarmSearchCV(SVC(), {"C": tf.Real(0.1, 10.0)}, n_iter=3, cv=GroupKFold(5), random_state=0)
    ours.fit(X, y, groups=groups)
    theirs = GridSearchCV(SVC(), _same_candidates(ours), cv=GroupKFold(5)).fit(X, y, groups=groups)
    assert_same_results(ours.cv_results_, theirs.cv_results_)


def test_metadata_routing_sends_sample_weight_where_requested(iris: tuple[np.ndarray, np.ndarray]) -> None:
    X, y = iris
    weight = np.random.default_rng(0).uniform(0.1, 2.0, len(y))
    with sklearn.config_context(enable_metadata_routing=True):
        estimator = LogisticRegression(max_iter=500).set_fit_request(sample_weight=True)
        scoring = make_scorer(accuracy_score).set_score_request(sample_weight=True)
        ours = TreefarmSearchCV(
            estimator, {"C": tf.Real(1e-3, 1.0, log=True)}, n_iter=3, cv=3, scoring=scoring
        )
        ours.fit(X, y, sample_weight=weight)
        theirs = GridSearchCV(estimator, _same_candidates(ours), cv=3, scoring=scoring)
        theirs.fit(X, y, sample_weight=weight)
        assert ours.score(X, y, sample_weight=weight) == pytest.approx(
            theirs.score(X, y, sample_weight=weight)
        )
    assert_same_results(ours.cv_results_, theirs.cv_results_)
    with pytest.raises(ValueError, match="metadata routing"):
        ours.score(X, y, sample_weight=weight)


@pytest.mark.parametrize(
    ("options", "error", "named"),
    [
        ({"error_score": "ignore"}, tf.ConfigError, "error_score='ignore'"),
        ({"return_train_score": "yes"}, tf.ConfigError, "return_train_score='yes'"),
        ({"n_jobs": 1.5}, tf.ConfigError, "n_jobs=1.5"),
        ({"estimator": "svc"}, tf.ConfigError, "estimator='svc'"),
        ({"scoring": {"acc": "accuracy"}, "refit": "auc"}, tf.StudyError, "refit='auc'"),
        ({"scoring": ["accuracy"], "refit": True}, tf.StudyError, "refit=True"),
    ],
)
def test_a_bad_setting_names_itself(options: dict[str, Any], error: type[Exception], named: str) -> None:
    X, y = make_classification(n_samples=30, random_state=0)
    settings = {"estimator": SVC(), "search_spaces": {"C": tf.Real(0.1, 1.0)}, "n_iter": 2, **options}
    with pytest.raises(error, match=named):
        TreefarmSearchCV(**settings).fit(X, y)


def test_verbose_2_says_one_line_per_split(
    capsys: pytest.CaptureFixture[str], iris: tuple[np.ndarray, np.ndarray]
) -> None:
    TreefarmSearchCV(SVC(), {"C": [1.0, 2.0]}, n_iter=2, cv=3, verbose=2, algo="grid").fit(*iris)
    out = capsys.readouterr().out
    assert out.count("[CV] END C=") == 6 and out.count("[treefarm] candidate ") == 2, out
