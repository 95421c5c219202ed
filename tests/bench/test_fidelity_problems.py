"""The multi-fidelity problems: their optima, their costs, the low fidelities that mislead, the ledger's measure."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from bench.harness.fidelity_methods import BudgetSpentError, Ledger, best_at
from bench.harness.fidelity_problems import (
    ALL_HELD_OUT,
    BOXES,
    HELD_OUT,
    HELD_OUT_FOURTH,
    HELD_OUT_LATER,
    HELD_OUT_THIRD,
    MAX_STEPS,
    OPTIMA,
    PROBLEMS,
    RASTRIGIN_SHIFT,
    problems,
    rank_correlation,
    table_path,
)

#: Where each synthetic function takes its optimum at full fidelity (Surjanovic & Bingham's library for
#: Branin and Hartmann; the corners of Park1 and Borehole; Currin's on the edge x2 = 0; Rosenbrock's at ones;
#: Rastrigin's at its shift; Trid's at i (11 - i)).
ARGMIN = {
    "branin": (math.pi, 2.275),
    "currin": (0.216666, 0.0),
    "park1": (1.0, 1.0, 1.0, 1.0),
    "borehole": (1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0),
    "hartmann3": (0.114614, 0.555649, 0.852547),
    "hartmann6": (0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573),
    "rosenbrock6": (1.0,) * 6,
    "rosenbrock10": (1.0,) * 10,
    "rastrigin8": tuple(RASTRIGIN_SHIFT),
    "trid10": tuple(float(i * (11 - i)) for i in range(1, 11)),
}


def _config(x: tuple[float, ...]) -> dict[str, float]:
    return {f"x{i}": v for i, v in enumerate(x)}


@pytest.mark.parametrize("name", list(BOXES))
def test_each_synthetic_function_takes_its_stated_optimum_at_full_fidelity_and_no_random_point_beats_it(
    name: str,
) -> None:
    problem = problems()[name]
    assert problem.full(_config(ARGMIN[name])) == pytest.approx(OPTIMA[name], abs=2e-5)
    box = BOXES[name]
    rng = np.random.default_rng(0)
    low, high = np.array(box.low), np.array(box.high)
    values = [problem.full(_config(tuple(low + rng.random(len(low)) * (high - low)))) for _ in range(2000)]
    assert min(values) >= OPTIMA[name] - 1e-6


@pytest.mark.parametrize("name", ["branin_mislead", "hartmann3_mislead", "hartmann6_noise", "rastrigin8_mislead"])
def test_a_misleading_variant_is_its_function_at_full_fidelity_and_ranks_unlike_it_below(name: str) -> None:
    problem, base = problems()[name], problems()[name.split("_")[0]]
    x = _config(ARGMIN[base.name])
    assert problem.full(x) == pytest.approx(base.full(x))
    assert problem.optimum == base.optimum
    for step in (1, 3, 9):
        assert rank_correlation(problem, step, n=400) < 0.3, step


@pytest.mark.parametrize("name", list(BOXES))
def test_the_published_fidelity_terms_rank_configurations_like_the_full_function(name: str) -> None:
    assert rank_correlation(problems()[name], 3, n=400) > 0.7


def test_costs_are_in_full_evaluation_equivalents() -> None:
    synthetic, mislead = problems()["hartmann6"], problems()["branin_mislead"]
    assert synthetic.cost(MAX_STEPS) == 1.0 and mislead.cost(MAX_STEPS) == 1.0
    assert synthetic.cost(9) == pytest.approx(0.05 + 0.95 * (9 / 27) ** 2)
    ledger = Ledger(synthetic, max_cost=1.5)
    ledger.evaluate(_config(ARGMIN["hartmann6"]), 9)
    ledger.evaluate(_config(ARGMIN["hartmann6"]), 27)
    assert ledger.spent == pytest.approx(1 + synthetic.cost(9)), "a fidelity parameter pays every evaluation in full"
    assert not ledger.done
    ledger.evaluate(_config(ARGMIN["hartmann6"]), 27)
    assert ledger.done
    with pytest.raises(BudgetSpentError):
        ledger.evaluate(_config(ARGMIN["hartmann6"]), 1)


def test_the_best_full_fidelity_value_within_a_cost_falls_back_to_the_incumbent_at_the_highest_fidelity() -> None:
    problem = problems()["branin"]
    ledger = Ledger(problem, max_cost=10)
    good, bad = _config(ARGMIN["branin"]), _config((-5.0, 0.0))
    ledger.evaluate(bad, 9)
    ledger.evaluate(good, 9)
    ledger.evaluate(bad, 27)
    at_nine = problem.cost(9)
    assert best_at(ledger.events, 0.0) == math.inf
    assert best_at(ledger.events, 2 * at_nine) == pytest.approx(problem.full(good)), "the better one at step 9"
    assert best_at(ledger.events, 10) == pytest.approx(problem.full(bad)), "the only full evaluation counts"


def test_a_third_of_the_problems_is_held_out() -> None:
    groups = (set(HELD_OUT), set(HELD_OUT_LATER), set(HELD_OUT_THIRD), set(HELD_OUT_FOURTH))
    assert set(ALL_HELD_OUT) <= set(PROBLEMS) and sum(map(len, groups)) == len(set.union(*groups))
    assert 3 * len(ALL_HELD_OUT) >= len(PROBLEMS)
    kinds = {name in BOXES for name in ALL_HELD_OUT}
    assert kinds == {True, False}, "synthetic functions and learning curves are both held out"


@pytest.mark.parametrize("name", ["hgb_cancer_rounds", "sgd_digits_epochs", "svc_digits_subset", "lgbm_cancer_rounds",
                                  "lgbm_diabetes_rounds", "mlp_wine_epochs", "lgbm_friedman_rounds",
                                  "mlp_digits_epochs", "svr_friedman_subset"])
def test_a_tabulated_curve_is_read_at_its_grid_index_and_a_resumed_curve_pays_only_the_steps_it_adds(
    name: str,
) -> None:
    if not table_path(name).exists():
        pytest.skip(f"{name}'s table is not made")
    problem = problems()[name]
    first = {p.name: 0 for p in problem.params}
    curve = [problem.value(first, s) for s in range(1, MAX_STEPS + 1)]
    assert all(math.isfinite(v) for v in curve)
    assert problem.optimum <= problem.full(first)
    ledger = Ledger(problem, max_cost=5)
    ledger.evaluate(first, 3)
    ledger.evaluate(first, 9, resumed_from=3)
    expected = 9 / 27 if problem.shape == "curve" else problem.cost(3) + problem.cost(9)
    assert ledger.spent == pytest.approx(expected)


def test_the_criteria_count_a_method_better_beyond_noise_and_its_median_at_half_the_cost(tmp_path) -> None:
    import json

    from bench.suites.fidelity import OURS, criteria, criteria_text

    optimum = problems()["branin"].optimum
    rows = []
    for seed in range(10):
        # ours: a full evaluation at cost 10 reaching regret 0.01; the other: regret 1 at cost 30
        rows.append({"problem": "branin", "method": OURS, "seed": seed, "max_cost": 30, "status": "ok",
                     "events": [[10.0, MAX_STEPS, optimum + 0.01 + 0.001 * seed, optimum + 0.01 + 0.001 * seed]]})
        rows.append({"problem": "branin", "method": "tf-auto-full", "seed": seed, "max_cost": 30, "status": "ok",
                     "events": [[29.0, MAX_STEPS, optimum + 1 + 0.01 * seed, optimum + 1 + 0.01 * seed]]})
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (found,) = criteria([path])
    assert found["best"] == "tf-auto-full" and found["vs_best"] == 1 and found["half_cost"], found
    assert "better on 1/1" in criteria_text([found]) and "at 15 reaches that method's at 30 on 1/1" in criteria_text(
        [found])


def test_a_later_file_replaces_a_run_a_failure_hides_nothing_and_a_cost_reads_the_shortest_run_reaching_it(
    tmp_path,
) -> None:
    import json

    from bench.suites.fidelity import finals_at

    optimum = problems()["branin"].optimum

    def row(seed: int, max_cost: int, regret: float, status: str = "ok") -> dict:
        value = optimum + regret
        return {"problem": "branin", "method": "m", "seed": seed, "max_cost": max_cost, "status": status,
                "events": [[1.0, MAX_STEPS, value, value]]}

    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    old.write_text("".join(json.dumps(r) + "\n" for r in (row(0, 30, 5.0), row(1, 30, 5.0))))
    new.write_text("".join(json.dumps(r) + "\n" for r in (row(0, 30, 1.0), row(1, 30, 0.0, status="error"),
                                                            row(0, 100, 3.0))))
    at30 = finals_at(30, [old, new])[("branin", "m")]
    assert at30 == pytest.approx({0: 1.0, 1: 5.0}), "the newer file's run of seed 0; seed 1's failed rerun hides nothing"
    assert finals_at(100, [old, new])[("branin", "m")] == pytest.approx({0: 3.0})


def test_the_suite_refuses_a_problem_it_does_not_have_before_running_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench.suites.fidelity import main

    out = tmp_path / "rows.jsonl"
    with pytest.raises(SystemExit) as exited:
        main(["run", "--problems", "branin,rosenbrock7", "--out", str(out)])
    assert exited.value.code == 2 and not out.exists()
    assert "unknown problem 'rosenbrock7': expected one of branin, currin" in capsys.readouterr().err
