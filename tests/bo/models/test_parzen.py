"""Parzen estimators: normalized densities, draws that follow them, the N p + c rule."""

from __future__ import annotations

import numpy as np
from scipy import integrate, stats

from treefarm.bo.models.parzen import CategoricalParzen, forgetting_weights, numeric_parzen
from treefarm.space import Int, Normal, Real


def test_real_density_integrates_to_one_and_draws_follow_it() -> None:
    est = numeric_parzen(Real(-2, 3), np.array([0.1, 0.4, 2.5]))
    total, _ = integrate.quad(lambda x: float(np.exp(est.logpdf(np.array([x])))[0]), -2, 3, limit=200)
    assert abs(total - 1) < 1e-6
    draws = est.sample(np.random.default_rng(0), 4000)
    grid = np.linspace(-2, 3, 2001)
    cdf = np.cumsum(np.exp(est.logpdf(grid))) * (grid[1] - grid[0])
    assert stats.kstest(draws, lambda x: np.interp(x, grid, cdf / cdf[-1])).pvalue > 1e-3


def test_log_real_density_is_normalized_in_the_value() -> None:
    est = numeric_parzen(Real(1e-3, 1.0, log=True), np.array([0.01, 0.02]))
    total, _ = integrate.quad(
        lambda x: float(np.exp(est.logpdf(np.array([x])))[0]), 1e-3, 1.0, points=[0.01, 0.02], limit=200
    )
    assert abs(total - 1) < 1e-4
    assert np.all(est.sample(np.random.default_rng(1), 500) >= 1e-3)


def test_integer_masses_sum_to_one_and_draws_are_integers() -> None:
    for node in (Int(0, 10), Int(1, 64, log=True)):
        est = numeric_parzen(node, np.array([3.0, 4.0, 9.0]))
        values = np.arange(node.low, node.high + 1, dtype=float)
        assert abs(np.exp(est.logpdf(values)).sum() - 1) < 1e-9
        draws = est.sample(np.random.default_rng(2), 3000)
        assert np.all(draws == np.round(draws)) and draws.min() >= node.low and draws.max() <= node.high
        counts = np.array([(draws == v).sum() for v in values])
        expected = np.exp(est.logpdf(values)) * 3000
        keep = expected > 5
        assert (
            stats.chisquare(counts[keep], expected[keep] * counts[keep].sum() / expected[keep].sum()).pvalue
            > 1e-3
        )


def test_a_normal_prior_is_the_prior_component() -> None:
    est = numeric_parzen(Real(0, 10, prior=Normal(2.0, 0.5)), np.array([]))
    assert est.mu[0] == 2.0 and est.sigma[0] == 0.5


def test_categorical_posterior_is_n_p_plus_counts() -> None:
    est = CategoricalParzen.fit(np.array([0.5, 0.25, 0.25]), np.array([1, 1, 2]))
    np.testing.assert_allclose(est.p, np.array([1.5, 0.75 + 2, 0.75 + 1]) / 6)
    zero = CategoricalParzen.fit(np.array([0.5, 0.0, 0.5]), np.array([1]))
    assert zero.p[1] == 0.0


def test_linear_forgetting_ramps_only_the_old_observations() -> None:
    np.testing.assert_array_equal(forgetting_weights(3, 25), np.ones(3))
    np.testing.assert_array_equal(forgetting_weights(3, None), np.ones(3))
    w = forgetting_weights(30, 25)
    np.testing.assert_allclose(w[:5], np.linspace(1 / 30, 1, 5))
    np.testing.assert_array_equal(w[5:], np.ones(25))


def test_weights_scale_components_and_counts() -> None:
    est = numeric_parzen(Real(0, 1), np.array([0.2, 0.8]), weights=np.array([0.5, 1.0]))
    np.testing.assert_allclose(est.w, np.array([1.0, 0.5, 1.0]) / 2.5)
    cat = CategoricalParzen.fit(np.array([0.5, 0.5]), np.array([0, 1]), weights=np.array([0.5, 1.0]))
    np.testing.assert_allclose(cat.p, np.array([1.5, 2.0]) / 3.5)
