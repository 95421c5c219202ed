"""Integrations: treefarm's GP inside Optuna, and ``TreefarmSearchCV`` against scikit-optimize.

Two questions users of the other libraries ask: does treefarm's GP lose
anything when it drives an Optuna study (``TreefarmSampler("gp")``, 60
evaluations of the synthetic functions, against treefarm's own study), and
does ``TreefarmSearchCV`` find as good a model as scikit-optimize's
``BayesSearchCV`` for the same ``n_iter`` (25)?
"""

from __future__ import annotations

from ..harness.paths import RESULTS
from ..harness.spread import spread_notes
from ..harness.suite import Finals, Suite, lines

COLUMNS = ("treefarm", "treefarm in Optuna", "treefarm tpe", "skopt")


def _finals() -> Finals:
    out: Finals = {}
    route = {"treefarm": "treefarm", "optuna": "treefarm in Optuna"}
    for r in lines(RESULTS / "optuna_sampler.jsonl"):
        out.setdefault((f"{r['problem']} (regret)", route[r["route"]]), {})[int(r["seed"])] = float(r["regret"])
    method = {"treefarm-gp": "treefarm", "treefarm-tpe": "treefarm tpe", "skopt": "skopt"}
    for r in lines(RESULTS / "sklearn_search.jsonl"):
        key = (f"{r['task']} (CV error)", method[r["method"]])
        out.setdefault(key, {})[int(r["seed"])] = 1.0 - float(r["best_score"])
    return out


SUITES = (
    Suite(
        "integrations", "Integrations: Optuna and scikit-learn",
        "Rows `(regret)`: Optuna's study with `TreefarmSampler(\"gp\")` against treefarm's own study, 60 "
        "evaluations. Rows `(CV error)`: `TreefarmSearchCV` (GP, TPE) against `BayesSearchCV`, `n_iter=25`.",
        "simple regret at the end, or 1 - the best CV accuracy", "treefarm", COLUMNS,
        ("optuna_sampler.jsonl", "sklearn_search.jsonl"),
        ("python -m bench.suites.optuna_sampler --seeds 10 --budget 60",
         "python -m bench.suites.sklearn_search --seeds 10 --n-iter 25"),
        _finals, notes=spread_notes("treefarm", COLUMNS, full=False)),
)
