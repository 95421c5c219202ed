"""The BBOB problems: every (function, instance, dimension) named, instances pooled, regret and stalls."""

from __future__ import annotations

import pytest
from bench.harness.bbob import (
    FUNCTIONS,
    bbob_problems,
    best_of_table,
    final_regrets,
    final_stalls,
    instance_of_seed,
    keys,
    pooled,
)


def test_every_function_instance_and_dimension_has_its_optimum() -> None:
    problems = bbob_problems()
    assert len(problems) == len(FUNCTIONS) * 3 * 5  # 2, 3, 5, 10 and 20 dimensions
    p = problems["bbob_f03_i1_d2"]
    assert p.optimum == pytest.approx(-462.09) and len(p.params) == 2
    assert problems["bbob_f03_i1_d3"].optimum == p.optimum and len(problems["bbob_f03_i1_d3"].params) == 3
    assert {(q.low, q.high) for q in p.params} == {(-5.0, 5.0)}


def test_ten_seeds_cover_instances_one_to_three_and_pool_into_one_row() -> None:
    assert [instance_of_seed(s) for s in range(10)] == [1, 2, 3, 1, 2, 3, 1, 2, 3, 1]
    run = keys([3], [2], ["tf-gp"], 10, 100)
    assert {pooled(k[0]) for k in run} == {"bbob_f03_d2"} and len(run) == 10
    assert run[4] == ("bbob_f03_i2_d2", "tf-gp", 4, 100)


def test_regret_is_against_each_instances_optimum_and_a_converged_run_is_not_stuck() -> None:
    problems = bbob_problems()
    f1, f2 = problems["bbob_f03_i1_d2"].optimum, problems["bbob_f03_i2_d2"].optimum
    assert f1 is not None and f2 is not None
    stuck = [f1 + 5.0] * 100
    stuck[10] = f1 + 1.0
    rows = [
        {"problem": "bbob_f03_i1_d2", "method": "m", "seed": 0, "status": "ok", "losses": stuck},
        {"problem": "bbob_f03_i2_d2", "method": "m", "seed": 1, "status": "ok", "losses": [f2 + 3.0, f2]},
    ]
    assert sorted(final_regrets(rows)[("bbob_f03_d2", "m")].tolist()) == pytest.approx([0.0, 1.0])
    assert final_stalls(rows)[("bbob_f03_d2", "m")] == [89, 0]


def test_best_of_compares_our_better_method_with_the_best_non_treefarm_peer() -> None:
    problems = bbob_problems()
    f_opt = {i: problems[f"bbob_f03_i{i}_d2"].optimum for i in (1, 2, 3)}

    def rows(method: str, regrets: list[float]) -> list[dict[str, object]]:
        return [
            {
                "problem": f"bbob_f03_i{instance_of_seed(s)}_d2",
                "method": method,
                "seed": s,
                "status": "ok",
                "losses": [f_opt[instance_of_seed(s)] + r],  # type: ignore[operator]
            }
            for s, r in enumerate(regrets)
        ]

    data = [
        *rows("tf-gp", [1.0] * 5 + [1.2] * 5),
        *rows("tf-auto", [2.0] * 5 + [2.2] * 5),
        *rows("tf-tpe", [0.1] * 10),  # treefarm's own: never "the best peer"
        *rows("optuna-gp", [5.0] * 5 + [5.2] * 5),
        *rows("optuna-tpe", [9.0] * 10),
    ]
    methods = ["tf-gp", "tf-auto", "tf-tpe", "optuna-gp", "optuna-tpe"]
    table = best_of_table(data, ["tf-gp", "tf-auto"], ["optuna-gp", "optuna-tpe"], methods)
    assert "| bbob_f03_d2 | 1.1 | 2.1 | optuna-gp | 5.1 | better beyond noise |" in table
    assert "better beyond noise: 1, within noise: 0, worse beyond noise: 0" in table
    assert "tf-tpe 1.00, tf-gp 2.00, tf-auto 3.00, optuna-gp 4.00, optuna-tpe 5.00" in table


def test_a_bad_function_range_is_an_error_naming_the_value(capsys: pytest.CaptureFixture[str]) -> None:
    from bench.harness.bbob import main

    with pytest.raises(SystemExit):
        main(["run", "--functions", "1-x", "--methods", "tf-random"])
    assert "expected numbers and ranges like 1-5,7, got '1-x'" in capsys.readouterr().err
