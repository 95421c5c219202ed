"""The GP model: closed-form posterior, gradients by finite differences, fitting, robustness."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treefarm.bo.models.domain import Domain
from treefarm.bo.models.gp import (
    RBF,
    GaussianProcess,
    GPParams,
    Matern52,
    OutputTransform,
    Product,
    Sum,
    cholesky,
    fit_gp,
    log_posterior,
)
from treefarm.bo.models.gp.fit import kendall_tau
from treefarm.exceptions import TreefarmError

KERNELS = [Matern52(), RBF(), Sum(Matern52(), RBF()), Product(Matern52(), RBF()), Matern52(ard=False)]
IDS = ["matern52", "rbf", "sum", "product", "isotropic"]


def _fd(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    return np.array([(f(x + e) - f(x - e)) / (2 * eps) for e in np.eye(len(x)) * eps])


def _model(kernel=None, n: int = 15, d: int = 3, seed: int = 0) -> GaussianProcess:
    rng = np.random.default_rng(seed)
    kernel = kernel or Matern52()
    X, y = rng.random((n, d)), rng.standard_normal(n)
    params = GPParams(kernel.default_theta(d) + rng.normal(0, 0.3, kernel.n_params(d)) - 1.0, -3.0, 0.2)
    return GaussianProcess.build(kernel, params, Domain.continuous_box(d), X, y, OutputTransform.fit(y))


def test_posterior_equals_the_closed_form() -> None:
    gp = _model()
    rng = np.random.default_rng(1)
    Z = rng.random((4, 3))
    k, th = gp.kernel, gp.params.theta
    C = k(th, gp.X, gp.X) + gp.noise_var * np.eye(len(gp.X))
    Kz = k(th, Z, gp.X)
    mean = gp.params.mean + Kz @ np.linalg.solve(C, gp.y - gp.params.mean)
    cov = k(th, Z, Z) - Kz @ np.linalg.solve(C, Kz.T)
    m, v = gp.predict(Z)
    np.testing.assert_allclose(m, mean, rtol=1e-8)
    np.testing.assert_allclose(v, np.diag(cov), rtol=1e-6)
    _, c2 = gp.posterior_cov(Z)
    np.testing.assert_allclose(c2, cov, atol=1e-9)


@pytest.mark.parametrize("kernel", KERNELS, ids=IDS)
def test_log_posterior_gradient_matches_finite_differences(kernel) -> None:
    rng = np.random.default_rng(2)
    X, y = rng.random((20, 3)), rng.standard_normal(20)
    phi = np.concatenate([kernel.default_theta(3) + rng.normal(0, 0.3, kernel.n_params(3)), [-2.5, 0.3]])
    _, grad = log_posterior(kernel, phi, X, y)
    np.testing.assert_allclose(
        grad, _fd(lambda p: log_posterior(kernel, p, X, y)[0], phi), rtol=1e-4, atol=1e-5
    )


@pytest.mark.parametrize("kernel", KERNELS, ids=IDS)
def test_posterior_gradients_in_x_match_finite_differences(kernel) -> None:
    gp = _model(kernel)
    z = np.random.default_rng(3).random(3)
    _, _, dm, dv = gp.predict_with_grad(z[None, :])
    np.testing.assert_allclose(dm[0], _fd(lambda x: gp.predict(x[None])[0][0], z), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(dv[0], _fd(lambda x: gp.predict(x[None])[1][0], z), rtol=1e-4, atol=1e-6)


def test_kernel_hyper_gradients_via_contraction() -> None:
    rng = np.random.default_rng(4)
    X, W = rng.random((8, 2)), rng.standard_normal((8, 8))
    for kernel in KERNELS:
        theta = kernel.default_theta(2) + rng.normal(0, 0.3, kernel.n_params(2))
        fd = _fd(lambda t, k=kernel: float((W * k(t, X, X)).sum()), theta)
        np.testing.assert_allclose(kernel.contract(theta, X, W), fd, rtol=1e-5, atol=1e-7)


def test_condition_on_equals_a_rebuild_on_the_stacked_data() -> None:
    gp = _model()
    rng = np.random.default_rng(5)
    Xp, yp = rng.random((3, 3)), rng.standard_normal(3)
    added = gp.condition_on(Xp, yp)
    rebuilt = GaussianProcess.build(
        gp.kernel, gp.params, gp.domain, np.vstack([gp.X, Xp]), np.concatenate([gp.y, yp]), gp.transform
    )
    Z = rng.random((6, 3))
    for a, b in zip(added.predict(Z), rebuilt.predict(Z)):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-10)


def test_fit_finds_the_relevant_dimension() -> None:
    rng = np.random.default_rng(6)
    X = rng.random((60, 3))
    y = np.sin(6 * X[:, 0]) + 0.01 * rng.standard_normal(60)
    gp = fit_gp(X, y, Domain.continuous_box(3), rng=rng)
    ell = np.exp(gp.params.theta[1:])
    assert ell[0] < ell[1] / 5 and ell[0] < ell[2] / 5
    Z = rng.random((50, 3))
    assert np.corrcoef(gp.predict(Z)[0], gp.transform_y(np.sin(6 * Z[:, 0])))[0, 1] > 0.99


def test_duplicates_and_constant_outputs_stay_finite() -> None:
    X = np.repeat(np.random.default_rng(7).random((5, 2)), 3, axis=0)
    for y in (np.ones(15), np.arange(15.0)):
        gp = fit_gp(X, y, Domain.continuous_box(2), deterministic=True, rng=np.random.default_rng(0))
        m, v = gp.predict(np.random.default_rng(8).random((4, 2)))
        assert np.isfinite(m).all() and np.isfinite(v).all()


def test_deterministic_model_interpolates() -> None:
    rng = np.random.default_rng(9)
    X = rng.random((12, 2))
    y = np.cos(3 * X[:, 0]) + X[:, 1]
    gp = fit_gp(X, y, Domain.continuous_box(2), deterministic=True, rng=rng)
    np.testing.assert_allclose(gp.predict(X)[0], gp.y, atol=1e-3)


def test_an_outlier_does_not_flatten_the_model() -> None:
    rng = np.random.default_rng(10)
    X = rng.random((30, 1))
    y = (X[:, 0] - 0.3) ** 2
    y[0] = 1e6
    t = OutputTransform.fit(y)(y)
    order = np.argsort(y[1:])
    assert np.all(np.diff(t[1:][order]) >= 0)
    assert np.std(t[1:]) > 0.3
    gp = fit_gp(X, y, Domain.continuous_box(1), rng=rng)
    Z = np.linspace(0, 1, 21)[:, None]
    assert np.corrcoef(gp.predict(Z)[0], (Z[:, 0] - 0.3) ** 2)[0, 1] > 0.9


def test_fit_is_reproducible() -> None:
    X = np.random.default_rng(11).random((20, 2))
    y = X.sum(1)
    a = fit_gp(X, y, Domain.continuous_box(2), rng=np.random.default_rng(1))
    b = fit_gp(X, y, Domain.continuous_box(2), rng=np.random.default_rng(1))
    np.testing.assert_array_equal(a.params.vector(), b.params.vector())


def test_rounding_makes_integer_columns_flat_between_levels() -> None:
    domain = Domain(np.array([False, True]), np.array([5, 0]), ())
    rng = np.random.default_rng(12)
    X = domain.round(rng.random((10, 2)))
    gp = fit_gp(X, X[:, 0] + X[:, 1], domain, rng=rng)
    a, b = gp.predict(np.array([[0.51, 0.3], [0.55, 0.3]]))[0]
    assert a == b
    assert np.all(gp.predict_with_grad(np.array([[0.5, 0.3]]))[2][:, 0] == 0)


def test_slice_1d_follows_the_grid() -> None:
    gp = _model()
    grid = np.linspace(0, 1, 7)
    mean, std = gp.slice_1d(np.full(3, 0.5), 1, grid)
    Z = np.column_stack([np.full(7, 0.5), grid, np.full(7, 0.5)])
    expected_mean, expected_var = gp.predict(Z)
    np.testing.assert_allclose(mean, expected_mean, rtol=1e-12)
    np.testing.assert_allclose(std, np.sqrt(expected_var), rtol=1e-12)
    assert (std > 0).all() and np.ptp(mean) > 0


def test_domain_round_snaps_levels_and_groups_and_keeps_inactive() -> None:
    domain = Domain(np.array([False, False, False, False]), np.array([3, 0, 0, 0]), (np.array([1, 2, 3]),))
    X = np.array([[0.3, 0.2, 0.7, 0.1], [-0.5, -0.5, -0.5, -0.5]])
    np.testing.assert_array_equal(domain.round(X), [[0.5, 0, 1, 0], [-0.5, -0.5, -0.5, -0.5]])


@pytest.mark.parametrize("kernel", KERNELS, ids=IDS)
def test_query_gradient_contraction_matches_finite_differences(kernel) -> None:
    rng = np.random.default_rng(13)
    Z, X, A = rng.random((4, 3)), rng.random((6, 3)), rng.standard_normal((4, 6))
    theta = kernel.default_theta(3) + rng.normal(0, 0.3, kernel.n_params(3))
    _, grad_dot = kernel.cross(theta, Z, X)
    for i in range(len(Z)):

        def weighted(z, i=i):
            return float(A[i] @ kernel(theta, z[None, :], X)[0])

        np.testing.assert_allclose(grad_dot(A)[i], _fd(weighted, Z[i]), rtol=1e-5, atol=1e-8)


def test_gram_equals_the_cross_covariance_with_itself() -> None:
    X = np.random.default_rng(14).random((7, 3))
    for kernel in KERNELS:
        theta = kernel.default_theta(3)
        np.testing.assert_allclose(kernel.gram(theta, X)[0], kernel(theta, X, X), atol=1e-12)
        np.testing.assert_allclose(np.diag(kernel(theta, X, X)), kernel.diag(theta, X), atol=1e-12)


def test_fit_recovers_length_scales_of_a_gp_draw() -> None:
    rng = np.random.default_rng(15)
    X = rng.random((80, 2))
    true = GPParams(np.log([1.0, 0.15, 1.5]), np.log(1e-4), 0.0)
    C = Matern52()(true.theta, X, X) + 1e-4 * np.eye(80)
    y = np.linalg.cholesky(C) @ rng.standard_normal(80)
    ell = np.exp(fit_gp(X, y, Domain.continuous_box(2), rng=rng).params.theta[1:])
    assert 0.15 / 2.5 < ell[0] < 0.15 * 2.5
    assert ell[1] > 3 * ell[0]


def test_cholesky_escalates_jitter_and_then_fails_clearly() -> None:
    X = np.repeat(np.random.default_rng(16).random((4, 2)), 2, axis=0)
    singular = RBF()(np.log([1.0, 1e3, 1e3]), X, X)
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(singular)
    L, jitter = cholesky(singular)
    assert 0 < jitter <= 1e-2
    np.testing.assert_allclose(L @ L.T, singular + jitter * np.eye(8), atol=1e-12)
    assert cholesky(np.eye(3))[1] == 0.0
    with pytest.raises(TreefarmError, match="not positive definite even with jitter"):
        cholesky(-np.eye(3))


def test_constant_outputs_map_to_zeros() -> None:
    y = np.full(10, 3.7)
    np.testing.assert_array_equal(OutputTransform.fit(y)(y), np.zeros(10))
    X = np.random.default_rng(17).random((10, 2))
    gp = fit_gp(X, y, Domain.continuous_box(2), rng=np.random.default_rng(0))
    assert np.isfinite(gp.params.vector()).all()
    np.testing.assert_allclose(gp.predict(X)[0], 0.0, atol=1e-3)


def test_warm_start_returns_to_the_same_optimum() -> None:
    rng = np.random.default_rng(18)
    X = rng.random((40, 3))
    y = np.sin(4 * X[:, 0]) + X[:, 1] ** 2
    cold = fit_gp(X, y, Domain.continuous_box(3), rng=rng)
    warm = fit_gp(X, y, Domain.continuous_box(3), warm_start=cold.params, n_restarts=0, rng=rng)
    lp = [log_posterior(g.kernel, g.params.vector(), g.X, g.y)[0] for g in (cold, warm)]
    assert lp[1] >= lp[0] - 1e-6


def test_many_points_fit_a_subset_then_refine_on_all(monkeypatch) -> None:
    from treefarm.bo.models.gp import fit

    rng = np.random.default_rng(19)
    X = rng.random((90, 2))
    y = np.cos(5 * X[:, 0]) + 0.05 * rng.standard_normal(90)
    full = fit_gp(X, y, Domain.continuous_box(2), rng=np.random.default_rng(0))
    monkeypatch.setattr(fit, "SUBSET", 30)
    quick = fit_gp(X, y, Domain.continuous_box(2), rng=np.random.default_rng(0))
    lp = [log_posterior(g.kernel, g.params.vector(), g.X, g.y)[0] for g in (full, quick)]
    assert lp[1] > lp[0] - 0.02 * abs(lp[0])
    assert len(quick.X) == 90


def test_mixed_domain_gradients_are_zero_on_rounded_columns() -> None:
    domain = Domain(np.array([True, False, False, False]), np.array([0, 4, 0, 0]), (np.array([2, 3]),))
    rng = np.random.default_rng(20)
    X = domain.round(rng.random((25, 4)))
    gp = fit_gp(X, X[:, 0] ** 2 + X[:, 1] + X[:, 2], domain, rng=rng)
    z = np.array([0.4, 0.3, 0.8, 0.1])
    _, _, dm, dv = gp.predict_with_grad(z[None])
    assert np.all(dm[0, 1:] == 0) and np.all(dv[0, 1:] == 0)
    step = np.array([1e-6, 0, 0, 0])
    fd_mean = (gp.predict((z + step)[None])[0] - gp.predict((z - step)[None])[0]) / 2e-6
    np.testing.assert_allclose(dm[0, 0], fd_mean[0], rtol=1e-4, atol=1e-6)


def test_transform_y_matches_the_training_targets() -> None:
    rng = np.random.default_rng(21)
    X, y = rng.random((15, 2)), rng.standard_cauchy(15)
    gp = fit_gp(X, y, Domain.continuous_box(2), rng=rng)
    np.testing.assert_allclose(gp.transform_y(y), gp.y)
    assert np.all(np.diff(gp.transform_y(np.sort(y))) >= 0)


def test_domain_round_handles_several_levels_single_rows_and_ties() -> None:
    domain = Domain(np.zeros(5, dtype=bool), np.array([3, 5, 0, 0, 0]), (np.array([2, 3, 4]),))
    x = np.array([0.74, 1.3, 0.6, 0.6, 0.2])
    np.testing.assert_array_equal(domain.round(x), [0.5, 1.0, 1.0, 0.0, 0.0])
    np.testing.assert_array_equal(domain.round(x[None, :])[0], domain.round(x))
    assert domain.round(x) is not x and x[0] == 0.74
    np.testing.assert_array_equal(Domain.continuous_box(2).round(np.array([[0.3, -0.5]])), [[0.3, -0.5]])


def test_fit_rejects_non_finite_or_misshapen_data_clearly() -> None:
    X, domain = np.random.default_rng(22).random((5, 2)), Domain.continuous_box(2)
    with pytest.raises(TreefarmError, match=r"must be finite, but got .* y=1"):
        fit_gp(X, np.array([1.0, np.nan, 2.0, 3.0, 4.0]), domain, rng=np.random.default_rng(0))
    with pytest.raises(TreefarmError, match=r"X must be \(n, d\).*d=3"):
        fit_gp(X, np.ones(5), Domain.continuous_box(3), rng=np.random.default_rng(0))


# ---- each observation's own noise (heteroscedastic diagonal) ----


@pytest.mark.parametrize("kernel", KERNELS, ids=IDS)
def test_log_posterior_gradient_with_own_noise_matches_finite_differences(kernel) -> None:
    rng = np.random.default_rng(30)
    X, y = rng.random((20, 3)), rng.standard_normal(20)
    v = np.where(rng.random(20) < 0.5, 0.0, rng.exponential(0.3, 20))  # some exact, some noisy
    phi = np.concatenate([kernel.default_theta(3) + rng.normal(0, 0.3, kernel.n_params(3)), [-2.5, 0.3]])
    _, grad = log_posterior(kernel, phi, X, y, v)
    np.testing.assert_allclose(
        grad, _fd(lambda p: log_posterior(kernel, p, X, y, v)[0], phi), rtol=1e-4, atol=1e-5
    )


def test_posterior_with_own_noise_equals_the_closed_form() -> None:
    gp0 = _model()
    v = np.linspace(0.0, 2.0, len(gp0.X))
    gp = GaussianProcess.build(gp0.kernel, gp0.params, gp0.domain, gp0.X, gp0.y, gp0.transform, v)
    Z = np.random.default_rng(31).random((4, 3))
    k, th = gp.kernel, gp.params.theta
    C = k(th, gp.X, gp.X) + np.diag(gp.noise_var + v)
    Kz = k(th, Z, gp.X)
    m, var = gp.predict(Z)
    np.testing.assert_allclose(m, gp.params.mean + Kz @ np.linalg.solve(C, gp.y - gp.params.mean), rtol=1e-8)
    np.testing.assert_allclose(var, np.diag(k(th, Z, Z) - Kz @ np.linalg.solve(C, Kz.T)), rtol=1e-6)
    # added points (fantasies) carry no noise of their own: the same as a rebuild with v = 0 for them
    Xp, yp = np.random.default_rng(32).random((2, 3)), np.array([0.1, -0.4])
    rebuilt = GaussianProcess.build(
        gp.kernel,
        gp.params,
        gp.domain,
        np.vstack([gp.X, Xp]),
        np.concatenate([gp.y, yp]),
        gp.transform,
        np.concatenate([v, [0.0, 0.0]]),
    )
    for a, b in zip(gp.condition_on(Xp, yp).predict(Z), rebuilt.predict(Z)):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-10)


def test_transform_slope_matches_finite_differences() -> None:
    rng = np.random.default_rng(33)
    heavy = np.exp(2.0 * rng.standard_normal(40))  # a heavy right tail: lam is fitted
    for y in (heavy, -heavy, np.full(5, 3.0)):
        transform = OutputTransform.fit(y)
        points = np.concatenate([y[:10], [np.median(y)]])
        fd = [
            (transform(np.array([p + 1e-6]))[0] - transform(np.array([p - 1e-6]))[0]) / 2e-6 for p in points
        ]
        np.testing.assert_allclose(transform.slope(points), fd, rtol=1e-5)
        np.testing.assert_allclose(
            transform.variance(points, np.full(len(points), 4.0)), 4.0 * np.square(fd), rtol=1e-5
        )
    assert OutputTransform.fit(heavy).lam is not None


def test_zero_own_noise_is_the_homoscedastic_model_to_the_bit() -> None:
    rng = np.random.default_rng(34)
    X = rng.random((25, 2))
    y = np.sin(4 * X[:, 0]) + X[:, 1] + 0.05 * rng.standard_normal(25)
    plain = fit_gp(X, y, Domain.continuous_box(2), rng=np.random.default_rng(0))
    zero = fit_gp(X, y, Domain.continuous_box(2), y_var=np.zeros(25), rng=np.random.default_rng(0))
    np.testing.assert_array_equal(plain.params.vector(), zero.params.vector())
    Z = rng.random((5, 2))
    for a, b in zip(plain.predict(Z), zero.predict(Z)):
        np.testing.assert_array_equal(a, b)


def test_the_posterior_follows_the_precise_of_two_close_observations() -> None:
    """Two observations at nearly the same point disagree: one is a mean over
    folds that agree (variance ~0), the other over folds that disagree (large
    variance). With the variances the posterior there follows the precise one;
    without them it splits the difference."""
    x = np.linspace(0.0, 1.0, 12)
    f = np.sin(3.0 * x)
    X = np.concatenate([x, [0.5, 0.501]])[:, None]
    y = np.concatenate([f, [np.sin(1.5), np.sin(1.5) + 1.5]])
    y_var = np.concatenate([np.zeros(12), [1e-4, 2.0]])
    domain = Domain.continuous_box(1)
    weighed = fit_gp(X, y, domain, y_var=y_var, rng=np.random.default_rng(0))
    ignored = fit_gp(X, y, domain, rng=np.random.default_rng(0))

    def raw_error(gp: GaussianProcess) -> float:  # distance to the precise value, on the model scale
        return float(abs(gp.predict(np.array([[0.5]]))[0][0] - gp.transform_y(np.array([np.sin(1.5)]))[0]))

    assert raw_error(weighed) < 0.1 * raw_error(ignored)
    assert raw_error(weighed) < 0.05


def test_bad_own_noise_is_refused_naming_it() -> None:
    X, y = np.random.default_rng(35).random((4, 1)), np.arange(4.0)
    for bad in (np.array([0.0, -1.0, 0.0, 0.0]), np.array([0.0, np.nan, 0.0, 0.0]), np.zeros(3)):
        with pytest.raises(TreefarmError, match="y_var"):
            fit_gp(X, y, Domain.continuous_box(1), y_var=bad, rng=np.random.default_rng(0))


def test_leave_one_out_means_equal_refits_without_the_point() -> None:
    from treefarm.bo.models.gp import loo_means

    gp = _model(n=12)
    loo = loo_means(gp)
    for i in range(len(gp.X)):
        keep = np.arange(len(gp.X)) != i
        rest = GaussianProcess.build(
            gp.kernel, gp.params, gp.domain, gp.X[keep], gp.y[keep], gp.transform
        )
        np.testing.assert_allclose(loo[i], rest.predict(gp.X[i : i + 1])[0][0], rtol=1e-6, atol=1e-9)


def _sobol_box(n: int) -> np.ndarray:
    from scipy.stats import qmc

    return qmc.Sobol(2, seed=0).random(64)[:n]


@pytest.mark.parametrize("seed", range(3))
def test_the_output_transform_is_chosen_by_how_the_good_points_are_ordered(seed) -> None:
    """An ill-conditioned rotated quadratic (condition 1e6, values up to ~1e7)
    keeps its shape on the plain scale; an exponential tail gets the warp."""
    X = _sobol_box(40)
    Z = (X - 0.5) * 10
    c, s = np.cos(0.6), np.sin(0.6)
    quadratic = (c * Z[:, 0] - s * Z[:, 1]) ** 2 + 1e6 * (s * Z[:, 0] + c * Z[:, 1]) ** 2
    exponential = np.exp(3 * Z[:, 0]) + Z[:, 1] ** 2
    box = Domain.continuous_box(2)
    assert fit_gp(X, quadratic, box, rng=np.random.default_rng(seed)).transform.lam is None
    assert fit_gp(X, exponential, box, rng=np.random.default_rng(seed)).transform.lam is not None
    warped = fit_gp(X, quadratic, box, output="warp", rng=np.random.default_rng(seed))
    assert warped.transform.lam is not None


def test_an_unknown_output_transform_is_named() -> None:
    with pytest.raises(TreefarmError, match="output='log'"):
        fit_gp(np.zeros((2, 1)), np.zeros(2), Domain.continuous_box(1), output="log", rng=np.random.default_rng(0))


@pytest.mark.parametrize("seed", range(4))
def test_the_yeo_johnson_fit_agrees_with_scipy(seed) -> None:
    from scipy import stats

    from treefarm.bo.models.gp.transform import yeojohnson, yeojohnson_llf, yeojohnson_normmax

    rng = np.random.default_rng(seed)
    z = rng.standard_normal(40 + 20 * seed) * (1 + seed)
    z = np.expm1(z / 2) if seed % 2 else z
    lam = yeojohnson_normmax(z)
    assert lam == pytest.approx(stats.yeojohnson_normmax(z), abs=1e-7)
    np.testing.assert_allclose(yeojohnson(z, lam), stats.yeojohnson(z, lam), rtol=1e-12, atol=1e-12)
    for at in (-1.0, 0.0, 1.0, 2.0):
        assert yeojohnson_llf(at, z) == pytest.approx(float(stats.yeojohnson_llf(at, z)), rel=1e-10)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([-1.0, 0.0, 0.5, 2.0, math.inf]) | st.floats(-10, 10),
            st.sampled_from([0.0, 1.0, 3.0]) | st.floats(-10, 10),
        ),
        max_size=40,
    )
)
def test_kendall_tau_equals_scipys_with_ties(pairs: list[tuple[float, float]]) -> None:
    from scipy.stats import kendalltau

    x, y = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    got = kendall_tau(x, y)
    want = float(kendalltau(x, y).statistic) if len(pairs) >= 2 else math.nan
    assert got == want or (math.isnan(got) and math.isnan(want))
