"""The acquisition optimizer: finds maxima, respects the domain, reproducible."""

from __future__ import annotations

import numpy as np

from treefarm.bo.maximize import maximize, perturb, sobol_candidates
from treefarm.bo.models.domain import Domain


def _bump(center: np.ndarray):
    def f(Z: np.ndarray, *, grad: bool = True) -> tuple[np.ndarray, np.ndarray]:
        diff = Z - center
        value = -(diff**2).sum(1)
        return value, -2 * diff

    return f


def test_finds_the_maximum_of_a_smooth_function() -> None:
    rng = np.random.default_rng(0)
    center = np.array([0.31, 0.77, 0.52])
    x, value = maximize(_bump(center), Domain.continuous_box(3), sobol_candidates(3, 64, rng), rng=rng)
    np.testing.assert_allclose(x, center, atol=1e-5)
    assert value > -1e-9


def test_bounds_confine_the_climb_to_a_box_and_it_ends_on_the_nearest_face() -> None:
    rng = np.random.default_rng(2)
    lower, upper = np.array([0.1, 0.5, 0.2]), np.array([0.4, 0.9, 0.4])
    starts = lower + sobol_candidates(3, 64, rng) * (upper - lower)
    center = np.array([0.31, 0.2, 0.9])  # the maximum lies outside the box
    x, _ = maximize(_bump(center), Domain.continuous_box(3), starts, rng=rng, bounds=(lower, upper))
    np.testing.assert_allclose(x, [0.31, 0.5, 0.4], atol=1e-5)


def test_respects_integer_levels_and_one_hot_groups() -> None:
    rng = np.random.default_rng(1)
    domain = Domain(
        np.array([True, False, False, False, False]), np.array([0, 5, 0, 0, 0]), (np.array([2, 3, 4]),)
    )
    center = np.array([0.4, 0.7, 0.0, 1.0, 0.0])
    X0 = domain.round(rng.random((40, 5)))
    x, _ = maximize(_bump(center), domain, X0, rng=rng)
    assert x[1] in (0.5, 0.75)
    assert sorted(x[2:]) == [0.0, 0.0, 1.0] and x[3] == 1.0
    assert abs(x[0] - 0.4) < 1e-5


def test_columns_that_are_not_free_never_move() -> None:
    rng = np.random.default_rng(2)
    domain = Domain(np.array([True, True, False]), np.array([0, 0, 5]), ())
    X0 = domain.round(rng.random((10, 3)))
    free = np.ones((10, 3), dtype=bool)
    free[:, 1:] = False
    x, _ = maximize(_bump(np.array([0.5, 0.5, 0.5])), domain, X0, free=free, rng=rng)
    start = X0[np.flatnonzero(X0[:, 1] == x[1])]
    assert len(start) == 1 and x[2] == start[0, 2]
    assert abs(x[0] - 0.5) < 1e-5


def test_inactive_entries_never_move() -> None:
    domain = Domain(
        np.array([True, True, False, False, False]), np.array([0, 0, 2, 0, 0]), (np.array([3, 4]),)
    )
    X0 = np.array([[0.1, -0.5, -0.5, -0.5, -0.5], [0.9, -0.5, -0.5, -0.5, -0.5]])
    x, _ = maximize(_bump(np.array([0.3, 1.0, 1.0, 0.0, 1.0])), domain, X0, rng=np.random.default_rng(0))
    np.testing.assert_allclose(x, [0.3, -0.5, -0.5, -0.5, -0.5], atol=1e-6)


def test_continuous_columns_climb_again_after_a_discrete_move() -> None:
    """The best real value depends on the integer level (x0* = x1 / 2), so
    the optimum (0.5, 1) is reached from (0.9, 0) only by alternating the
    gradient step and the level moves."""

    def f(Z: np.ndarray, *, grad: bool = True) -> tuple[np.ndarray, np.ndarray]:
        gap = Z[:, 0] - Z[:, 1] / 2
        return -(gap**2) - (Z[:, 1] - 1) ** 2, np.stack([-2 * gap, gap - 2 * (Z[:, 1] - 1)], axis=1)

    domain = Domain(np.array([True, False]), np.array([0, 5]), ())
    x, value = maximize(f, domain, np.array([[0.9, 0.0]]), n_starts=1, rng=np.random.default_rng(0))
    np.testing.assert_allclose(x, [0.5, 1.0], atol=1e-5)
    assert value > -1e-9


