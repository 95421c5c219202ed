"""The conditional estimator-choice example searches all three classifiers and finds a good one."""

from __future__ import annotations

import pytest

pytest.importorskip("sklearn")

from sklearn.datasets import load_wine

from tests.test_examples import load


def test_the_example_chooses_among_classifiers_each_with_its_own_parameters() -> None:
    X, y = load_wine(return_X_y=True)
    search = load("sklearn_search").make_search(n_iter=8, algo="random").set_params(cv=3).fit(X, y)
    params = search.cv_results_["params"]
    names = {type(p["clf"]).__name__ for p in params}
    assert names == {"SVC", "LogisticRegression", "RandomForestClassifier"}
    for p in params:
        assert set(p) == {"clf"}
        if type(p["clf"]).__name__ == "RandomForestClassifier":
            assert 1 <= p["clf"].max_depth <= 12
    assert search.best_score_ > 0.9
