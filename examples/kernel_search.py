"""GP kernel-combination search on a CO2-like series (a thesis experiment).

The thesis (seeds/001, Experiments: "Kernel Parameter and Kernel Combination
Optimization") names this experiment without a setup or results; this is
ours. The kernel grammar: ``K = K + K | K * K | base`` with base kernels
(RBF, periodic, rational quadratic, linear, white noise) and their
hyperparameters in the search space. The series imitates the Mauna Loa CO2
record: a slow quadratic trend, a yearly cycle whose shape drifts, and noise
(generated in code with a fixed seed, 12 samples a year for 15 years). A
scikit-learn ``GaussianProcessRegressor`` with the built kernel (its own
optimizer switched off: the search chooses the hyperparameters) is fitted on
the first 12 years (80%); the loss is the RMSE of its forecast of the last 3,
in the series' units. Depth <= 3 keeps kernels to at most 4 base terms and an
evaluation to a few milliseconds (one Cholesky of 144 points; BLAS on one
thread, which on a shared machine was 15x faster than OpenBLAS's default).

Measured (best forecast RMSE, seeds 0/1/2): annealing with 300 evaluations
0.35/0.52/2.73 (seed 0, what ``python examples/kernel_search.py`` prints:
``times(periodic(6.1357, 1.0070), rbf(49.771))``, i.e. ExpSineSquared with
length 6.14 and period 1.01 times an RBF of length 49.8, a locally periodic
kernel, RMSE 0.350, in 11 s); random search with 300 2.80/3.21/0.74. A
kernel that misses the yearly cycle, like a long RBF alone, scores about 3.1.

    pip install -e ".[examples]"
    treefarm run examples/kernel_search.py --algo anneal --n-trials 300
    python examples/kernel_search.py
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

import numpy as np

import treefarm as tf

t = np.arange(0, 15, 1 / 12)
_rng = np.random.default_rng(0)
series = (
    0.05 * t**2
    + 1.5 * t
    + 3.0 * np.sin(2 * np.pi * t) * (1 + 0.02 * t)
    + 0.8 * np.cos(4 * np.pi * t)
    + 0.3 * _rng.standard_normal(len(t))
)
TRAIN = t < 12


def _kernels() -> Any:
    from sklearn.gaussian_process import kernels

    return kernels


def rbf(length: float) -> Any:
    return _kernels().ConstantKernel(1.0, "fixed") * _kernels().RBF(length, "fixed")


def periodic(length: float, period: float) -> Any:
    return _kernels().ExpSineSquared(length, period, "fixed", "fixed")


def rational_quadratic(length: float, alpha: float) -> Any:
    return _kernels().RationalQuadratic(length, alpha, "fixed", "fixed")


def linear(sigma0: float) -> Any:
    return _kernels().DotProduct(sigma0, "fixed")


def white(level: float) -> Any:
    return _kernels().WhiteKernel(level, "fixed")


plus = tf.op(lambda a, b: a + b, name="plus", commutative=True, associative=True)
times = tf.op(lambda a, b: a * b, name="times", commutative=True, associative=True)
length = tf.Real(0.05, 50.0, log=True)
base = tf.Join(
    rbf=tf.op(rbf)(length),
    periodic=tf.op(periodic)(tf.Real(0.1, 10.0, log=True), tf.Real(0.5, 2.0)),
    rq=tf.op(rational_quadratic)(length, tf.Real(0.1, 10.0, log=True)),
    linear=tf.op(linear)(tf.Real(0.01, 10.0, log=True)),
    white=tf.op(white)(tf.Real(1e-3, 1.0, log=True)),
)
K = tf.Var("K", max_depth=3)
K.define(plus(K, K) | times(K, K) | base)
space = K


@functools.cache
def _split() -> tuple[np.ndarray, ...]:
    mean, std = series[TRAIN].mean(), series[TRAIN].std()
    y = (series - mean) / std
    return t[TRAIN, None], y[TRAIN], t[~TRAIN, None], y[~TRAIN], np.array(std)


def objective(kernel: Any) -> float:
    """Forecast RMSE (in the series' units) of the GP with this kernel."""
    from sklearn.gaussian_process import GaussianProcessRegressor
    from threadpoolctl import threadpool_limits

    Xtr, ytr, Xte, yte, std = _split()
    model = GaussianProcessRegressor(kernel, alpha=1e-6, optimizer=None, normalize_y=False)
    try:
        with warnings.catch_warnings(), threadpool_limits(1):
            warnings.simplefilter("ignore")
            model.fit(Xtr, ytr)
            err = float(np.sqrt(np.mean((model.predict(Xte) - yte) ** 2)) * std)
    except (np.linalg.LinAlgError, ValueError):
        return 1e3
    return err if math.isfinite(err) else 1e3


if __name__ == "__main__":
    result = tf.minimize(objective, space, algo="anneal", max_evals=300, seed=0, storage=None)
    print(f"best forecast RMSE {result.best_value:.3f}")
    print(f"best kernel: {result.best_params}")
