"""The Pareto logic against brute force: fronts, ranks, hypervolume (exact on
integer points, where the dominated volume is a count of unit cells),
contributions, and the order of feasible and infeasible trials."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from treefarm.pareto import (
    crowding_distance,
    dominates,
    feasible_mask,
    hypervolume,
    hypervolume_contributions,
    nondominated_mask,
    nondomination_ranks,
    pareto_order,
    ranking_losses,
    reference_point,
    violations,
)

SIDE = 5


def point_sets(m: int, max_n: int = 12) -> st.SearchStrategy[np.ndarray]:
    return st.integers(1, max_n).flatmap(
        lambda n: arrays(np.float64, (n, m), elements=st.integers(0, SIDE - 1).map(float))
    )


def brute_front(Y: np.ndarray) -> np.ndarray:
    return np.array([not any(dominates(b, a) for b in Y) for a in Y])


def brute_volume(Y: np.ndarray, ref: float = SIDE) -> float:
    """Unit cells of [0, ref)^m whose lower corner some point is <= in every objective."""
    m = Y.shape[1]
    cells = np.array(list(itertools.product(range(int(ref)), repeat=m)), dtype=float)
    if len(Y) == 0:
        return 0.0
    covered = (Y[None, :, :] <= cells[:, None, :]).all(axis=2).any(axis=1)
    return float(covered.sum())


@given(point_sets(2) | point_sets(3))
def test_the_front_is_what_no_point_dominates(Y: np.ndarray) -> None:
    assert np.array_equal(nondominated_mask(Y), brute_front(Y))


@given(point_sets(2) | point_sets(3))
def test_ranks_peel_fronts(Y: np.ndarray) -> None:
    ranks = nondomination_ranks(Y)
    assert (ranks >= 0).all()
    for r in np.unique(ranks):
        members = Y[ranks == r]
        rest = Y[ranks >= r]
        assert np.array_equal(nondominated_mask(rest)[np.flatnonzero(ranks[ranks >= r] == r)], np.ones(len(members), bool))
        if r > 0:
            previous = Y[ranks == r - 1]
            assert all(any(dominates(p, q) for p in previous) for q in members)


@given(point_sets(2))
def test_two_objective_ranks_by_a_sort_equal_peeling_by_brute_force(Y: np.ndarray) -> None:
    expected = np.full(len(Y), -1)
    left = np.arange(len(Y))
    rank = 0
    while left.size:
        front = left[brute_front(Y[left])]
        expected[front] = rank
        left = np.setdiff1d(left, front)
        rank += 1
    assert np.array_equal(nondomination_ranks(Y), expected)


@settings(max_examples=60)
@given(point_sets(2) | point_sets(3) | point_sets(4, max_n=6))
def test_hypervolume_counts_dominated_cells_exactly(Y: np.ndarray) -> None:
    ref = np.full(Y.shape[1], float(SIDE))
    assert hypervolume(Y, ref) == pytest.approx(brute_volume(Y))


@settings(max_examples=60)
@given(point_sets(2) | point_sets(3))
def test_contributions_are_the_volume_lost_without_each_point(Y: np.ndarray) -> None:
    ref = np.full(Y.shape[1], float(SIDE))
    total = hypervolume(Y, ref)
    expected = [total - hypervolume(np.delete(Y, i, axis=0), ref) for i in range(len(Y))]
    assert hypervolume_contributions(Y, ref) == pytest.approx(expected)


@given(point_sets(3))
def test_hypervolume_ignores_order_and_duplicates(Y: np.ndarray) -> None:
    ref = np.full(3, float(SIDE))
    shuffled = np.random.default_rng(0).permutation(Y)
    assert hypervolume(np.vstack([shuffled, Y]), ref) == pytest.approx(hypervolume(Y, ref))


def test_hypervolume_of_a_known_front() -> None:
    Y = np.array([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0], [3.5, 3.5]])
    assert hypervolume(Y, np.array([4.0, 4.0])) == pytest.approx(3 + 2 + 1)
    assert hypervolume(Y, np.array([0.5, 4.0])) == 0.0
    with pytest.raises(ValueError, match="reference"):
        hypervolume(Y, np.array([4.0]))
    with pytest.raises(ValueError, match="finite"):
        hypervolume(Y, np.array([4.0, np.inf]))


def test_crowding_marks_the_extremes_infinite() -> None:
    Y = np.array([[0.0, 4.0], [1.0, 2.0], [3.0, 1.0], [4.0, 0.0]])
    d = crowding_distance(Y)
    assert np.isinf(d[[0, 3]]).all()
    assert d[1] == pytest.approx(3 / 4 + 3 / 4)


def test_violations_and_feasibility() -> None:
    C = np.array([[-1.0, 0.0], [0.5, -2.0], [np.nan, -1.0], [2.0, 3.0]])
    assert violations(C).tolist() == [0.0, 0.5, np.inf, 5.0]
    assert feasible_mask(C).tolist() == [True, False, False, False]


@given(point_sets(2), st.data())
def test_feasible_trials_come_first_and_the_first_is_on_the_front(Y: np.ndarray, data: st.DataObject) -> None:
    C = data.draw(arrays(np.float64, (len(Y), 2), elements=st.sampled_from([-1.0, 0.0, 0.5, 2.0])))
    order = pareto_order(Y, C)
    assert sorted(order.tolist()) == list(range(len(Y)))
    feasible = feasible_mask(C)
    flags = feasible[order]
    assert not np.any(~flags[:-1] & flags[1:]), "an infeasible trial came before a feasible one"
    v = violations(C)[order][~flags]
    assert np.all(np.diff(v) >= 0)
    if feasible.any():
        assert nondominated_mask(Y[feasible])[np.flatnonzero(np.flatnonzero(feasible) == order[0])[0]]


@given(point_sets(2) | point_sets(3), st.data())
def test_ranking_losses_sort_as_the_pareto_order(Y: np.ndarray, data: st.DataObject) -> None:
    C = data.draw(st.none() | arrays(np.float64, (len(Y), 1), elements=st.sampled_from([-1.0, 0.0, 0.5, 2.0])))
    keys = ranking_losses(Y, C)
    assert np.array_equal(np.argsort(keys, kind="stable"), pareto_order(Y, C))


@given(arrays(np.float64, st.tuples(st.integers(1, 10), st.just(1)), elements=st.floats(-5, 5)), st.data())
def test_one_objective_with_constraints_puts_every_infeasible_loss_after_the_feasible(
    Y: np.ndarray, data: st.DataObject
) -> None:
    C = data.draw(arrays(np.float64, (len(Y), 1), elements=st.sampled_from([-1.0, 0.5, 2.0])))
    keys = ranking_losses(Y, C)
    feasible = feasible_mask(C)
    assert np.array_equal(keys[feasible], Y[feasible, 0])
    if feasible.any() and (~feasible).any():
        assert keys[~feasible].min() > keys[feasible].max()


def test_reference_point_lies_beyond_the_worst() -> None:
    Y = np.array([[0.0, 5.0], [2.0, 1.0]])
    assert reference_point(Y).tolist() == [2.2, 5.4]
    assert reference_point(np.array([[3.0, 3.0]])).tolist() == [3.3, 3.3]


@given(point_sets(2))
def test_the_fast_two_objective_contributions_match_the_exact_ones_on_a_front(Y: np.ndarray) -> None:
    from treefarm.pareto.order import front_contributions_2d

    front = np.unique(Y[nondominated_mask(Y)], axis=0)
    ref = np.full(2, float(SIDE))
    assert front_contributions_2d(front, ref) == pytest.approx(hypervolume_contributions(front, ref))
