"""The learning curves of the tabular multi-fidelity problems, trained once per grid configuration.

``python -m bench.harness.fidelity_tables [NAME ...]`` writes
``bench/results/fidelity_table_NAME.json`` (the grid and, per configuration in
the grid's row-major order, the validation loss after each of the 27 steps).
Every model and split is seeded, so the tables are the same on every run
(up to the libraries' versions, recorded in the file). See
:mod:`bench.harness.fidelity_problems` for the problems.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .fidelity_problems import GRIDS, MAX_STEPS, table_path

Curve = Callable[[dict[str, Any]], list[float]]


def _split(x: np.ndarray, y: np.ndarray, stratify: bool = True) -> tuple[np.ndarray, ...]:
    from sklearn.model_selection import train_test_split

    return tuple(train_test_split(x, y, test_size=1 / 3, random_state=0, stratify=y if stratify else None))


def hgb_cancer_rounds() -> Curve:
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import log_loss

    xtr, xva, ytr, yva = _split(*load_breast_cancer(return_X_y=True))

    def curve(p: dict[str, Any]) -> list[float]:
        model = HistGradientBoostingClassifier(max_iter=4 * MAX_STEPS, early_stopping=False, random_state=0, **p)
        model.fit(xtr, ytr)
        staged = list(model.staged_predict_proba(xva))
        return [log_loss(yva, staged[4 * s - 1]) for s in range(1, MAX_STEPS + 1)]

    return curve


def _lgbm(split: tuple[np.ndarray, ...], objective: str, metric: str, scale: float = 1.0) -> Curve:
    """LightGBM's validation ``metric`` / ``scale`` every 4 boosting rounds, trained once to 108."""
    import lightgbm as lgb

    xtr, xva, ytr, yva = split

    def curve(p: dict[str, Any]) -> list[float]:
        record: dict[str, Any] = {}
        params = {"objective": objective, "metric": metric, "verbosity": -1, "seed": 0, "deterministic": True,
                  "num_threads": 1, "force_col_wise": True, **p}
        train = lgb.Dataset(xtr, ytr)
        lgb.train(params, train, num_boost_round=4 * MAX_STEPS, valid_sets=[lgb.Dataset(xva, yva, reference=train)],
                  callbacks=[lgb.record_evaluation(record)])
        losses = record["valid_0"][metric]
        return [losses[4 * s - 1] / scale for s in range(1, MAX_STEPS + 1)]

    return curve


def lgbm_diabetes_rounds() -> Curve:
    from sklearn.datasets import load_diabetes

    split = _split(*load_diabetes(return_X_y=True), stratify=False)
    return _lgbm(split, "regression", "l2", scale=float(np.var(split[3])))


def lgbm_cancer_rounds() -> Curve:
    from sklearn.datasets import load_breast_cancer

    return _lgbm(_split(*load_breast_cancer(return_X_y=True)), "binary", "binary_logloss")


def _friedman() -> tuple[np.ndarray, ...]:
    """Friedman's regression problem #1 (1991; scikit-learn's generator): 1,500 rows, 10 inputs of which 5
    matter, unit noise, split as every table's."""
    from sklearn.datasets import make_friedman1

    return _split(*make_friedman1(n_samples=1500, noise=1.0, random_state=0), stratify=False)


def lgbm_friedman_rounds() -> Curve:
    split = _friedman()
    return _lgbm(split, "regression", "l2", scale=float(np.var(split[3])))


def sgd_digits_epochs() -> Curve:
    from sklearn.datasets import load_digits
    from sklearn.linear_model import SGDClassifier
    from sklearn.metrics import log_loss

    x, y = load_digits(return_X_y=True)
    xtr, xva, ytr, yva = _split(x / 16.0, y)
    classes = np.unique(y)

    def curve(p: dict[str, Any]) -> list[float]:
        model = SGDClassifier(loss="log_loss", random_state=0, **p)
        out = []
        for _ in range(MAX_STEPS):
            model.partial_fit(xtr, ytr, classes=classes)
            out.append(log_loss(yva, model.predict_proba(xva), labels=classes))
        return out

    return curve


