"""The bbob-mixint problems: each space is what cocoex says, the optimum is COCO's, instances pool."""

from __future__ import annotations

import numpy as np
import pytest
from bench.harness.mixint import DIMS, FUNCTIONS, keys, mixint_problems
from bench.harness.problems import all_problems

import treefarm as tf


def test_every_function_instance_and_dimension_is_in_the_table() -> None:
    problems = mixint_problems()
    assert len(problems) == len(FUNCTIONS) * 3 * len(DIMS)
    assert set(problems) <= set(all_problems()), "the runner finds mixint problems by name"
    run = keys([7], [5], ["tf-tpe"], 10, 100)
    assert [k[0] for k in run[:4]] == ["mixint_f07_i1_d5", "mixint_f07_i2_d5", "mixint_f07_i3_d5", "mixint_f07_i1_d5"]


@pytest.mark.parametrize(("function", "instance", "dim"), [(1, 1, 5), (13, 2, 5), (24, 3, 10)])
def test_space_types_and_bounds_are_what_cocoex_says(function: int, instance: int, dim: int) -> None:
    cocoex = pytest.importorskip("cocoex", reason="coco-experiment is needed to read bbob-mixint's own problem")
    suite = cocoex.Suite("bbob-mixint", f"instances: {instance}", f"dimensions: {dim}")
    coco = suite.get_problem_by_function_dimension_instance(function, dim, instance)
    problem = mixint_problems()[f"mixint_f{function:02d}_i{instance}_d{dim}"]
    space = problem.treefarm_space()
    n_int = coco.number_of_integer_variables
    assert n_int == dim * 4 // 5, f"cocoex says {n_int} integer variables of {dim}"
    for k, (lo, hi) in enumerate(zip(coco.lower_bounds, coco.upper_bounds, strict=True)):
        node = space[f"x{k}"]
        expected = tf.Int if k < n_int else tf.Real
        assert isinstance(node, expected), f"x{k} is {node!r}; cocoex says {'integer' if k < n_int else 'real'}"
        assert (node.low, node.high) == (lo, hi), f"x{k} bounds {(node.low, node.high)}; cocoex says {(lo, hi)}"
    # the objective is cocoex's, and its best value is the logged optimum: the start point is above it
    x0 = coco.initial_solution
    value = problem.objective({f"x{k}": v for k, v in enumerate(x0)})
    assert value == coco(x0)
    assert problem.optimum is not None and value > problem.optimum


def test_the_optimum_is_reached_on_the_integer_grid() -> None:
    """f1 (the sphere) in 5-d, instance 1: the best of the 1,024 integer combinations, each with its
    real variable minimised, is COCO's f_opt (so a regret of 0 is reachable)."""
    pytest.importorskip("cocoex", reason="coco-experiment is needed to evaluate bbob-mixint")
    from scipy.optimize import minimize_scalar

    problem = mixint_problems()["mixint_f01_i1_d5"]
    ints = [p for p in problem.params if p.kind == "int"]
    grids = np.meshgrid(*[np.arange(p.low, p.high + 1) for p in ints], indexing="ij")
    best = np.inf
    for combo in np.stack([g.ravel() for g in grids], axis=1):
        values = {p.name: float(v) for p, v in zip(ints, combo, strict=True)}
        found = minimize_scalar(lambda c, fixed=values: problem.objective({**fixed, "x4": c}), bounds=(-5, 5),
                                method="bounded", options={"xatol": 1e-10})
        best = min(best, float(found.fun))
    assert best == pytest.approx(problem.optimum, abs=1e-6)
