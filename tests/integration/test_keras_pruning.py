"""The Keras 3 pruning callback stops real training runs under successive halving (torch backend, CPU)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

import treefarm as tf

os.environ.setdefault("KERAS_BACKEND", "torch")  # before Keras is first imported; CI has the CPU torch wheel
pytest.importorskip(
    "torch", reason="the Keras callback is tested on Keras's torch backend: pip install torch"
)
keras = pytest.importorskip("keras", reason="the Keras callback needs Keras 3: pip install 'treefarm[keras]'")

EPOCHS = 9


def _data() -> tuple[np.ndarray, np.ndarray]:
    x = np.random.default_rng(0).random((64, 1)).astype("float32")
    return x, 3 * x


def _fit(lr: float, callback: Any) -> Any:
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=lr), loss="mse")
    x, y = _data()
    return model.fit(
        x, y, validation_split=0.25, epochs=EPOCHS, batch_size=16, verbose=0, callbacks=[callback]
    )


def test_keras_training_is_reported_and_pruned() -> None:
    from treefarm.integration.keras import KerasPruningCallback

    def objective(params: dict[str, float], trial: tf.Trial) -> float:
        history = _fit(params["lr"], KerasPruningCallback(trial, monitor="val_loss"))
        return float(history.history["val_loss"][-1])

    study = tf.Study.create(
        space={"lr": tf.Real(1e-4, 1.0, log=True)},
        algo="random",
        seed=0,
        pruner=tf.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3),
    )
    study.optimize(objective, 8, progress=False)
    states = [t.state for t in study.trials]
    assert tf.TrialState.PRUNED in states and tf.TrialState.COMPLETE in states, states
    complete = next(t for t in study.trials if t.state is tf.TrialState.COMPLETE)
    assert sorted(complete.intermediate) == list(range(EPOCHS))
    pruned = next(t for t in study.trials if t.state is tf.TrialState.PRUNED)
    assert max(pruned.intermediate) < EPOCHS - 1
    assert pruned.value == pruned.intermediate[max(pruned.intermediate)]


def test_a_metric_keras_does_not_log_is_named() -> None:
    from treefarm.integration.keras import KerasPruningCallback

    study = tf.Study.create(space={"lr": tf.Real(1e-3, 1e-1, log=True)}, seed=0)
    trial = study.ask()
    with pytest.raises(tf.StudyError, match=r"monitor='val_acc'; logged: \['loss', 'val_loss'\]"):
        _fit(0.01, KerasPruningCallback(trial, monitor="val_acc"))