def test_returns_a_rounded_point_from_unrounded_candidates() -> None:
    domain = Domain(np.array([True, False, False, False]), np.array([0, 3, 0, 0]), (np.array([2, 3]),))
    X0 = np.random.default_rng(6).random((30, 4))
    x, _ = maximize(_bump(np.array([0.6, 0.4, 0.3, 0.7])), domain, X0, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(x, domain.round(x))
    np.testing.assert_allclose(x, [0.6, 0.5, 0.0, 1.0], atol=1e-5)


def test_reproducible_and_perturbations_stay_in_the_cube() -> None:
    domain = Domain(np.array([True, False]), np.array([0, 4]), ())
    a = maximize(
        _bump(np.array([0.2, 0.6])),
        domain,
        domain.round(sobol_candidates(2, 16, np.random.default_rng(3))),
        rng=np.random.default_rng(4),
    )
    b = maximize(
        _bump(np.array([0.2, 0.6])),
        domain,
        domain.round(sobol_candidates(2, 16, np.random.default_rng(3))),
        rng=np.random.default_rng(4),
    )
    np.testing.assert_array_equal(a[0], b[0])
    P = perturb(np.array([[0.99, 1.0], [0.0, -0.5]]), 50, 0.2, domain, np.random.default_rng(5))
    assert np.all((P[:, 0] >= 0) & (P[:, 0] <= 1))
    assert np.all(P[1::2, 1] == -0.5)


def test_sobol_candidates_are_reproducible_and_stratified() -> None:
    a = sobol_candidates(3, 64, np.random.default_rng(8))
    np.testing.assert_array_equal(a, sobol_candidates(3, 64, np.random.default_rng(8)))
    assert not np.array_equal(a, sobol_candidates(3, 64, np.random.default_rng(9)))
    assert a.shape == (64, 3) and np.all((a >= 0) & (a < 1))
    for column in a.T:
        np.testing.assert_array_equal(np.sort(np.floor(column * 64)), np.arange(64))
    assert sobol_candidates(2, 5, np.random.default_rng(8)).shape == (5, 2)


def test_perturbations_respect_the_domain_and_the_scale() -> None:
    domain = Domain(
        np.array([True, False, False, False, False]), np.array([0, 5, 0, 0, 0]), (np.array([2, 3, 4]),)
    )
    best = np.array([[0.5, 0.5, 0.0, 1.0, 0.0]])
    P = perturb(best, 4000, 0.05, domain, np.random.default_rng(10))
    np.testing.assert_array_equal(P, domain.round(P))
    assert abs(np.std(P[:, 0]) - 0.05) < 0.003 and abs(np.mean(P[:, 0]) - 0.5) < 0.003
    level_moved = P[:, 1] != 0.5
    assert set(np.unique(P[:, 1])) == {0.25, 0.5, 0.75} and abs(level_moved.mean() - 0.5) < 0.03
    assert abs((P[:, 2:] != best[0, 2:]).any(1).mean() - 0.5 * 2 / 3) < 0.03


def test_local_search_crosses_a_wide_integer_range() -> None:
    domain = Domain(np.array([True, False]), np.array([0, 1001]), ())
    x, _ = maximize(
        _bump(np.array([0.2, 0.7])), domain, np.array([[0.9, 0.0]]), n_starts=1, rng=np.random.default_rng(0)
    )
    np.testing.assert_allclose(x, [0.2, 0.7], atol=1e-6)


def test_a_start_with_huge_negative_values_does_not_stop_the_others() -> None:
    def f(Z: np.ndarray, *, grad: bool = True) -> tuple[np.ndarray, np.ndarray]:
        t = 20 * (Z[:, 0] - 0.3)
        value = -np.log(np.cosh(t)) - 1e6 * Z[:, 1] ** 2
        return value, np.stack([-20 * np.tanh(t), -2e6 * Z[:, 1]], axis=1)

    X0 = np.array([[0.9, 0.0], [0.1, 1.0]])
    free = np.array([[True, False], [True, False]])
    x, _ = maximize(f, Domain.continuous_box(2), X0, free=free, rng=np.random.default_rng(0))
    np.testing.assert_allclose(x, [0.3, 0.0], atol=1e-6)
