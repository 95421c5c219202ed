"""Module-level (picklable) objectives run on Dask workers by the execution tests."""

from __future__ import annotations

import os
import signal
import time

import treefarm as tf

SPACE = {"x": tf.Real(-1.0, 1.0)}


def square(p: dict) -> float:
    time.sleep(0.02)
    return float(p["x"] ** 2)


def kill_once(p: dict, *, marker: str) -> float:
    """The first evaluation with x > 0 kills its own worker process with SIGKILL
    (``marker`` is created atomically so that exactly one does); every other returns x**2."""
    time.sleep(0.05)
    if p["x"] > 0:
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return float(p["x"] ** 2)
        os.kill(os.getpid(), signal.SIGKILL)
    return float(p["x"] ** 2)


def train_or_die(config: dict, trial: tf.Trial, *, marker: str) -> float:
    """:func:`tests.study.resume_worker.train`, except that the first continuation to load
    its checkpoint writes its trial number to ``marker`` (created atomically, so exactly
    one does) and kills its own worker process with SIGKILL."""
    from ..study.resume_worker import train

    if trial.continues is not None and trial.load_checkpoint() is not None:
        try:
            handle = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return train(config, trial)
        os.write(handle, str(trial.number).encode())
        os.close(handle)
        os.kill(os.getpid(), signal.SIGKILL)
    return train(config, trial)


def reports(config: dict, trial: tf.Trial) -> float:
    """A learning curve: reports, which a worker of a study in memory cannot."""
    trial.report(1, float(config["x"]))
    return float(config["x"])


def curve(config: dict, trial: tf.Trial) -> float:
    """A learning curve of 9 steps that a pruner may stop: the error falls with the steps
    towards ``(x - 0.3)**2``."""
    value = float("nan")
    for step in range(1, 10):
        value = float((config["x"] - 0.3) ** 2 + 1.0 / step)
        trial.report(step, value)
        if trial.should_prune():
            raise tf.TrialPruned()
    return value


def curve_or_die(config: dict, trial: tf.Trial, *, marker: str) -> float:
    """:func:`curve`, except that the first trial to reach step 4 writes its number to
    ``marker`` (created atomically, so exactly one does) and kills its own worker process
    with SIGKILL there, its reports up to step 4 written."""
    value = float("nan")
    for step in range(1, 10):
        value = float((config["x"] - 0.3) ** 2 + 1.0 / step)
        trial.report(step, value)
        if step == 4:
            try:
                handle = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                pass
            else:
                os.write(handle, str(trial.number).encode())
                os.close(handle)
                os.kill(os.getpid(), signal.SIGKILL)
        if trial.should_prune():
            raise tf.TrialPruned()
    return value
