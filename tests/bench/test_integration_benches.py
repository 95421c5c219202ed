"""The integration benchmarks run end to end on a tiny budget and report from their rows."""

from __future__ import annotations

import math

import pytest
from bench.harness.problems import SYNTHETIC
from bench.suites import optuna_sampler, sklearn_search

pytest.importorskip("optuna")
pytest.importorskip("sklearn")


def test_both_routes_of_the_optuna_bench_run_and_report() -> None:
    rows = [
        {**optuna_sampler.run_one(route, SYNTHETIC["branin"], seed, 4), "commit": "x"}
        for route in optuna_sampler.ROUTES
        for seed in (0, 1)
    ]
    assert all(math.isfinite(r["regret"]) and r["regret"] >= 0 for r in rows)
    assert "| branin |" in optuna_sampler.report(rows)


def test_the_sklearn_bench_runs_treefarm_and_reports() -> None:
    row = sklearn_search.run_one("treefarm-tpe", "hgb-cancer", 0, 2)
    assert 0.5 < row["best_score"] <= 1.0
    assert "| hgb-cancer | treefarm-tpe | 1 |" in sklearn_search.report([row])
