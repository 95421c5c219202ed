"""Which classifier, and with which settings? A conditional search with TreefarmSearchCV.

The wine data (178 wines, 13 chemical measurements, 3 cultivars; shipped
with scikit-learn) are classified by a pipeline ``scale -> clf`` whose last
step is itself searched: an RBF support-vector machine (``C``, ``gamma``),
a logistic regression (``C``) or a random forest (number of trees, depth).
Each estimator is a treefarm application ``op(SVC)(C=..., gamma=...)``, so
``C`` exists only where an SVM or a logistic regression was chosen and the
forest's parameters only where a forest was: a conditional space, which
scikit-optimize's ``BayesSearchCV`` cannot express (it searches one flat
space per estimator, each with its own budget).

    pip install -e ".[sklearn]"
    python examples/sklearn_search.py

Measured (seed 0, 30 candidates, TPE, 5 stratified folds, 6 s of CPU): best
CV accuracy 0.9889 with ``LogisticRegression(C=0.548)``; 20 candidates went
to logistic regression, 6 to forests, 4 to SVMs. ``search.study_`` holds
every candidate as a treefarm trial.
"""

from __future__ import annotations

from typing import Any

import treefarm as tf


def make_search(*, n_iter: int = 30, seed: int = 0, algo: str = "tpe") -> Any:
    """The search: a pipeline whose classifier is chosen among three, each with its own parameters."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from treefarm.sklearn import TreefarmSearchCV

    svm = tf.op(SVC)(C=tf.Real(1e-2, 1e3, log=True), gamma=tf.Real(1e-4, 1.0, log=True))
    logistic = tf.op(LogisticRegression)(C=tf.Real(1e-3, 1e2, log=True), max_iter=2000)
    forest = tf.op(RandomForestClassifier)(
        n_estimators=tf.Int(10, 200, log=True), max_depth=tf.Int(1, 12), random_state=0
    )
    space = {"clf": svm | logistic | forest}
    pipeline = Pipeline([("scale", StandardScaler()), ("clf", SVC())])
    return TreefarmSearchCV(pipeline, space, n_iter=n_iter, algo=algo, cv=5, random_state=seed)


if __name__ == "__main__":
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    search = make_search().fit(X, y)
    chosen = [type(p["clf"]).__name__ for p in search.cv_results_["params"]]
    print(f"best CV accuracy {search.best_score_:.4f} with {search.best_params_['clf']!r}")
    print("candidates per classifier:", {name: chosen.count(name) for name in sorted(set(chosen))})
