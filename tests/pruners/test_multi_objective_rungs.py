"""MO-ASHA: with several objectives a rung keeps the first 1/eta of its
competitors in Pareto order, a dominated trial stops, and the single-objective
rule is what it was."""

from __future__ import annotations

import numpy as np

from treefarm import SuccessiveHalvingPruner
from treefarm.objectives import Objectives
from treefarm.pareto import dominates, pareto_order
from treefarm.pruners import Curves
from treefarm.pruners.halving import promotable_vector

DIRS = Objectives(("minimize", "minimize"))


def curves(own: tuple[float, float], rivals: list[tuple[float, float]], step: int = 1) -> Curves:
    vectors = {n: {step: v} for n, v in enumerate(rivals)}
    vectors[len(rivals)] = {step: own}
    earlier = {n: {step: v[0]} for n, v in enumerate(rivals)}
    return Curves(len(rivals), {step: own[0]}, earlier, DIRS, vectors)


def test_a_front_member_goes_on_and_a_dominated_trial_stops() -> None:
    rivals = [(0.0, 1.0), (1.0, 0.0), (0.5, 0.5), (0.9, 0.9), (0.8, 0.95)]
    pruner = SuccessiveHalvingPruner(min_resource=1, reduction_factor=3)
    assert not pruner.prune(curves((0.2, 0.2), rivals))
    assert pruner.prune(curves((0.95, 0.99), rivals))


def test_rungs_keep_the_best_third_and_what_it_does_not_dominate() -> None:
    rng = np.random.default_rng(0)
    points = rng.random((30, 2))
    kept = [promotable_vector(np.vstack([np.delete(points, i, axis=0), points[i]]), 3) for i in range(30)]
    order = pareto_order(points)
    best = order[:10]
    expected = [i in best or not any(dominates(points[j], points[i]) for j in best) for i in range(30)]
    assert kept == expected
    assert 10 <= sum(kept) < 30


def test_a_nan_vector_stops_and_a_maximized_objective_is_negated() -> None:
    rivals = [(0.0, 1.0), (1.0, 0.0)]
    pruner = SuccessiveHalvingPruner(min_resource=1, reduction_factor=2)
    assert pruner.prune(curves((float("nan"), 0.0), rivals))
    maximize = Curves(2, {1: 5.0}, {0: {1: 1.0}, 1: {1: 2.0}}, Objectives(("maximize", "maximize")), {0: {1: (1.0, 1.0)}, 1: {1: (2.0, 2.0)}, 2: {1: (5.0, 5.0)}})
    assert not pruner.prune(maximize)


def test_without_vectors_the_single_objective_rule_holds() -> None:
    pruner = SuccessiveHalvingPruner(min_resource=1, reduction_factor=2)
    assert pruner.prune(Curves(2, {1: 5.0}, {0: {1: 1.0}, 1: {1: 2.0}}))
    assert not pruner.prune(Curves(2, {1: 0.5}, {0: {1: 1.0}, 1: {1: 2.0}}))
