"""The l(x) / g(x) of the Tree-structured Parzen Estimator over binary features.

Notation (shapes):
    n_l, n_g        the numbers of good and bad observations
    L (n_l, v)      which of v binary features each good observation has
    G (n_g, v)      the same for the bad ones
    X (m, v)        candidates to score

TPE (Bergstra et al., 2011) proposes the candidate maximizing l(x) / g(x),
where l is a density fitted to the best ``gamma`` fraction of the
observations and g to the rest. Over a bag of binary features (productions of
a grammar, see :mod:`treefarm.encoding.productions`) the simplest density is
a product of independent Bernoullis (the naive-Bayes model), with the
Laplace-smoothed probabilities

    p_l = (sum_i L_i + a) / (n_l + 2a),    p_g = (sum_i G_i + a) / (n_g + 2a),

so that

    log l(x) - log g(x) = sum_j x_j log(p_l / p_g) + (1 - x_j) log((1 - p_l) / (1 - p_g)).

The smoothing ``a`` (default 1, Laplace's rule) keeps a feature seen in only
one group from dominating the score.
"""

from __future__ import annotations

import numpy as np

__all__ = ["log_ratio", "log_ratio_weights"]


def log_ratio_weights(L: np.ndarray, G: np.ndarray, *, a: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The weights ``(w1, w0)``, each (v,), of present and absent features in log l - log g."""
    p_l = (L.sum(axis=0) + a) / (L.shape[0] + 2 * a)
    p_g = (G.sum(axis=0) + a) / (G.shape[0] + 2 * a)
    return np.log(p_l) - np.log(p_g), np.log1p(-p_l) - np.log1p(-p_g)


def log_ratio(X: np.ndarray, w1: np.ndarray, w0: np.ndarray) -> np.ndarray:
    """``log l(x) - log g(x)`` of each row of ``X`` (m,)."""
    Xf = X.astype(float)
    return Xf @ w1 + (1.0 - Xf) @ w0
