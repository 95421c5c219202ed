"""Expected hypervolume improvement for three objectives: the cells cover exactly
the region the front does not dominate, the closed form agrees with Monte Carlo,
and its gradients with finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treefarm.bo.acquisition.multi import log_ehvi, non_dominated_cells, non_dominated_cells_3d
from treefarm.pareto import hypervolume

REF = np.array([1.0, 1.0, 1.0])
FRONT = np.array([[0.2, 0.6, 0.5], [0.5, 0.3, 0.4], [0.7, 0.7, 0.1], [0.4, 0.5, 0.2], [0.6, 0.6, 0.6]])


def _improvement(y: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> float:
    return float(np.clip(upper - np.maximum(lower, y[None]), 0.0, None).prod(axis=1).sum())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(*[st.floats(0.0, 1.2, allow_nan=False)] * 3), min_size=1, max_size=12))
def test_the_cells_are_the_box_less_the_dominated_part(points: list[tuple[float, float, float]]) -> None:
    P = np.array(points)
    lower, upper = non_dominated_cells_3d(P, REF)
    covered = float(np.clip(upper - np.maximum(lower, 0.0), 0.0, None).prod(axis=1).sum())
    inside = P[np.all(P < REF, axis=1)]
    dominated = hypervolume(inside, REF) if len(inside) else 0.0
    assert covered == pytest.approx(1.0 - dominated, abs=1e-9)


def test_a_points_improvement_over_the_cells_is_the_exact_hypervolume_gain() -> None:
    lower, upper = non_dominated_cells(FRONT, REF)
    base = hypervolume(FRONT, REF)
    for y in np.random.default_rng(0).uniform(0.0, 1.1, (200, 3)):
        exact = hypervolume(np.vstack([FRONT, y]), REF) - base if np.all(y < REF) else 0.0
        assert _improvement(y, lower, upper) == pytest.approx(exact, abs=1e-12)


@pytest.mark.parametrize(
    "mu, sigma",
    [((0.4, 0.4, 0.3), (0.2, 0.3, 0.1)), ((0.7, 0.6, 0.5), (0.15, 0.2, 0.2)), ((0.9, 0.9, 0.9), (0.05, 0.05, 0.05))],
)
def test_the_closed_form_agrees_with_monte_carlo(mu: tuple[float, ...], sigma: tuple[float, ...]) -> None:
    lower, upper = non_dominated_cells(FRONT, REF)
    m, s = np.array(mu), np.array(sigma)
    Y = m + s * np.random.default_rng(1).standard_normal((200_000, 3))
    part = np.clip(upper[None] - np.maximum(lower[None], Y[:, None]), 0.0, None).prod(axis=2).sum(axis=1)
    value, _, _ = log_ehvi(m[None], s[None], lower, upper)
    assert np.exp(value[0]) == pytest.approx(part.mean(), rel=0.02)


def test_gradients_match_finite_differences() -> None:
    lower, upper = non_dominated_cells(FRONT, REF)
    mu = np.array([[0.45, 0.5, 0.35], [0.8, 0.2, 0.7]])
    sigma = np.array([[0.1, 0.2, 0.15], [0.05, 0.1, 0.3]])
    _, dmu, dsigma = log_ehvi(mu, sigma, lower, upper)
    h = 1e-6
    for j in range(3):
        e = np.zeros_like(mu)
        e[:, j] = h
        fd_mu = (log_ehvi(mu + e, sigma, lower, upper)[0] - log_ehvi(mu - e, sigma, lower, upper)[0]) / (2 * h)
        fd_s = (log_ehvi(mu, sigma + e, lower, upper)[0] - log_ehvi(mu, sigma - e, lower, upper)[0]) / (2 * h)
        np.testing.assert_allclose(dmu[:, j], fd_mu, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(dsigma[:, j], fd_s, rtol=1e-5, atol=1e-7)


def test_more_than_three_losses_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"2 or 3 losses.*length 4"):
        non_dominated_cells(np.zeros((1, 4)), np.ones(4))
