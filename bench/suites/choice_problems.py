"""Problems of the choice-only suite that were added as its held-out part, and the grid of a BBOB function.

- Contamination control (Hu, Hu, Xu, Wang & Cao 2010, "Contamination control in food supply
  chain"; as a benchmark in Baptista & Poloczek 2018, "Bayesian optimization of combinatorial
  structures", and Oh et al. 2019): at each of ``n`` stages of a food supply chain, prevent
  contamination (cost 1) or not. The contaminated fraction follows
  ``Z_i = Lambda_i (1 - x_i) + (1 - Gamma_i x_i) Z_{i-1}`` with ``Lambda ~ Beta(1, 17/3)``,
  ``Gamma ~ Beta(4, 1)``, ``Z_0 ~ Beta(1, 30)``, drawn for 100 simulated lots with the seed fixed
  (a deterministic objective). The loss is the cost paid, minus for each stage the fraction of lots
  under the limit ``U = 0.1`` less ``1 - epsilon`` (``epsilon = 0.05``, weight ``rho = 1``), plus
  ``lambda * sum x`` with ``lambda = 0.01``, as in those papers.
- A BBOB function (Hansen et al. 2009) with every coordinate a choice among nine levels
  ``-5, -3.75, ..., 5``, at a fixed instance: the grid of a shifted, rotated function whose
  optimum the methods cannot guess from the levels' order.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

#: Contamination control's constants (Hu et al. 2010; Baptista & Poloczek 2018).
LIMIT, EPSILON, RHO, LAMBDA, LOTS = 0.1, 0.05, 1.0, 0.01, 100


@functools.cache
def _contamination_draws(n_stages: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The simulation's fixed draws: initial fractions (lots,), Lambda and Gamma (stages, lots)."""
    rng = np.random.RandomState(0)
    start = rng.beta(1.0, 30.0, size=LOTS)
    spread = rng.beta(1.0, 17.0 / 3.0, size=(n_stages, LOTS))
    removal = rng.beta(4.0, 1.0, size=(n_stages, LOTS))
    return start, spread, removal


def contamination(x: np.ndarray) -> float:
    """The contamination control loss of the plan ``x`` (0 or 1 per stage; 1 prevents)."""
    x = np.asarray(x, dtype=float)
    start, spread, removal = _contamination_draws(len(x))
    fraction, safe = start, np.zeros(len(x))
    for i, prevent in enumerate(x):
        fraction = spread[i] * (1.0 - prevent) + (1.0 - removal[i] * prevent) * fraction
        safe[i] = float(np.mean(fraction <= LIMIT)) - (1.0 - EPSILON)
    return float(np.sum(x) - RHO * np.sum(safe) + LAMBDA * np.sum(x))


def bbob_grid(function: int, dim: int, instance: int = 1) -> Callable[[np.ndarray], float]:
    """BBOB ``function`` in ``dim`` dimensions at ``instance``, evaluated at a grid point."""

    def f(x: np.ndarray) -> float:
        from ..harness.bbob import coco_problem

        return float(coco_problem(function, instance, dim)(np.asarray(x, dtype=float)))

    return f


def grid_minimum(f: Callable[[np.ndarray], float], levels: np.ndarray, dim: int) -> float:
    """The least value of ``f`` over every point of the grid ``levels ** dim`` (9^5 = 59049 calls for five coordinates)."""
    grid = np.stack(np.meshgrid(*[levels] * dim, indexing="ij"), axis=-1).reshape(-1, dim)
    return float(min(f(x) for x in grid))


def labs(x: np.ndarray) -> float:
    """Low autocorrelation binary sequences: minus the merit factor ``n^2 / (2 E)`` of the
    sequence ``s = 2 x - 1`` (x in {0, 1}), ``E = sum_k C_k^2`` over its aperiodic
    autocorrelations ``C_k = sum_i s_i s_{i+k}`` (Golay 1972; a benchmark of BODi, Deshwal et
    al. 2023)."""
    s = 2.0 * np.asarray(x, dtype=float) - 1.0
    n = len(s)
    energy = sum(float(np.dot(s[: n - k], s[k:])) ** 2 for k in range(1, n))
    return -(n * n) / (2.0 * energy)


@functools.cache
def _maxcut_graph(n: int) -> np.ndarray:
    """A fixed random weighted graph on ``n`` nodes: each edge present with probability 0.3,
    its weight uniform in [0, 1] (seed 0); the symmetric weight matrix (n, n)."""
    rng = np.random.default_rng(0)
    upper = np.triu(rng.uniform(0.0, 1.0, (n, n)) * (rng.uniform(0.0, 1.0, (n, n)) < 0.3), 1)
    return upper + upper.T


def maxcut(x: np.ndarray) -> float:
    """Minus the fraction of the graph's weight cut by the partition ``x`` (one 0 or 1 per node)."""
    w = _maxcut_graph(len(x))
    side = np.asarray(x, dtype=float)
    cut = float(side @ w @ (1.0 - side))
    return -cut / float(np.triu(w, 1).sum())


#: The Ising model's grid side, its penalty per kept interaction, and the L2-regularized
#: logistic regression's penalty per selected feature (the binary held-out problems added last).
ISING_SIDE, ISING_LAMBDA, FEATURE_COST = 4, 0.01, 0.002


