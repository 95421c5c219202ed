"""TreefarmSearchCV: scikit-learn's own estimator checks, and the search behaviour users rely on."""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris, make_classification
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

import treefarm as tf
from treefarm.sklearn import TreefarmSearchCV


def _checked_searches() -> list[TreefarmSearchCV]:
    """The instances scikit-learn checks its own RandomizedSearchCV with (a regressor,
    and a classifier in a pipeline), searching treefarm spaces."""
    pipe = Pipeline([("pca", PCA()), ("logisticregression", LogisticRegression())])
    common = {"n_iter": 2, "cv": 2, "error_score": "raise", "random_state": 0}
    return [
        TreefarmSearchCV(Ridge(), {"alpha": tf.Real(0.1, 1.0, log=True)}, **common),
        TreefarmSearchCV(pipe, {"logisticregression__C": tf.Real(0.1, 1.0, log=True)}, **common),
    ]


#: The checks scikit-learn itself expects its RandomizedSearchCV and GridSearchCV to fail
#: (sklearn/utils/_test_common/instance_generator.py), for the same reasons.
EXPECTED_FAILED_CHECKS = {
    "check_supervised_y_2d": "DataConversionWarning not caught (as for scikit-learn's own searches)",
    "check_requires_y_none": "Doesn't fail gracefully (as for scikit-learn's own searches)",
}


@parametrize_with_checks(_checked_searches(), expected_failed_checks=lambda _: EXPECTED_FAILED_CHECKS)
def test_scikit_learn_estimator_checks(estimator: TreefarmSearchCV, check: object) -> None:
    check(estimator)  # type: ignore[operator]


@pytest.fixture(scope="module")
def cancer() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_breast_cancer(return_X_y=True)
    return X[::3], y[::3]


def _pipeline_space() -> tf.Join:
    """A choice of classifier, each with its own parameters (conditional)."""
    return tf.Join(
        svc={
            "clf": tf.Const(SVC()),
            "clf__C": tf.Real(1e-2, 1e2, log=True),
            "clf__gamma": tf.Choice("scale", "auto"),
        },
        tree={"clf": tf.Const(DecisionTreeClassifier(random_state=0)), "clf__max_depth": tf.Int(1, 8)},
    )


def test_conditional_estimator_choice_in_a_pipeline(cancer: tuple[np.ndarray, np.ndarray]) -> None:
    pipe = Pipeline([("scale", StandardScaler()), ("clf", SVC())])
    search = TreefarmSearchCV(pipe, _pipeline_space(), n_iter=12, cv=3, random_state=0).fit(*cancer)
    params = search.cv_results_["params"]
    assert len(params) == 12
    chosen = {type(p["clf"]).__name__ for p in params}
    assert chosen == {"SVC", "DecisionTreeClassifier"}
    for p in params:
        assert ("clf__C" in p) == isinstance(p["clf"], SVC)
        assert ("clf__max_depth" in p) == isinstance(p["clf"], DecisionTreeClassifier)
    assert search.best_score_ == pytest.approx(np.max(search.cv_results_["mean_test_score"]))
    assert search.best_score_ > 0.93
    assert search.best_estimator_.score(*cancer) > 0.93
    assert len(search.study_.trials) == 12


def test_a_list_of_grids_and_list_values_are_choices() -> None:
    X, y = load_iris(return_X_y=True)
    grids = [
        {"kernel": ["linear"], "C": tf.Real(0.1, 10, log=True)},
        {"kernel": ["rbf"], "gamma": tf.Real(1e-3, 1.0, log=True)},
    ]
    search = TreefarmSearchCV(SVC(), grids, n_iter=10, cv=3, random_state=1, algo="random").fit(X, y)
    for p in search.cv_results_["params"]:
        assert set(p) in ({"kernel", "C"}, {"kernel", "gamma"})
        assert (p["kernel"] == "linear") == ("C" in p)


def test_multi_metric_scoring_maximizes_the_refit_metric(cancer: tuple[np.ndarray, np.ndarray]) -> None:
    search = TreefarmSearchCV(
        Pipeline([("scale", StandardScaler()), ("clf", LogisticRegression())]),
        {"clf__C": tf.Real(1e-4, 1e2, log=True)},
        n_iter=6,
        cv=3,
        scoring={"acc": "accuracy", "auc": "roc_auc"},
        refit="auc",
        random_state=0,
    ).fit(*cancer)
    assert {"mean_test_acc", "mean_test_auc", "rank_test_auc"} <= set(search.cv_results_)
    assert search.best_score_ == pytest.approx(max(search.cv_results_["mean_test_auc"]))
    values = sorted(t.value for t in search.study_.trials)
    assert values == pytest.approx(sorted(search.cv_results_["mean_test_auc"]))


def test_multi_metric_without_a_refit_name_is_an_error_naming_refit() -> None:
    X, y = make_classification(n_samples=60, random_state=0)
    search = TreefarmSearchCV(
        LogisticRegression(),
        {"C": tf.Real(0.1, 1.0)},
        n_iter=2,
        scoring=["accuracy", "roc_auc"],
        refit=False,
    )
    with pytest.raises(tf.StudyError, match="refit=False"):
        search.fit(X, y)


