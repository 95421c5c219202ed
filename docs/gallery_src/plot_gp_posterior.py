"""
What the GP believes
====================

A one-parameter study optimized by the Gaussian process, and the model behind its last
suggestion: the posterior mean and band along the parameter, the trials, and log expected
improvement below, which the next suggestion maximizes.
"""

import math

import treefarm as tf
from treefarm import viz


def objective(params):
    x = params["x"]
    return math.sin(3 * x) + 0.3 * (x - 0.5) ** 2


study = tf.Study.create("gp", space={"x": tf.Real(-2.0, 3.0)}, algo="gp", seed=0)  # kept in memory
study.optimize(objective, n_trials=12)
print(study.best_params, study.best_value)

# %%
posterior = viz.plot_gp_posterior(study, "x")