@functools.cache
def _ising_grid(rows: int, columns: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The grid's edge products ``z_i z_j`` for every spin state ``z`` in {-1, 1}^(rows * columns)
    (states, edges), and the interactions (edges,): magnitudes uniform in [0.05, 5], signs
    random (``seed``), as Baptista & Poloczek (2018) draw them."""
    n = rows * columns
    edges = [(r * columns + c, r * columns + c + 1) for r in range(rows) for c in range(columns - 1)]
    edges += [(r * columns + c, (r + 1) * columns + c) for r in range(rows - 1) for c in range(columns)]
    states = 1.0 - 2.0 * ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1)
    products = np.stack([states[:, i] * states[:, j] for i, j in edges], axis=1)
    rng = np.random.default_rng(seed)
    weights = rng.uniform(0.05, 5.0, len(edges)) * rng.choice([-1.0, 1.0], len(edges))
    return products, weights


def _log_partition(energy: np.ndarray) -> float:
    top = float(energy.max())
    return top + float(np.log(np.exp(energy - top).sum()))


def _sparsified(products: np.ndarray, weights: np.ndarray, x: np.ndarray) -> float:
    """``KL(P || Q_x) + lambda * sum x`` for the Ising model ``P`` and ``Q_x`` keeping the interactions ``x``."""
    full, kept = products @ weights, products @ (weights * np.asarray(x, dtype=float))
    log_p = full - _log_partition(full)
    log_q = kept - _log_partition(kept)
    return float(np.exp(log_p) @ (log_p - log_q)) + ISING_LAMBDA * float(np.sum(x))


def ising(x: np.ndarray) -> float:
    """Ising sparsification (Baptista & Poloczek 2018, "Bayesian optimization of combinatorial
    structures"): keep the interactions ``x`` (one 0 or 1 per edge of a 4 x 4 grid, 24 edges) of a
    fixed Ising model ``P`` (seed 0); the loss is ``KL(P || Q_x) + lambda * sum x``, ``Q_x`` the
    model with the other interactions removed, by enumerating the 2^16 spin states."""
    products, weights = _ising_grid(ISING_SIDE, ISING_SIDE, seed=0)
    return _sparsified(products, weights, x)


@functools.cache
def _cancer_folds() -> tuple[np.ndarray, np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
    """scikit-learn's breast-cancer data (569 rows, 30 features), standardized, and five fixed
    stratified folds (seed 0)."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import StratifiedKFold

    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X, y, list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))


def feature_selection(x: np.ndarray) -> float:
    """Feature selection: a logistic regression (L2, ``C = 1``) on the features ``x`` selects (one
    0 or 1 per feature of the breast-cancer data); the loss is its five-fold cross-validated log
    loss plus :data:`FEATURE_COST` per selected feature. No feature predicts the base rate."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import log_loss

    X, y, folds = _cancer_folds()
    chosen = np.flatnonzero(np.asarray(x, dtype=float) > 0.5)
    losses = []
    for train, test in folds:
        if len(chosen) == 0:
            p = np.full(len(test), y[train].mean())
        else:
            model = LogisticRegression(C=1.0, max_iter=1000).fit(X[train][:, chosen], y[train])
            p = model.predict_proba(X[test][:, chosen])[:, 1]
        losses.append(log_loss(y[test], p, labels=[0, 1]))
    return float(np.mean(losses)) + FEATURE_COST * len(chosen)


#: Weighted MAX-SAT's variables and clauses (three literals each, near the 3-SAT threshold of 4.26
#: clauses a variable) and the knapsack's items (the binary held-out problems added third).
SAT_VARIABLES, SAT_CLAUSES, KNAPSACK_ITEMS = 32, 136, 30


@functools.cache
def _sat_instance() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A fixed random weighted 3-SAT instance (seed 0): each clause's variables (clauses, 3),
    whether each literal is negated (clauses, 3) and its weight, uniform in [0, 1]."""
    rng = np.random.default_rng(0)
    variables = np.stack([rng.choice(SAT_VARIABLES, 3, replace=False) for _ in range(SAT_CLAUSES)])
    return variables, rng.random((SAT_CLAUSES, 3)) < 0.5, rng.random(SAT_CLAUSES)


def maxsat(x: np.ndarray) -> float:
    """Weighted MAX-SAT (a benchmark of COMBO and BODi): the share of the clauses' weight left
    unsatisfied by the assignment ``x`` (one 0 or 1 per variable)."""
    variables, negated, weights = _sat_instance()
    values = np.asarray(x, dtype=bool)[variables] != negated
    return float(weights[~values.any(axis=1)].sum() / weights.sum())


@functools.cache
def _knapsack_items() -> tuple[np.ndarray, np.ndarray, float]:
    """A fixed knapsack (seed 0): values and weights uniform in [1, 10] and [1, 10], the capacity
    a third of the total weight."""
    rng = np.random.default_rng(0)
    values, weights = rng.uniform(1, 10, KNAPSACK_ITEMS), rng.uniform(1, 10, KNAPSACK_ITEMS)
    return values, weights, float(weights.sum() / 3)


def knapsack(x: np.ndarray) -> float:
    """A 0-1 knapsack as a loss: minus the value packed over the total value, plus twice the
    overweight over the capacity (a penalty that makes an overfull pack worse than an empty one
    only when it is far over)."""
    values, weights, capacity = _knapsack_items()
    chosen = np.asarray(x, dtype=float)
    over = max(0.0, float(chosen @ weights) - capacity)
    return -float(chosen @ values) / float(values.sum()) + 2.0 * over / capacity


def ising_small(x: np.ndarray) -> float:
    """Ising sparsification on a 3 x 5 grid (22 edges), the interactions drawn with seed 1:
    :func:`ising`'s loss on another model."""
    products, weights = _ising_grid(3, 5, seed=1)
    return _sparsified(products, weights, x)