def test_a_candidate_failing_every_split_is_failed_in_the_study_and_the_search_goes_on() -> None:
    X, y = make_classification(n_samples=60, random_state=0)
    space = {"C": [1.0, -1.0, 2.0]}  # C must be > 0: LogisticRegression(C=-1) raises in fit
    search = TreefarmSearchCV(
        LogisticRegression(), space, n_iter=3, cv=2, error_score=0.0, random_state=0, algo="random"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search.fit(X, y)
    states = {t.params["C"]: t.state.value for t in search.study_.trials}
    assert states == {1.0: "complete", -1.0: "failed", 2.0: "complete"}
    assert sorted(p["C"] for p in search.cv_results_["params"]) == [1.0, 2.0]
    assert search.best_params_["C"] > 0


def test_a_search_whose_every_candidate_fails_raises_scikit_learns_error() -> None:
    X, y = make_classification(n_samples=60, random_state=0)
    search = TreefarmSearchCV(LogisticRegression(), {"C": [-1.0, -2.0]}, n_iter=2, cv=2, error_score=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="fits failed"):
            search.fit(X, y)


def test_a_fitted_search_pickles_without_its_study() -> None:
    X, y = load_iris(return_X_y=True)
    search = TreefarmSearchCV(SVC(), {"C": tf.Real(0.1, 10.0, log=True)}, n_iter=3, cv=2, random_state=0)
    restored = pickle.loads(pickle.dumps(search.fit(X, y)))
    assert hasattr(search, "study_")  # pickling (as joblib's worker processes do) leaves the search intact
    np.testing.assert_array_equal(restored.predict(X), search.predict(X))
    assert restored.best_params_ == search.best_params_
    assert not hasattr(restored, "study_")


def test_a_search_resumes_from_its_storage_without_refitting(tmp_path: Path) -> None:
    X, y = load_iris(return_X_y=True)
    kwargs = {"cv": 3, "random_state": 0, "storage": tmp_path / "s.db", "study_name": "svc"}
    space = {"C": tf.Real(1e-2, 1e2, log=True), "gamma": tf.Real(1e-3, 1.0, log=True)}
    first = TreefarmSearchCV(SVC(), space, n_iter=4, **kwargs).fit(X, y)
    second = TreefarmSearchCV(SVC(), space, n_iter=7, **kwargs).fit(X, y)
    assert second.cv_results_["params"][:4] == first.cv_results_["params"]
    np.testing.assert_array_equal(
        second.cv_results_["mean_fit_time"][:4], first.cv_results_["mean_fit_time"]
    )  # restored as measured, not refitted
    assert len(second.cv_results_["params"]) == 7
    assert len(second.study_.trials) == 7
    assert second.best_score_ >= first.best_score_


def test_clone_and_get_params_follow_scikit_learns_conventions() -> None:
    search = TreefarmSearchCV(SVC(), {"C": tf.Real(0.1, 1.0)}, n_iter=5, algo="gp")
    copy = clone(search)
    assert copy.get_params()["algo"] == "gp"
    assert copy.get_params()["estimator__C"] == 1.0
    copy.set_params(estimator__C=3.0, n_iter=2)
    assert copy.estimator.C == 3.0 and search.estimator.C == 1.0


def test_a_bad_space_is_named() -> None:
    X, y = make_classification(n_samples=30, random_state=0)
    with pytest.raises(tf.SpaceError, match="search_spaces="):
        TreefarmSearchCV(SVC(), [1, 2], n_iter=2).fit(X, y)
    with pytest.raises(tf.ConfigError, match="dict of estimator parameters"):
        TreefarmSearchCV(SVC(), tf.Real(0, 1), n_iter=2).fit(X, y)


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"n_iter": 0}, "n_iter=0"),
        ({"n_points": 0}, "n_points=0"),
        ({"algo": "bayes"}, "algo='bayes'"),
    ],
)
def test_a_bad_setting_is_named(options: dict, named: str) -> None:
    """Ranges and optimizer names are checked by the search itself (scikit-learn's own
    range constraints are in a private module); the types as scikit-learn checks its own."""
    X, y = make_classification(n_samples=30, random_state=0)
    with pytest.raises(tf.StudyError, match=named):
        TreefarmSearchCV(SVC(), {"C": tf.Real(0.1, 1.0)}, **{"n_iter": 2, **options}).fit(X, y)
    with pytest.raises(ValueError, match="n_iter"):
        TreefarmSearchCV(SVC(), {"C": tf.Real(0.1, 1.0)}, n_iter="2").fit(X, y)


def test_batches_of_candidates_run_in_parallel() -> None:
    from joblib import parallel_config

    X, y = load_iris(return_X_y=True)
    space = {"C": tf.Real(1e-2, 1e2, log=True)}
    search = TreefarmSearchCV(SVC(), space, n_iter=4, n_points=2, n_jobs=2, cv=3, random_state=0)
    with parallel_config(backend="threading"):  # worker processes take ~20 s to start on a busy machine
        search.fit(X, y)
    assert len(search.cv_results_["params"]) == 4
    assert [t.state.value for t in search.study_.trials] == ["complete"] * 4
    assert search.best_score_ > 0.9


def test_a_scoring_callable_returning_several_scores_maximizes_the_refit_one() -> None:
    X, y = load_iris(return_X_y=True)

    def scores(estimator: object, X_: np.ndarray, y_: np.ndarray) -> dict[str, float]:
        accuracy = float(np.mean(estimator.predict(X_) == y_))  # type: ignore[attr-defined]
        return {"accuracy": accuracy, "error": 1 - accuracy}

    space = {"C": tf.Real(1e-3, 1e2, log=True)}
    search = TreefarmSearchCV(SVC(), space, n_iter=4, cv=3, scoring=scores, refit="accuracy", random_state=0)
    search.fit(X, y)
    assert sorted(t.value for t in search.study_.trials) == pytest.approx(
        sorted(search.cv_results_["mean_test_accuracy"])
    )
    with pytest.raises(tf.StudyError, match="refit=True"):
        TreefarmSearchCV(SVC(), space, n_iter=2, cv=3, scoring=scores).fit(X, y)
