"""
A first study and its convergence
=================================

A conditional space (``momentum`` exists only for SGD), the default ``auto`` optimizer, 40
trials, and two views of the result: the best value so far, and the value against each
parameter (a conditional parameter only where it was active).
"""

import math

import treefarm as tf
from treefarm import viz

space = {
    "learning_rate": tf.Real(1e-5, 1e-1, log=True),
    "layers": tf.Int(1, 6),
    "dropout": tf.Real(0.0, 0.5),
    "optimizer": tf.Join(adam={"name": "adam"}, sgd={"name": "sgd", "momentum": tf.Real(0.0, 0.99)}),
}


def objective(params):
    lr = math.log10(params["learning_rate"]) - math.log10(3e-3)
    loss = 0.08 + 0.05 * lr**2 + 0.01 * (params["layers"] - 3) ** 2 + 0.3 * (params["dropout"] - 0.2) ** 2
    if params["optimizer"]["name"] == "sgd":
        loss += 0.02 + 0.1 * (0.9 - params["optimizer"]["momentum"]) ** 2
    return loss


study = tf.Study.create("first", space=space, seed=0)  # no storage: kept in memory
study.optimize(objective, n_trials=40)
print(study.best_value, study.best_params)

# %%
# The best value so far, trial by trial:
convergence = viz.plot_convergence(study)

# %%
# The value against each parameter:
slices = viz.plot_slices(study)
