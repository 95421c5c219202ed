"""A closure test over k folds x replicas: the objective of seeds/000, with a known underlying law.

The law ``f(x) = sin(3x) + x / 2`` on ``[0, 2]`` is known, so the fit can be
judged against the truth (a closure test). Each replica ``r`` is one
pseudo-data set: the law at 60 fixed points plus Gaussian noise (sd 0.3,
seeded by ``r``). The model is polynomial ridge regression (``degree``,
``alpha``). For fold ``f`` of a 5-fold split, the model is fitted to the
other folds of replica ``r`` and scored by its mean squared error against
the law on fold ``f``: ``L[r, f]``.

The study minimizes the bias ``mean(L)`` and stores beside it the variance
``mean_f var_r L[:, f]`` (how much a test set's loss moves from one replica to
the next), the spread and every ``L[r, f]``. Folds are evaluated one at a
time, with the partial bias reported after each: the median rule stops a
trial whose first folds are already worse than the median of the earlier
trials there.

    python examples/closure_test.py
"""

from __future__ import annotations

from typing import Any

import numpy as np

import treefarm as tf

space = {"degree": tf.Int(1, 12), "alpha": tf.Real(1e-8, 1.0, log=True)}
N_POINTS, N_FOLDS, N_REPLICAS, NOISE = 60, 5, 4, 0.3
X = np.linspace(0.0, 2.0, N_POINTS)
FOLD = np.arange(N_POINTS) % N_FOLDS  # interleaved folds: each spans the whole range


def law(x: np.ndarray) -> np.ndarray:
    return np.sin(3.0 * x) + 0.5 * x


def replica(r: int) -> np.ndarray:
    """Pseudo-data ``r``: the law plus seeded Gaussian noise."""
    return law(X) + NOISE * np.random.default_rng(r).standard_normal(N_POINTS)


def ridge_fit(x: np.ndarray, y: np.ndarray, degree: int, alpha: float) -> np.ndarray:
    """Ridge coefficients on the monomials of ``x - 1``: ``(V^T V + alpha I)^-1 V^T y`` by lstsq."""
    v = np.vander(x - 1.0, degree + 1)
    a = np.vstack([v, np.sqrt(alpha) * np.eye(degree + 1)])
    b = np.concatenate([y, np.zeros(degree + 1)])
    return np.linalg.lstsq(a, b, rcond=None)[0]


def fold_loss(params: dict[str, Any], r: int, f: int) -> float:
    """``L[r, f]``: fitted to replica ``r`` outside fold ``f``, MSE against the law on fold ``f``."""
    y, test = replica(r), np.equal(FOLD, f)
    coef = ridge_fit(X[~test], y[~test], params["degree"], params["alpha"])
    prediction = np.vander(X[test] - 1.0, params["degree"] + 1) @ coef
    return float(np.mean((prediction - law(X[test])) ** 2))


def objective(params: dict[str, Any], trial: tf.Trial) -> dict[str, Any]:
    return tf.evaluate_folds(
        lambda r, f: fold_loss(params, r, f), n_folds=N_FOLDS, n_replicas=N_REPLICAS, how="bias", trial=trial
    )


def main(n_trials: int = 40, seed: int = 0) -> tf.Study:
    study = tf.Study.create(space=space, algo="tpe", seed=seed, pruner=tf.MedianPruner(n_startup_trials=5))
    study.optimize(objective, n_trials)
    best = study.best_trial
    pruned = sum(t.state is tf.TrialState.PRUNED for t in study.trials)
    folds = sum(len(t.intermediate) for t in study.trials)
    print(f"best: degree {best.params['degree']}, alpha {best.params['alpha']:.3g}")
    print(f"bias {best.user_attrs['bias']:.4f}, variance {best.user_attrs['variance']:.2e}")
    print(f"{pruned} of {n_trials} trials stopped early; {folds} of {n_trials * N_FOLDS} folds evaluated")
    return study


if __name__ == "__main__":
    main()
