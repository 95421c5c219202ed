"""The fold-noise benchmark's closed-form truth against a Monte Carlo estimate of it."""

from __future__ import annotations

import numpy as np
from bench.screens.fold_noise import FOLD, N_FOLDS, N_POINTS, NOISE, X, law, smoother, true_loss


def test_the_closed_form_true_loss_matches_monte_carlo() -> None:
    params = {"degree": 6, "alpha": 1e-4}
    maps = [
        (np.equal(FOLD, f), smoother(~np.equal(FOLD, f), np.equal(FOLD, f), 6, 1e-4)) for f in range(N_FOLDS)
    ]
    rng = np.random.default_rng(0)
    draws = []
    for _ in range(2000):
        y = law(X) + NOISE * rng.standard_normal(N_POINTS)
        draws.append(np.mean([np.mean((pa @ y[~test] - law(X[test])) ** 2) for test, pa in maps]))
    standard_error = np.std(draws) / np.sqrt(len(draws))
    assert abs(true_loss(params) - np.mean(draws)) < 4 * standard_error
    # the smoother is the ridge fit: no noise and no penalty on a low degree reproduce a polynomial law
    test = np.equal(FOLD, 0)
    cubic = (X - 1.0) ** 3 - X
    np.testing.assert_allclose(smoother(~test, test, 3, 1e-12) @ cubic[~test], cubic[test], atol=1e-6)
