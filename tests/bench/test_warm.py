"""The warm-start benchmark's source problems: the related one's optimum is the
target's moved by the shift, the unrelated one's is the mirror image; its warm
start reaches the target study as hints."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from bench.suites.hints import OPTIMA
from bench.suites.warm import PROBLEMS, SHIFT, report, source_objective

import treefarm as tf


def _point(values: list[float]) -> dict[str, float]:
    return {f"x{i}": v for i, v in enumerate(values)}


@pytest.mark.parametrize("name", ["hartmann6", "branin"])
def test_the_related_source_has_the_optimum_moved_by_the_shift(name: str) -> None:
    problem = PROBLEMS[name]
    widths = [p.high - p.low for p in problem.params]
    optimum = OPTIMA[name]
    moved = [x + SHIFT * w for x, w in zip(optimum, widths)]
    related = source_objective(problem, "related")
    assert related(_point(moved)) == pytest.approx(problem.objective(_point(optimum)))
    assert related(_point(optimum)) > problem.objective(_point(optimum)) + 1e-3


def test_the_unrelated_source_is_the_problem_mirrored() -> None:
    problem = PROBLEMS["hartmann6"]
    mirrored = [1.0 - x for x in OPTIMA["hartmann6"]]
    unrelated = source_objective(problem, "unrelated")
    assert unrelated(_point(mirrored)) == pytest.approx(problem.optimum, abs=1e-4)
    assert problem.objective(_point(mirrored)) > problem.optimum + 1.0


def test_a_warm_start_evaluates_the_sources_best_trial_first() -> None:
    problem = PROBLEMS["branin"]
    source = tf.Study.create(space=problem.treefarm_space(), algo="random", seed=0)
    source.optimize(lambda v: problem.objective(problem.flat_value(v)), 20)
    study = tf.Study.create(space=problem.treefarm_space(), seed=0, warm_start=[source])
    study.optimize(lambda v: problem.objective(problem.flat_value(v)), 1)
    best = min(t.value for t in source.trials if t.value is not None)
    assert not study.hints and study.trials[0].value == pytest.approx(best)


def test_the_report_counts_evaluations_to_the_cold_median(tmp_path: Path) -> None:
    rows = [
        {"problem": "branin", "variant": "cold", "seed": s, "source": "auto", "regret": list(np.linspace(2, 1, 100))}
        for s in range(3)
    ] + [
        {"problem": "branin", "variant": "related", "seed": s, "source": source, "regret": [1.0] * 100}
        for s in range(3)
        for source in ("auto", "tpe")
    ]
    path = tmp_path / "warm.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    lines = report(path).splitlines()
    assert lines[2] == "| branin | cold | 3 | 1 | 100 | - |"
    assert lines[3] == "| branin | related | 3 | 1 | 1 | 1.00 |"
