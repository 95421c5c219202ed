"""One length scale per choice: a Hamming distance weighted per decision, with its gradients."""

from __future__ import annotations

import numpy as np
import pytest

from treefarm.bo.models.gp import RBF, Matern52, decision_scales, decision_units, log_posterior

#: A numeric column, then a three-way choice's one-hot group, then a two-way one's.
TIED = decision_scales(6, [np.array([1, 2, 3]), np.array([4, 5])])
UNITS = decision_units(TIED, 2.0)
KERNELS = [Matern52(tied=TIED), RBF(tied=TIED), Matern52(tied=TIED, units=UNITS), RBF(tied=TIED, units=UNITS)]
IDS = ["matern52", "rbf", "matern52-units", "rbf-units"]


def _fd(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    return np.array([(f(x + e) - f(x - e)) / (2 * eps) for e in np.eye(len(x)) * eps])


def _rows(rng: np.random.Generator, n: int) -> np.ndarray:
    """(n, 6) points: a real in [0, 1], then one option of each choice."""
    X = np.zeros((n, 6))
    X[:, 0] = rng.random(n)
    X[np.arange(n), 1 + rng.integers(3, size=n)] = 1.0
    X[np.arange(n), 4 + rng.integers(2, size=n)] = 1.0
    return X


def test_decision_scales_tie_each_group_and_number_the_scales_in_order() -> None:
    np.testing.assert_array_equal(TIED, [0, 1, 1, 1, 2, 2])
    np.testing.assert_array_equal(decision_scales(4, [np.array([0, 1])]), [0, 0, 1, 2])
    np.testing.assert_array_equal(decision_scales(3, []), [0, 1, 2])


@pytest.mark.parametrize("kernel", KERNELS, ids=IDS)
def test_log_posterior_gradient_with_tied_scales_matches_finite_differences(kernel) -> None:
    rng = np.random.default_rng(0)
    X, y = _rows(rng, 20), rng.standard_normal(20)
    assert kernel.n_params(6) == 4
    phi = np.concatenate([kernel.default_theta(6) + rng.normal(0, 0.3, 4), [-2.5, 0.3]])
    _, grad = log_posterior(kernel, phi, X, y)
    np.testing.assert_allclose(grad, _fd(lambda p: log_posterior(kernel, p, X, y)[0], phi), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kernel", KERNELS, ids=IDS)
def test_hyper_and_query_contractions_with_tied_scales_match_finite_differences(kernel) -> None:
    rng = np.random.default_rng(1)
    X, Z = _rows(rng, 8), rng.random((3, 6))
    W, A = rng.standard_normal((8, 8)), rng.standard_normal((3, 8))
    theta = kernel.default_theta(6) + rng.normal(0, 0.3, 4)
    fd = _fd(lambda t: float((W * kernel(t, X, X)).sum()), theta)
    np.testing.assert_allclose(kernel.contract(theta, X, W), fd, rtol=1e-5, atol=1e-7)
    _, grad_dot = kernel.cross(theta, Z, X)
    for i in range(len(Z)):
        expected = _fd(lambda z, i=i: float(A[i] @ kernel(theta, z[None, :], X)[0]), Z[i])
        np.testing.assert_allclose(grad_dot(A)[i], expected, rtol=1e-5, atol=1e-8)


def test_options_of_a_choice_are_equally_far_apart_under_tied_scales() -> None:
    """Any two options of the three-way choice are ``2 / l^2`` apart: the kernel sees a
    different option, not which one, whereas a scale per option orders them."""
    kernel, theta = Matern52(tied=TIED), np.array([0.0, 0.0, -0.5, 0.3])
    base = np.array([0.5, 1.0, 0.0, 0.0, 1.0, 0.0])
    others = np.array([[0.5, 0.0, 1.0, 0.0, 1.0, 0.0], [0.5, 0.0, 0.0, 1.0, 1.0, 0.0]])
    k = kernel(theta, base[None, :], others)[0]
    assert k[0] == pytest.approx(k[1], rel=1e-12)
    untied = Matern52()(np.array([0.0, 0.0, -0.5, 0.5, 0.0, 0.3, 0.3]), base[None, :], others)[0]
    assert untied[0] != pytest.approx(untied[1], rel=1e-3)


def test_identity_ties_are_the_ard_kernel_to_the_bit() -> None:
    rng = np.random.default_rng(2)
    X, Z = rng.random((5, 4)), rng.random((3, 4))
    theta = rng.normal(0, 0.5, 5)
    tied = Matern52(tied=np.arange(4))
    np.testing.assert_array_equal(tied(theta, Z, X), Matern52()(theta, Z, X))


def test_a_two_option_choice_counts_its_scale_in_units_of_two() -> None:
    """Only the two-column group's scale gets the unit; a choice flipped under it is as far as
    under twice the fitted scale without units."""
    np.testing.assert_array_equal(UNITS, [1.0, 1.0, 2.0])
    theta = np.array([0.0, 0.1, -0.5, 0.3])
    base, flipped = np.array([[0.5, 1.0, 0.0, 0.0, 1.0, 0.0]]), np.array([[0.5, 1.0, 0.0, 0.0, 0.0, 1.0]])
    stretched = theta + np.array([0.0, 0.0, 0.0, np.log(2.0)])
    with_units = Matern52(tied=TIED, units=UNITS)(theta, base, flipped)
    np.testing.assert_allclose(with_units, Matern52(tied=TIED)(stretched, base, flipped), rtol=1e-12)
    assert "units=[1.0, 1.0, 2.0]" in repr(Matern52(tied=TIED, units=UNITS))


def test_units_must_give_one_factor_per_tied_scale() -> None:
    with pytest.raises(ValueError, match=r"units must give one factor per tied length scale"):
        Matern52(tied=TIED, units=np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"units must give one factor per tied length scale"):
        Matern52(units=np.array([2.0]))