def _mlp_epochs(split: tuple[np.ndarray, ...]) -> Curve:
    """An MLP classifier's validation log-loss after each ``partial_fit`` epoch, on standardized inputs."""
    from sklearn.metrics import log_loss
    from sklearn.neural_network import MLPClassifier
    from sklearn.preprocessing import StandardScaler

    xtr, xva, ytr, yva = split
    scaler = StandardScaler().fit(xtr)
    xtr, xva = scaler.transform(xtr), scaler.transform(xva)
    classes = np.unique(ytr)

    def curve(p: dict[str, Any]) -> list[float]:
        hidden = p.pop("hidden")
        model = MLPClassifier((hidden,), random_state=0, **p)
        out = []
        for _ in range(MAX_STEPS):
            model.partial_fit(xtr, ytr, classes=classes)
            out.append(log_loss(yva, model.predict_proba(xva), labels=classes))
        return out

    return curve


def mlp_wine_epochs() -> Curve:
    from sklearn.datasets import load_wine

    return _mlp_epochs(_split(*load_wine(return_X_y=True)))


def mlp_digits_epochs() -> Curve:
    from sklearn.datasets import load_digits

    return _mlp_epochs(_split(*load_digits(return_X_y=True)))


def svc_digits_subset() -> Curve:
    from sklearn.datasets import load_digits
    from sklearn.svm import SVC

    x, y = load_digits(return_X_y=True)
    xtr, xva, ytr, yva = _split(x / 16.0, y)

    def curve(p: dict[str, Any]) -> list[float]:
        out = []
        for s in range(1, MAX_STEPS + 1):
            n = max(20, math.ceil(s / MAX_STEPS * len(ytr)))  # the split is shuffled: a prefix is a random subset
            out.append(1.0 - float(SVC(**p).fit(xtr[:n], ytr[:n]).score(xva, yva)))
        return out

    return curve


def svr_friedman_subset() -> Curve:
    from sklearn.svm import SVR

    xtr, xva, ytr, yva = _friedman()
    scale = float(np.var(yva))

    def curve(p: dict[str, Any]) -> list[float]:
        out = []
        for s in range(1, MAX_STEPS + 1):
            n = max(20, math.ceil(s / MAX_STEPS * len(ytr)))  # the split is shuffled: a prefix is a random subset
            residual = SVR(**p).fit(xtr[:n], ytr[:n]).predict(xva) - yva
            out.append(float(np.mean(residual**2)) / scale)
        return out

    return curve


MAKERS: dict[str, Callable[[], Curve]] = {
    "hgb_cancer_rounds": hgb_cancer_rounds,
    "lgbm_diabetes_rounds": lgbm_diabetes_rounds,
    "lgbm_cancer_rounds": lgbm_cancer_rounds,
    "sgd_digits_epochs": sgd_digits_epochs,
    "mlp_wine_epochs": mlp_wine_epochs,
    "svc_digits_subset": svc_digits_subset,
    "lgbm_friedman_rounds": lgbm_friedman_rounds,
    "mlp_digits_epochs": mlp_digits_epochs,
    "svr_friedman_subset": svr_friedman_subset,
}


def make(name: str) -> dict[str, Any]:
    """Train every configuration of ``name``'s grid; the table as written to its file."""
    import sklearn

    grid = GRIDS[name]
    curve = MAKERS[name]()
    curves = []
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for values in itertools.product(*grid.values()):
            losses = curve(dict(zip(grid, values)))
            curves.append([float(f"{v:.6g}") if math.isfinite(v) else 1e6 for v in losses])
    return {"name": name, "grid": {k: list(v) for k, v in grid.items()}, "steps": MAX_STEPS, "curves": curves,
            "seconds": round(time.perf_counter() - start, 1), "sklearn": sklearn.__version__}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.harness.fidelity_tables")
    parser.add_argument("names", nargs="*", default=list(MAKERS))
    args = parser.parse_args(argv)
    for name in args.names:
        data = make(name)
        (table_path(name)).write_text(json.dumps(data, separators=(",", ":")) + "\n")
        print(name, len(data["curves"]), f"{data['seconds']}s", flush=True)


if __name__ == "__main__":
    main()
