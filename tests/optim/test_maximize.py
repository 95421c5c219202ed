"""The acquisition optimizer: finds maxima, respects the domain, reproducible."""

from __future__ import annotations

import numpy as np

from treefarm.models.domain import Domain
from treefarm.optim import maximize, perturb, sobol_candidates


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
    X0 = rng.random((10, 2))
    free = np.zeros((10, 2), dtype=bool)
    free[:, 0] = True
    x, _ = maximize(_bump(np.array([0.5, 0.5])), Domain.continuous_box(2), X0, free=free, rng=rng)
    assert any(np.isclose(x[1], X0[:, 1]).tolist())


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
