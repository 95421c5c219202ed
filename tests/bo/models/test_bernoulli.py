"""The l/g ratio over binary features: against a direct product of Bernoulli densities."""

from __future__ import annotations

import numpy as np

from treefarm.bo.models.bernoulli import log_ratio, log_ratio_weights


def test_log_ratio_equals_the_ratio_of_bernoulli_products() -> None:
    rng = np.random.default_rng(0)
    L, G, X = rng.random((5, 7)) < 0.6, rng.random((15, 7)) < 0.3, rng.random((4, 7)) < 0.5
    p_l = (L.sum(0) + 1) / (5 + 2)
    p_g = (G.sum(0) + 1) / (15 + 2)
    direct = [
        np.log(np.prod(np.where(x, p_l, 1 - p_l))) - np.log(np.prod(np.where(x, p_g, 1 - p_g))) for x in X
    ]
    np.testing.assert_allclose(log_ratio(X, *log_ratio_weights(L, G)), direct)


def test_a_feature_of_the_good_ones_raises_the_score() -> None:
    L = np.array([[1, 0], [1, 0], [1, 1]], dtype=bool)
    G = np.array([[0, 0], [0, 1], [0, 1], [1, 1]], dtype=bool)
    w1, w0 = log_ratio_weights(L, G)
    scores = log_ratio(np.array([[1, 0], [0, 0]], dtype=bool), w1, w0)
    assert scores[0] > scores[1]
