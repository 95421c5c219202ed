"""TreefarmSearchCV against scikit-optimize's BayesSearchCV at an equal number of candidates.

Two tuning tasks on data shipped with scikit-learn, each cross-validated on
the same fixed folds (3 stratified folds, shuffled with seed 0) by every
method, so the scores differ only by the candidates chosen:

- ``svc-digits``: an RBF SVM (``C``, ``gamma``, both log-scaled) on the
  digits (1,797 images of 8 x 8 pixels, 10 classes);
- ``hgb-cancer``: a histogram gradient-boosting classifier (learning rate
  log-scaled, leaves, minimum leaf size, L2 penalty) on the breast-cancer
  data (569 tumours, 30 features).

Methods: ``treefarm-gp`` and ``treefarm-tpe`` (``TreefarmSearchCV``) and
``skopt`` (``BayesSearchCV``, its default GP). Per run: the best mean CV
accuracy, and the wall and CPU time of ``fit`` (fits, optimizer and refit,
one process, one BLAS thread; CPU time is the steadier figure on a machine
shared with other jobs).

    nice -n 10 python -m bench.suites.sklearn_search --seeds 10 --n-iter 25

Rows go to ``bench/results/sklearn_search.jsonl`` (resumable: a method, task
and seed already there from this commit is not rerun); ``--report`` prints
the medians from the rows alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from ..harness.paths import RESULTS
from ..harness.report import median_difference_interval
from ..harness.runner import head_commit

OUT = RESULTS / "sklearn_search.jsonl"
METHODS = ("treefarm-gp", "treefarm-tpe", "skopt")


def _task(name: str) -> tuple[Any, Any, Any, dict[str, tuple[str, float, float]]]:
    """(estimator, X, y, {parameter: (kind, low, high)}) of a task; kind is real, log or int."""
    from sklearn import datasets
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.svm import SVC

    if name == "svc-digits":
        X, y = datasets.load_digits(return_X_y=True)
        return SVC(), X, y, {"C": ("log", 1e-2, 1e3), "gamma": ("log", 1e-5, 1e-1)}
    X, y = datasets.load_breast_cancer(return_X_y=True)
    params = {
        "learning_rate": ("log", 1e-3, 1.0),
        "max_leaf_nodes": ("int", 2, 64),
        "min_samples_leaf": ("int", 1, 50),
        "l2_regularization": ("real", 0.0, 10.0),
    }
    return HistGradientBoostingClassifier(max_iter=50, random_state=0), X, y, params


TASKS = ("svc-digits", "hgb-cancer")


def _treefarm_space(params: dict[str, tuple[str, float, float]]) -> dict[str, Any]:
    import treefarm as tf

    kinds: dict[str, Callable[[float, float], Any]] = {
        "log": lambda lo, hi: tf.Real(lo, hi, log=True),
        "real": lambda lo, hi: tf.Real(lo, hi),
        "int": lambda lo, hi: tf.Int(int(lo), int(hi)),
    }
    return {name: kinds[kind](lo, hi) for name, (kind, lo, hi) in params.items()}


def _skopt_space(params: dict[str, tuple[str, float, float]]) -> dict[str, Any]:
    from skopt.space import Integer, Real

    kinds: dict[str, Callable[[float, float], Any]] = {
        "log": lambda lo, hi: Real(lo, hi, prior="log-uniform"),
        "real": lambda lo, hi: Real(lo, hi),
        "int": lambda lo, hi: Integer(int(lo), int(hi)),
    }
    return {name: kinds[kind](lo, hi) for name, (kind, lo, hi) in params.items()}


def run_one(method: str, task: str, seed: int, n_iter: int) -> dict[str, Any]:
    from sklearn.model_selection import StratifiedKFold
    from threadpoolctl import threadpool_limits

    estimator, X, y, params = _task(task)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    if method == "skopt":
        import skopt
        from skopt import BayesSearchCV

        search = BayesSearchCV(estimator, _skopt_space(params), n_iter=n_iter, cv=cv, random_state=seed)
        version = skopt.__version__
    else:
        import treefarm as tf
        from treefarm.sklearn import TreefarmSearchCV

        algo = method.removeprefix("treefarm-")
        search = TreefarmSearchCV(
            estimator, _treefarm_space(params), n_iter=n_iter, algo=algo, cv=cv, random_state=seed
        )
        version = tf.__version__
    start, cpu = time.perf_counter(), time.process_time()
    with threadpool_limits(1):
        search.fit(X, y)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "method": method,
        "task": task,
        "seed": seed,
        "n_iter": n_iter,
        "best_score": float(search.best_score_),
        "wall": wall,
        "cpu": cpu,
        "version": version,
    }


def _rows(commit: str | None, n_iter: int) -> list[dict[str, Any]]:
    if not OUT.exists():
        return []
    rows = [json.loads(line) for line in OUT.read_text().splitlines() if line.strip()]
    return [r for r in rows if (commit is None or r["commit"] == commit) and r["n_iter"] == n_iter]


def report(rows: list[dict[str, Any]]) -> str:
    """Per task and method: seeds, median (and worst) best CV accuracy, the 95%
    bootstrap interval of its median minus scikit-optimize's, median wall and CPU time."""
    import numpy as np

    rng = np.random.default_rng(0)
    lines = [
        "| task | method | seeds | median best CV accuracy | worst | minus skopt's median (95% interval) "
        "| median wall s | median CPU s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for task in TASKS:
        peer = np.array([r["best_score"] for r in rows if r["task"] == task and r["method"] == "skopt"])
        for method in METHODS:
            got = [r for r in rows if r["task"] == task and r["method"] == method]
            if not got:
                continue
            scores = np.array([r["best_score"] for r in got])
            gap = "—"
            if method != "skopt" and len(peer):
                lo, hi = median_difference_interval(scores, peer, rng)
                gap = f"[{lo:+.4f}, {hi:+.4f}]"
            wall = statistics.median(r["wall"] for r in got)
            cpu = statistics.median(r["cpu"] for r in got)
            lines.append(
                f"| {task} | {method} | {len(got)} | {np.median(scores):.4f} | {scores.min():.4f} | {gap} "
                f"| {wall:.1f} | {cpu:.1f} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--n-iter", type=int, default=25)
    parser.add_argument("--methods", nargs="*", default=list(METHODS))
    parser.add_argument("--tasks", nargs="*", default=list(TASKS))
    parser.add_argument("--report", action="store_true", help="print the table from the rows and stop")
    args = parser.parse_args()
    commit = head_commit()
    if not args.report:
        done = {(r["method"], r["task"], r["seed"]) for r in _rows(commit, args.n_iter)}
        OUT.parent.mkdir(exist_ok=True)
        for seed in range(args.seeds):
            for task in args.tasks:
                for method in args.methods:
                    if (method, task, seed) in done:
                        continue
                    try:
                        row = {**run_one(method, task, seed, args.n_iter), "commit": commit}
                    except Exception as exc:  # a peer that cannot run here is reported, not fatal
                        row = {
                            "method": method,
                            "task": task,
                            "seed": seed,
                            "n_iter": args.n_iter,
                            "error": f"{type(exc).__name__}: {exc}",
                            "commit": commit,
                        }
                    with OUT.open("a") as f:
                        f.write(json.dumps(row) + "\n")
                    print(json.dumps(row), flush=True)
    print(report([r for r in _rows(None if args.report else commit, args.n_iter) if "error" not in r]))


if __name__ == "__main__":
    main()
