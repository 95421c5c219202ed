"""TreefarmSearchCV as a drop-in for RandomizedSearchCV: its parameter name, its
scipy.stats distributions, and a verbose output that does not repeat itself."""

from __future__ import annotations

import pytest

pytest.importorskip("sklearn")

from scipy import stats
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

import treefarm as tf
from treefarm.sklearn import TreefarmSearchCV


def test_param_distributions_is_accepted_with_scipy_distributions() -> None:
    X, y = load_iris(return_X_y=True)
    search = TreefarmSearchCV(
        DecisionTreeClassifier(random_state=0),
        param_distributions={
            "max_depth": stats.randint(1, 5),
            "min_impurity_decrease": stats.uniform(0.0, 0.1),
            "ccp_alpha": stats.loguniform(1e-4, 1e-1),
            "criterion": ["gini", "entropy"],
        },
        n_iter=6,
        cv=3,
        random_state=0,
    ).fit(X, y)
    assert len(search.cv_results_["params"]) == 6
    for p in search.cv_results_["params"]:
        assert 1 <= p["max_depth"] <= 4 and isinstance(p["max_depth"], int)
        assert 0.0 <= p["min_impurity_decrease"] <= 0.1 and 1e-4 <= p["ccp_alpha"] <= 1e-1
    assert search.get_params()["param_distributions"] is not None


def test_both_or_neither_space_is_refused_naming_them() -> None:
    X, y = load_iris(return_X_y=True)
    space = {"C": tf.Real(0.1, 1.0)}
    for kwargs in ({}, {"search_spaces": space, "param_distributions": space}):
        with pytest.raises(tf.StudyError, match="search_spaces or as param_distributions"):
            TreefarmSearchCV(LogisticRegression(), n_iter=2, **kwargs).fit(X, y)


def test_an_unsupported_distribution_is_refused_by_name() -> None:
    X, y = load_iris(return_X_y=True)
    search = TreefarmSearchCV(LogisticRegression(), param_distributions={"C": stats.norm(1, 0.1)}, n_iter=2)
    with pytest.raises(tf.SpaceError, match=r"uniform, loguniform or randint .* but got C=norm\(1, 0.1\)"):
        search.fit(X, y)


def test_verbose_says_the_header_once_and_one_line_per_candidate(capsys: pytest.CaptureFixture[str]) -> None:
    X, y = load_iris(return_X_y=True)
    TreefarmSearchCV(
        LogisticRegression(max_iter=200),
        {"C": tf.Real(0.1, 10.0, log=True)},
        n_iter=4,
        cv=3,
        verbose=1,
        random_state=0,
    ).fit(X, y)
    out = capsys.readouterr().out
    assert out.count("Fitting 3 folds for each of") == 1, out
    assert "1 candidates" not in out
    assert out.count("[treefarm] candidate ") == 4 and "candidate 4/4: score " in out, out
    assert "\n\n" not in out
