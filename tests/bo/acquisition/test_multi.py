"""Acquisitions for several objectives: EHVI against Monte Carlo, the probability
of feasibility, ParEGO's scalarization, gradients against finite differences."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from treefarm.bo.acquisition.multi import (
    MultiObjective,
    chebyshev,
    log_ehvi,
    log_pof,
    non_dominated_cells_2d,
)
from treefarm.bo.models.domain import Domain
from treefarm.bo.models.gp import fit_gp
from treefarm.bo.models.stacked import Stacked
from treefarm.pareto import hypervolume

FRONT = np.array([[0.2, 0.9], [0.5, 0.5], [0.8, 0.1], [0.6, 0.7]])  # the last is dominated
REF = np.array([1.0, 1.0])


def _mc_ehvi(mu: np.ndarray, sigma: np.ndarray, n: int, seed: int) -> float:
    """The hypervolume improvement of ``n`` seeded draws, averaged (exact
    hypervolume of the front with and without each draw)."""
    Y = mu + sigma * np.random.default_rng(seed).standard_normal((n, 2))
    base = hypervolume(FRONT, REF)
    lower, upper = non_dominated_cells_2d(FRONT, REF)
    # the improvement of one point is the part of each cell above it (vectorized over draws)
    part = np.clip(upper[None] - np.maximum(lower[None], Y[:, None]), 0.0, None).prod(axis=2).sum(axis=1)
    # the cell formula on a few draws against the exact hypervolume
    for y in Y[:20]:
        exact = hypervolume(np.vstack([FRONT, y]), REF) - base if np.all(y < REF) else 0.0
        assert abs(_improvement(y, lower, upper) - exact) < 1e-12, f"cell improvement of {y} is not {exact}"
    return float(part.mean())


def _improvement(y: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> float:
    return float(np.clip(upper - np.maximum(lower, y[None]), 0.0, None).prod(axis=1).sum())


def test_cells_cover_the_region_the_front_does_not_dominate() -> None:
    lower, upper = non_dominated_cells_2d(FRONT, REF)
    low = np.maximum(lower, 0.0)  # inside the box [0, ref]
    covered = float(np.clip(upper - low, 0.0, None).prod(axis=1).sum())
    assert covered == pytest.approx(1.0 - hypervolume(FRONT, REF), abs=1e-12), (
        f"the cells cover {covered}, but the box less the dominated part is {1.0 - hypervolume(FRONT, REF)}"
    )


@pytest.mark.parametrize(
    "mu, sigma",
    [
        ((0.4, 0.4), (0.2, 0.3)),
        ((0.7, 0.6), (0.15, 0.2)),
        ((0.3, 0.8), (0.3, 0.2)),
        ((0.55, 0.45), (0.05, 0.02)),
    ],
)
def test_closed_form_ehvi_matches_monte_carlo(mu: tuple[float, float], sigma: tuple[float, float]) -> None:
    lower, upper = non_dominated_cells_2d(FRONT, REF)
    value, _, _ = log_ehvi(np.array([mu]), np.array([sigma]), lower, upper)
    mc = _mc_ehvi(np.array(mu), np.array(sigma), 200_000, seed=0)
    assert np.exp(value[0]) == pytest.approx(mc, rel=0.01), (
        f"closed-form EHVI {np.exp(value[0])} differs from Monte Carlo {mc} by more than 1%"
    )


def test_ehvi_is_zero_for_a_sure_point_in_the_dominated_region() -> None:
    lower, upper = non_dominated_cells_2d(FRONT, REF)
    value, _, _ = log_ehvi(np.array([[0.6, 0.6], [0.9, 0.95]]), np.full((2, 2), 1e-6), lower, upper)
    assert np.all(np.exp(value) < 1e-12), f"EHVI of a sure dominated point must be 0, but got {np.exp(value)}"
    assert np.all(np.isfinite(value)), "log EHVI must stay finite there (the optimizer climbs on it)"


def test_log_ehvi_is_finite_and_falls_far_from_the_front() -> None:
    lower, upper = non_dominated_cells_2d(FRONT, REF)
    mu = np.array([[1.0 + t, 1.0 + t] for t in (1.0, 5.0, 20.0, 40.0)])
    value, dmu, _ = log_ehvi(mu, np.full_like(mu, 0.1), lower, upper)
    assert np.all(np.isfinite(value)) and np.all(np.diff(value) < 0), f"log EHVI {value}"
    assert np.all(np.isfinite(dmu)) and np.all(dmu < 0), f"d log EHVI / d mu {dmu}"


def test_log_ehvi_gradients_in_mean_and_std_match_finite_differences() -> None:
    lower, upper = non_dominated_cells_2d(FRONT, REF)
    rng = np.random.default_rng(0)
    mu, sigma = rng.random((5, 2)) * 1.2, 0.05 + 0.3 * rng.random((5, 2))
    _, dmu, dsigma = log_ehvi(mu, sigma, lower, upper)
    eps = 1e-6
    for j in range(2):
        e = np.zeros((1, 2))
        e[0, j] = eps
        fd_mu = (
            log_ehvi(mu + e, sigma, lower, upper)[0] - log_ehvi(mu - e, sigma, lower, upper)[0]
        ) / (2 * eps)
        fd_s = (log_ehvi(mu, sigma + e, lower, upper)[0] - log_ehvi(mu, sigma - e, lower, upper)[0]) / (
            2 * eps
        )
        np.testing.assert_allclose(dmu[:, j], fd_mu, rtol=1e-4, atol=1e-7)
        np.testing.assert_allclose(dsigma[:, j], fd_s, rtol=1e-4, atol=1e-7)


def test_probability_of_feasibility_is_monotone_and_multiplies() -> None:
    mu = np.linspace(-3, 3, 13)[:, None] * np.ones((1, 2))
    value, dmu, _ = log_pof(mu, np.ones_like(mu), np.zeros(2))
    assert np.all(np.diff(value) < 0), f"log PoF must fall as the constraints' means rise, but got {value}"
    assert np.all(dmu < 0)
    one, _, _ = log_pof(mu[:, :1], np.ones((13, 1)), np.zeros(1))
    np.testing.assert_allclose(value, 2 * one)
    from scipy.stats import norm

    np.testing.assert_allclose(np.exp(one), norm.cdf(-mu[:, 0]), rtol=1e-12)


def test_chebyshev_scalarization_is_the_augmented_weighted_maximum() -> None:
    Y = np.array([[0.0, 10.0], [1.0, 0.0], [0.5, 5.0]])
    s = chebyshev(Y, np.array([0.25, 0.75]))
    np.testing.assert_allclose(s, [0.75 + 0.05 * 0.75, 0.25 + 0.05 * 0.25, 0.375 + 0.05 * 0.5])


@functools.cache
def _stacked() -> Stacked:
    rng = np.random.default_rng(1)
    X = rng.random((15, 2))
    domain = Domain.continuous_box(2)
    ys = [np.sin(5 * X[:, 0]) + X[:, 1], np.cos(3 * X[:, 1]) + X[:, 0], X.sum(axis=1) - 1.0]
    return Stacked([fit_gp(X, y, domain, rng=np.random.default_rng(i)) for i, y in enumerate(ys)])


@pytest.mark.parametrize("thresholds", [[], [0.0], [-50.0]])
def test_multi_objective_gradients_in_x_match_finite_differences(thresholds: list[float]) -> None:
    stacked = _stacked()
    model = stacked if thresholds else Stacked(stacked.models[:2])
    Y = model.y[:, :2]
    acq = MultiObjective(model, 2, thresholds, Y.max(axis=0) + 0.1)
    if thresholds == [-50.0]:
        assert not acq.any_feasible, "no row is feasible below -50: the acquisition is the PoF alone"
    Z = np.random.default_rng(2).random((4, 2)) * 0.8 + 0.1
    _, grad = acq(Z)
    eps = 1e-6
    fd = np.stack([(acq(Z + e)[0] - acq(Z - e)[0]) / (2 * eps) for e in np.eye(2) * eps], axis=1)
    np.testing.assert_allclose(grad, fd, rtol=1e-3, atol=1e-6)
    np.testing.assert_allclose(acq(Z, grad=False)[0], acq(Z)[0], rtol=1e-9)


def test_stacked_conditions_each_model_on_its_own_column() -> None:
    stacked = _stacked()
    Z = np.array([[0.3, 0.7]])
    mean, var = stacked.predict(Z)
    after = stacked.condition_on(Z, mean)
    mean2, var2 = after.predict(Z)
    np.testing.assert_allclose(mean2, mean, atol=1e-6)
    for j, model in enumerate(stacked.models):
        alone = model.condition_on(Z, mean[:, j]).predict(Z)
        np.testing.assert_allclose([mean2[0, j], var2[0, j]], [alone[0][0], alone[1][0]], rtol=1e-12)
    assert np.all(var2 < var), f"conditioning must shrink every output's variance, got {var2} from {var}"


def test_one_objective_with_constraints_gradients_match_finite_differences() -> None:
    stacked = _stacked()
    model = Stacked([stacked.models[0], stacked.models[2]])
    acq = MultiObjective(model, 1, [0.0], np.array([model.y[:, 0].max() + 0.1]))
    assert acq.upper[0, 0] == pytest.approx(model.y[model.y[:, 1] <= 0.0, 0].min()), (
        "one objective improves on the best feasible row"
    )
    Z = np.random.default_rng(3).random((4, 2)) * 0.8 + 0.1
    _, grad = acq(Z)
    eps = 1e-6
    fd = np.stack([(acq(Z + e)[0] - acq(Z - e)[0]) / (2 * eps) for e in np.eye(2) * eps], axis=1)
    np.testing.assert_allclose(grad, fd, rtol=1e-3, atol=1e-6)
