"""The GP across fidelities: its kernel's gradients, its reading at the target, rung agreement."""

from __future__ import annotations

import math

import numpy as np
import pytest

from treefarm.bo.models.domain import Domain
from treefarm.bo.models.fidelity import (
    TargetDiscrepancy,
    TargetModel,
    agreement,
    fidelity_domain,
    normalized,
    rung_levels,
    rung_points,
    with_fidelity,
)
from treefarm.bo.models.gp import fit_gp, log_posterior


def _fd(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    return np.array([(f(x + e) - f(x - e)) / (2 * eps) for e in np.eye(len(x)) * eps])


def _rows(n: int = 12, d: int = 2, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return with_fidelity(rng.random((n, d)), rng.random(n))


def test_kernel_hyperparameter_gradient_matches_finite_differences() -> None:
    kernel, X = TargetDiscrepancy(), _rows()
    rng = np.random.default_rng(1)
    theta = kernel.default_theta(3) + rng.normal(0, 0.3, kernel.n_params(3))
    W = rng.standard_normal((len(X), len(X)))
    W = W + W.T
    analytic = kernel.gram(theta, X)[1](W)
    numeric = _fd(lambda t: float((W * kernel(t, X, X)).sum()), theta)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-7)


def test_kernel_query_gradient_matches_finite_differences_in_every_column() -> None:
    kernel, X = TargetDiscrepancy(), _rows()
    rng = np.random.default_rng(2)
    theta = kernel.default_theta(3) + rng.normal(0, 0.3, kernel.n_params(3))
    Z = _rows(4, seed=3)
    A = rng.standard_normal((4, len(X)))
    analytic = kernel.cross(theta, Z, X)[1](A)
    for i in range(len(Z)):
        numeric = _fd(lambda z, i=i: float(A[i] @ kernel(theta, z[None, :], X)[0]), Z[i])
        np.testing.assert_allclose(analytic[i], numeric, rtol=1e-5, atol=1e-7)


def test_log_posterior_gradient_with_the_kernel_matches_finite_differences() -> None:
    kernel, X = TargetDiscrepancy(), _rows(15)
    y = np.random.default_rng(4).standard_normal(15)
    phi = np.concatenate([kernel.default_theta(3), [-3.0, 0.1]])
    analytic = log_posterior(kernel, phi, X, y)[1]
    numeric = _fd(lambda p: log_posterior(kernel, p, X, y)[0], phi)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-4, atol=1e-6)


def test_kernel_diag_and_gram_agree_and_the_discrepancy_vanishes_at_the_target() -> None:
    kernel, X = TargetDiscrepancy(), _rows()
    theta = kernel.default_theta(3)
    np.testing.assert_allclose(np.diag(kernel.gram(theta, X)[0]), kernel.diag(theta, X))
    top = X.copy()
    top[:, -1] = 1.0
    x_only = kernel._matern(theta[:3], top[:, :-1], top[:, :-1])
    np.testing.assert_allclose(kernel(theta, top, top), x_only)


def _target_model(low_is_noise: bool, seed: int = 0) -> tuple[TargetModel, np.ndarray]:
    """A model of f(x) = (x - 0.3)^2 seen at z = 1 on 5 points and at z = 0 on 30:
    the cheap values are f plus an offset, or noise."""
    rng = np.random.default_rng(seed)
    target = lambda x: (x - 0.3) ** 2  # noqa: E731
    x_top, x_low = np.linspace(0.0, 1.0, 5), rng.random(30)
    low = rng.random(30) if low_is_noise else target(x_low) + 0.5
    X = with_fidelity(np.concatenate([x_top, x_low])[:, None], np.r_[np.ones(5), np.zeros(30)])
    y = np.concatenate([target(x_top), low])
    domain = fidelity_domain(Domain.continuous_box(1))
    gp = fit_gp(X, y, domain, kernel=TargetDiscrepancy(), output="standard", rng=np.random.default_rng(0))
    return TargetModel(gp), target(np.linspace(0, 1, 41))


def test_informative_cheap_points_put_the_target_minimum_where_it_is() -> None:
    model, _ = _target_model(low_is_noise=False)
    grid = np.linspace(0, 1, 41)[:, None]
    assert abs(grid[int(np.argmin(model.predict(grid)[0])), 0] - 0.3) <= 0.05


def test_target_model_gradients_drop_the_fidelity_column_and_match_finite_differences() -> None:
    model, _ = _target_model(low_is_noise=False)
    Z = np.array([[0.2], [0.7]])
    _, _, dmean, dvar = model.predict_with_grad(Z)
    assert dmean.shape == (2, 1) and dvar.shape == (2, 1)
    for i in range(2):
        np.testing.assert_allclose(dmean[i], _fd(lambda z: model.predict(z[None, :])[0][0], Z[i]), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(dvar[i], _fd(lambda z: model.predict(z[None, :])[1][0], Z[i]), rtol=1e-4, atol=1e-6)


def test_conditioning_at_the_target_shrinks_the_variance_there() -> None:
    model, _ = _target_model(low_is_noise=True)
    z = np.array([[0.55]])
    before = model.predict(z)[1][0]
    after = model.condition_on(z, model.predict(z)[0]).predict(z)[1][0]
    assert after < before


def test_normalized_fidelity_is_log_scaled_and_clipped() -> None:
    np.testing.assert_allclose(normalized(np.array([1.0, 3.0, 9.0, 27.0, 40.0]), 1.0, 27.0), [0, 1 / 3, 2 / 3, 1, 1])
    np.testing.assert_allclose(normalized(np.array([5.0]), 5.0, 5.0), [1.0])


def test_rungs_and_the_points_a_curve_keeps() -> None:
    np.testing.assert_allclose(rung_levels(1, 27), [1, 3, 9])
    np.testing.assert_allclose(rung_levels(2, 100), [2, 6, 18, 54])
    steps = np.arange(1, 12, dtype=float)  # a curve of 11 steps
    np.testing.assert_array_equal(rung_points(steps, rung_levels(1, 27)), [0, 2, 8])
    np.testing.assert_array_equal(rung_points(np.array([2.0, 4.0, 8.0]), rung_levels(1, 27)), [0, 2])


def test_agreement_is_high_for_a_faithful_rung_low_for_noise_none_for_few_pairs() -> None:
    rng = np.random.default_rng(0)
    top = rng.random(20)
    ids = np.arange(20)
    faithful = agreement(np.full(20, 3.0), ids, top + 0.3, top)
    noise = agreement(np.full(20, 3.0), ids, rng.random(20), top)
    assert faithful == pytest.approx(1.0)
    assert noise is not None and abs(noise) < 0.3
    assert agreement(np.full(4, 3.0), ids[:4], top[:4], top) is None
    missing = top.copy()
    missing[5:] = math.nan
    assert agreement(np.full(20, 3.0), ids, top, missing) is not None
