"""A worker process whose objective resumes from checkpoints (tests/study/test_checkpoints.py):
``python resume_worker.py DB STUDY MAX_COST [HANG_MARKER]``. With ``HANG_MARKER``, the
first continuation it evaluates writes its trial number there, after loading its
checkpoint, and then hangs, to be killed."""

from __future__ import annotations

import math
import pickle
import sys
import time
from pathlib import Path

import treefarm as tf

SPACE = {"x": tf.Real(-5.0, 10.0), "y": tf.Real(0.0, 15.0)}
FIDELITY = tf.Fidelity(1, 27, integer=True)


def branin(config: dict) -> float:
    x, y = config["x"], config["y"]
    b = 5.1 / (4 * math.pi**2)
    return (y - b * x**2 + 5 / math.pi * x - 6) ** 2 + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x) + 10


def train(config: dict, trial: tf.Trial, hang: Path | None = None) -> float:
    """A learning curve by epochs: the value falls with the epochs done; the checkpoint
    holds the epochs done and the trial that saved it."""
    state = trial.load_checkpoint()
    epochs = pickle.loads(state)["epochs"] if state is not None else 0
    if state is not None:
        trial.set_user_attr("resumed_at", epochs)
        trial.set_user_attr("checkpoint_of", pickle.loads(state)["trial"])
        if hang is not None and not hang.exists():
            hang.write_text(str(trial.number))
            time.sleep(600)
    trained = 0
    while epochs < (trial.fidelity or FIDELITY.high):
        epochs += 1
        trained += 1
        time.sleep(0.001)
    trial.set_user_attr("trained", trained)
    trial.save_checkpoint(pickle.dumps({"epochs": epochs, "trial": trial.number}))
    return branin(config) + 20.0 / epochs


def main() -> None:
    db, name, max_cost = sys.argv[1], sys.argv[2], float(sys.argv[3])
    hang = Path(sys.argv[4]) if len(sys.argv) > 4 else None
    study = tf.Study.create(
        name, space=SPACE, storage=db, fidelity=FIDELITY, seed=4, algo="random", load_if_exists=True, heartbeat_interval=0.5
    )

    def objective(config: dict, trial: tf.Trial) -> float:
        return train(config, trial, hang)

    study.optimize(objective, max_cost=max_cost, progress=False)


if __name__ == "__main__":
    main()
