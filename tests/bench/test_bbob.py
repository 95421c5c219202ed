"""The BBOB problems: every (function, instance, dimension) named, instances pooled, regret and stalls."""

from __future__ import annotations

import pytest
from bench.bbob import FUNCTIONS, bbob_problems, final_regrets, final_stalls, instance_of_seed, keys, pooled


def test_every_function_instance_and_dimension_has_its_optimum() -> None:
    problems = bbob_problems()
    assert len(problems) == len(FUNCTIONS) * 3 * 4
    p = problems["bbob_f03_i1_d2"]
    assert p.optimum == pytest.approx(-462.09) and len(p.params) == 2
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
