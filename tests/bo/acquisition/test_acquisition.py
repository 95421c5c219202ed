"""Acquisitions: values against Monte Carlo, gradients against finite differences, stability."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from treefarm.bo.acquisition import analytic, make_acquisition, sample_min_values
from treefarm.bo.models.domain import Domain
from treefarm.bo.models.gp import fit_gp
from treefarm.exceptions import ConfigError

MU = np.array([-0.5, 0.0, 0.3, 1.2])
SIGMA = np.array([0.2, 1.0, 0.5, 0.05])
BEST = 0.1


def _mc(f, n: int = 400_000) -> np.ndarray:
    z = np.random.default_rng(0).standard_normal((n, 1))
    return f(MU + SIGMA * z).mean(0)


def test_ei_and_pi_match_monte_carlo() -> None:
    np.testing.assert_allclose(
        analytic.ei(MU, SIGMA, BEST)[0], _mc(lambda f: np.maximum(BEST - f, 0)), atol=3e-3
    )
    np.testing.assert_allclose(
        analytic.pi(MU, SIGMA, BEST)[0], _mc(lambda f: (f < BEST).astype(float)), atol=3e-3
    )


def test_mes_matches_its_definition_for_a_fixed_minimum() -> None:
    """MES is the entropy of y ~ N(mu, sigma^2) minus that of y given the
    minimum y* (y truncated to y >= y*), here by Monte Carlo over the truncated law."""
    from scipy import stats

    y_star = -0.7
    value = analytic.mes(MU, SIGMA, np.array([y_star]))[0]
    truncated = stats.truncnorm((y_star - MU) / SIGMA, np.inf, loc=MU, scale=SIGMA)
    samples = truncated.rvs(size=(200_000, len(MU)), random_state=np.random.default_rng(11))
    h_truncated = -truncated.logpdf(samples).mean(0)
    h_prior = 0.5 * np.log(2 * np.pi * np.e * SIGMA**2)
    np.testing.assert_allclose(value, h_prior - h_truncated, atol=5e-3)


@pytest.mark.parametrize(
    "f",
    [
        lambda m, s: analytic.ei(m, s, BEST),
        lambda m, s: analytic.log_ei(m, s, BEST),
        lambda m, s: analytic.pi(m, s, BEST),
        lambda m, s: analytic.log_pi(m, s, BEST),
        lambda m, s: analytic.lcb(m, s, 4.0),
        lambda m, s: analytic.mes(m, s, np.array([-0.9, -0.6])),
    ],
    ids=["ei", "logei", "pi", "logpi", "lcb", "mes"],
)
def test_gradients_in_mean_and_std_match_finite_differences(f) -> None:
    _, dmu, dsigma = f(MU, SIGMA)
    eps = 1e-6
    np.testing.assert_allclose(
        dmu, (f(MU + eps, SIGMA)[0] - f(MU - eps, SIGMA)[0]) / (2 * eps), rtol=1e-4, atol=1e-7
    )
    np.testing.assert_allclose(
        dsigma, (f(MU, SIGMA + eps)[0] - f(MU, SIGMA - eps)[0]) / (2 * eps), rtol=1e-4, atol=1e-7
    )


def test_log_ei_is_finite_and_monotone_where_ei_underflows() -> None:
    mu = np.linspace(40.0, 2000.0, 50)
    sigma = np.ones_like(mu)
    assert np.all(analytic.ei(mu, sigma, 0.0)[0] == 0.0)
    value, dmu, _ = analytic.log_ei(mu, sigma, 0.0)
    assert np.isfinite(value).all() and np.all(np.diff(value) < 0) and np.all(dmu < 0)
    comfortable = np.array([-1.0, 0.0, 2.0])
    np.testing.assert_allclose(
        analytic.log_ei(comfortable, np.ones(3), 0.5)[0], np.log(analytic.ei(comfortable, np.ones(3), 0.5)[0])
    )


def test_log_h_follows_its_asymptote_far_in_the_tail() -> None:
    u = -np.logspace(2.5, 8, 400)
    value, rc, rp = analytic.log_h(u)
    inv2 = 1 / u**2
    asymptote = (
        -0.5 * u**2
        - 0.5 * np.log(2 * np.pi)
        + np.log(inv2)
        + np.log1p(-3 * inv2 + 15 * inv2**2 - 105 * inv2**3)
    )
    np.testing.assert_allclose(value, asymptote, rtol=1e-13)
    assert np.all(np.diff(value) < 0) and np.all(rc > 0) and np.all(rp > 0)
    edge = analytic.log_h(np.array([-1000.0 + 1e-9, -1000.0 - 1e-9]))[0]
    assert edge[0] > edge[1] and edge[0] - edge[1] < 1e-5


def test_ucb_beta_follows_the_gp_ucb_schedule() -> None:
    assert analytic.ucb_beta(2, 10) == pytest.approx(2 * np.log(2 * 100 * np.pi**2 / 0.6))
    assert analytic.ucb_beta(2, 100) > analytic.ucb_beta(2, 10)


@functools.cache
def _model():  # the GP is immutable: one fit serves every test
    rng = np.random.default_rng(1)
    X = rng.random((15, 2))
    return fit_gp(X, np.sin(5 * X[:, 0]) + X[:, 1], Domain.continuous_box(2), rng=rng)


@pytest.mark.parametrize("name", ["ei", "logei", "pi", "logpi", "ucb", "mes"])
def test_acquisition_gradients_in_x_match_finite_differences(name: str) -> None:
    model = _model()
    rng = np.random.default_rng(2)
    acq = make_acquisition(
        name, model, best=float(model.y.min()), n_observed=15, rng=rng, candidates=rng.random((50, 2))
    )
    Z = rng.random((3, 2)) * 0.8 + 0.1
    _, grad = acq(Z)
    eps = 1e-6
    fd = np.stack([(acq(Z + e)[0] - acq(Z - e)[0]) / (2 * eps) for e in np.eye(2) * eps], axis=1)
    np.testing.assert_allclose(grad, fd, rtol=1e-3, atol=1e-6)


def test_thompson_draws_are_reproducible_and_centred_on_the_mean() -> None:
    model = _model()
    Z = np.random.default_rng(3).random((5, 2))
    a = make_acquisition("ts", model, best=0.0, n_observed=15, rng=np.random.default_rng(4))
    b = make_acquisition("ts", model, best=0.0, n_observed=15, rng=np.random.default_rng(4))
    np.testing.assert_array_equal(a(Z)[0], b(Z)[0])
    draws = np.array(
        [
            make_acquisition("ts", model, best=0, n_observed=15, rng=np.random.default_rng(s))(Z)[0]
            for s in range(400)
        ]
    )
    mean, var = model.predict(Z)
    np.testing.assert_allclose(-draws.mean(0), mean, atol=4 * np.sqrt(var.max() / 400) + 1e-6)


def test_min_value_samples_lie_below_the_incumbent() -> None:
    rng = np.random.default_rng(5)
    samples = sample_min_values(rng.normal(size=200), np.full(200, 0.3), -1.0, 50, rng)
    assert samples.shape == (50,) and np.all(samples <= -1.0)


def test_min_value_samples_match_the_minimum_of_independent_values() -> None:
    """The Gumbel is fitted to the quartiles of ``min_i f_i`` for independent
    ``f_i ~ N(mean_i, std_i^2)``; its samples reproduce them."""
    rng = np.random.default_rng(6)
    mean, std = rng.normal(size=100), rng.uniform(0.1, 0.5, size=100)
    samples = sample_min_values(mean, std, np.inf, 20_000, rng)
    minima = (mean + std * rng.standard_normal((20_000, 100))).min(1)
    np.testing.assert_allclose(
        np.quantile(samples, [0.25, 0.5, 0.75]), np.quantile(minima, [0.25, 0.5, 0.75]), atol=0.02
    )


def test_unknown_acquisition_names_the_choices() -> None:
    with pytest.raises(ConfigError, match="acquisition"):
        make_acquisition("nope", _model(), best=0.0, n_observed=1, rng=np.random.default_rng(0))


def _log_prior(Z: np.ndarray, *, grad: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """A Gaussian log-belief centred at (0.3, 0.6)."""
    D = Z - np.array([0.3, 0.6])
    return -(D**2).sum(axis=1) / 0.5, -2.0 * D / 0.5 if grad else np.zeros_like(Z)


@pytest.mark.parametrize("name", ["ei", "logei", "pi", "logpi", "mes"])
def test_prior_weighted_acquisitions_match_pibo_and_finite_differences(name: str) -> None:
    from treefarm.bo.acquisition import LOG_ACQUISITIONS, PriorWeighted

    model = _model()
    rng = np.random.default_rng(2)
    plain = make_acquisition(
        name, model, best=float(model.y.min()), n_observed=15, rng=rng, candidates=rng.random((50, 2))
    )
    acq = PriorWeighted(plain, _log_prior, 0.7, log_space=name in LOG_ACQUISITIONS)
    Z = rng.random((3, 2)) * 0.8 + 0.1
    value, grad = acq(Z)
    base, log_pi = plain(Z)[0], _log_prior(Z)[0]
    expected = base + 0.7 * log_pi if name in LOG_ACQUISITIONS else base * np.exp(0.7 * log_pi)
    np.testing.assert_allclose(value, expected, rtol=1e-12)
    np.testing.assert_allclose(acq(Z, grad=False)[0], value, rtol=1e-9)
    eps = 1e-6
    fd = np.stack([(acq(Z + e)[0] - acq(Z - e)[0]) / (2 * eps) for e in np.eye(2) * eps], axis=1)
    np.testing.assert_allclose(grad, fd, rtol=1e-3, atol=1e-6)
