"""A diagnosis: the length scales and noise the two GPs fit on max cut as the study grows.

``python -m bench.screens.choice_fits treefarm`` runs ``auto`` on ``maxcut30`` (seed 0, 100
evaluations) and prints its GP's fitted length scales (one per choice; a changed choice adds
``2 / l**2`` to the squared distance, its two one-hot columns) and noise at the refits after 24, 48,
72 and 96 trials; ``python -m bench.screens.choice_fits optuna`` (an interpreter with Optuna and
PyTorch) the same for Optuna's GPSampler, whose changed choice adds ``1 / l**2``, after 25, 50, 75
and 99. The fits are read by wrapping each library's fitting function; nothing is changed.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..suites.categorical import PROBLEMS

N_AT = {"treefarm": (24, 48, 72, 96), "optuna": (25, 50, 75, 99)}


def objective(config: Any) -> float:
    d, _, f = PROBLEMS["maxcut30"]
    return float(f(np.array([config[f"x{i:02d}"] for i in range(d)])))


def treefarm_fits() -> None:
    import treefarm as tf
    from treefarm.bo.models import gp

    fit, seen = gp.fit_gp, set()

    def reading(X: np.ndarray, y: np.ndarray, domain: Any, **options: Any) -> Any:
        model = fit(X, y, domain, **options)
        if len(y) in N_AT["treefarm"] and len(y) not in seen:
            seen.add(len(y))
            where = options["kernel"].length_scale_slices(X.shape[1])[0]
            scales = np.exp(model.params.theta[where])
            print(f"treefarm n={len(y)}: length scales median {np.median(scales):.3g} (min {scales.min():.3g}, "
                  f"max {scales.max():.3g}), as Optuna's distance {np.median(scales) / np.sqrt(2):.3g}; "
                  f"noise variance {np.exp(model.params.log_noise):.3g}", flush=True)
        return model

    gp.fit_gp = reading
    d, options, _ = PROBLEMS["maxcut30"]
    study = tf.Study.create(space={f"x{i:02d}": tf.Choice(*options) for i in range(d)}, seed=0)
    study.optimize(objective, 100, progress=False)
    print(f"treefarm best {study.best_value:.4f}")


def optuna_fits() -> None:
    import optuna
    import optuna._gp.gp as optuna_gp

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    fit = optuna_gp.fit_kernel_params

    def reading(*args: Any, **options: Any) -> Any:
        model = fit(*args, **options)
        n = model._X_train.shape[0]
        if n in N_AT["optuna"]:
            scales = 1 / np.sqrt(model.inverse_squared_lengthscales.detach().numpy())
            print(f"optuna n={n}: length scales median {np.median(scales):.3g} (min {scales.min():.3g}, "
                  f"max {scales.max():.3g}); noise variance {float(model.noise_var):.3g}", flush=True)
        return model

    optuna_gp.fit_kernel_params = reading
    d, options, _ = PROBLEMS["maxcut30"]
    study = optuna.create_study(sampler=optuna.samplers.GPSampler(seed=0))
    study.optimize(lambda t: objective({f"x{i:02d}": t.suggest_categorical(f"x{i:02d}", options) for i in range(d)}),
                   n_trials=100)
    print(f"optuna best {study.best_value:.4f}")


if __name__ == "__main__":
    {"treefarm": treefarm_fits, "optuna": optuna_fits}[sys.argv[1]]()
