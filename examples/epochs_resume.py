"""Train a linear model by epochs and continue promoted trials from their checkpoints.

scikit-learn's ``SGDClassifier`` on the digits data (1,797 8x8 images, 30 % held
out), one ``partial_fit`` pass over the training rows an epoch. The fidelity is the
number of epochs, 1 to 27: successive halving starts new configurations at 1 epoch
and promotes a third of each rung to 3, 9 and 27 (those ``auto``'s model expects best
after 27 epochs). A promotion continues the
configuration's trial at the rung below: it loads that trial's checkpoint (the
pickled model and its epochs), trains only the epochs it adds, and pays only for
them, so ``max_cost=270`` (epochs in all, ten full trainings) buys more evaluations
than training every promotion from scratch. The model resumed is the model trained
straight through: the same value either way.

    python examples/epochs_resume.py            # one study on SQLite, epochs_resume.db
    python examples/epochs_resume.py compare    # resuming against training again, 10 seeds
"""

from __future__ import annotations

import pickle
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

import treefarm as tf

X, y = load_digits(return_X_y=True)
X_train, X_valid, y_train, y_valid = train_test_split(X, y, test_size=0.3, random_state=0)
scaler = StandardScaler().fit(X_train)
X_train, X_valid = scaler.transform(X_train), scaler.transform(X_valid)
CLASSES = np.unique(y)

space = {
    "alpha": tf.Real(1e-6, 1e-1, log=True),
    "eta0": tf.Real(1e-4, 1.0, log=True),
    "learning_rate": tf.Choice("constant", "invscaling", "adaptive"),
}
fidelity = tf.Fidelity(1, 27, integer=True)


def model_for(params: dict[str, Any]) -> SGDClassifier:
    return SGDClassifier(loss="log_loss", random_state=0, **params)


def objective(params: dict[str, Any], trial: tf.Trial, *, resume: bool = True) -> float:
    """The validation error after ``trial.fidelity`` epochs, resumed from the checkpoint of
    the trial this one continues when there is one (and ``resume``)."""
    state = trial.load_checkpoint() if resume else None
    model, epochs = pickle.loads(state) if state is not None else (model_for(params), 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        while epochs < (trial.fidelity or fidelity.high):
            model.partial_fit(X_train, y_train, classes=CLASSES)
            epochs += 1
    if resume:
        trial.save_checkpoint(pickle.dumps((model, epochs)))
    return 1.0 - float(model.score(X_valid, y_valid))


def again(params: dict[str, Any], trial: tf.Trial) -> float:
    """The same training without checkpoints: every promotion trains from the first epoch."""
    return objective(params, trial, resume=False)


def main(max_cost: float = 270.0, *, resume: bool = True, seed: int = 0, storage: str = "epochs_resume.db") -> tf.Study:
    study = tf.Study.create(
        "epochs", space=space, fidelity=fidelity, seed=seed, storage=storage, load_if_exists=True
    )
    study.optimize(objective if resume else again, max_cost=max_cost, progress=False)
    return study


def compare(seeds: int = 10, max_cost: float = 270.0) -> None:
    """For each seed, the same study resuming and training again: the evaluations each
    made within ``max_cost``, the best full-fidelity error, and what the trials the study
    that trains again made cost the one that resumes."""
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(seeds):
            resumed = main(max_cost, seed=seed, storage=str(Path(folder) / f"resumed-{seed}.db"))
            scratch = main(max_cost, resume=False, seed=seed, storage=str(Path(folder) / f"again-{seed}.db"))
            same = resumed.trials[: len(scratch.trials)]
            made = [(t.params, t.system_attrs["fidelity"], t.value) for t in same]
            assert made == [(t.params, t.system_attrs["fidelity"], t.value) for t in scratch.trials], seed
            saved = 1.0 - sum(t.cost for t in same) / sum(t.cost for t in scratch.trials)
            rows.append((len(resumed.trials), len(scratch.trials), resumed.best_value, scratch.best_value, saved))
    for name, column in zip(("trials resumed", "trials again", "best resumed", "best again", "saved"), zip(*rows)):
        low, median, high = np.percentile(column, [25, 50, 75])
        print(f"{name:>15}: median {median:.3f} (quartiles {low:.3f}-{high:.3f})")


if __name__ == "__main__":
    if sys.argv[1:] == ["compare"]:
        compare()
    else:
        found = main()
        print(f"best validation error after 27 epochs: {found.best_value:.4f} with {found.best_params}")
