"""An executor's workers are kept busy: a new trial is asked as soon as one finishes,
so one long trial holds up one worker, not the whole run."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import treefarm as tf

SPACE = {"x": tf.Real(-1.0, 1.0)}
_calls = 0
_lock = threading.Lock()
_others_done = threading.Event()


def slow_first(x: dict[str, float]) -> float:
    """The first call waits until five later calls have finished (or 20 s pass)."""
    global _calls
    with _lock:
        _calls += 1
        mine = _calls
    if mine == 1:
        released = _others_done.wait(timeout=20.0)
        return 0.0 if released else 1.0
    if mine == 6:
        _others_done.set()
    return x["x"] ** 2 + 0.5


def square(x: dict[str, float]) -> float:
    return x["x"] ** 2


def test_a_long_trial_holds_up_one_worker_not_all() -> None:
    study = tf.Study.create(space=SPACE, storage=None, algo="random", seed=3)
    with ThreadPoolExecutor(2) as pool:
        study.optimize(slow_first, 8, executor=pool)
    trials = study.trials
    assert len(trials) == 8 and all(t.state is tf.TrialState.COMPLETE for t in trials)
    assert trials[0].value == 0.0  # released by later trials that ran beside it, not by the timeout
    assert sorted(t.number for t in trials) == list(range(8))


def test_an_executor_run_stops_at_its_budget_with_trials_in_flight() -> None:
    study = tf.Study.create(space=SPACE, storage=None, algo="tpe", seed=0)
    with ThreadPoolExecutor(3) as pool:
        study.optimize(square, 10, executor=pool)
        study.optimize(square, n_new_trials=4, executor=pool)
    assert [t.number for t in study.trials] == list(range(14))
    assert all(t.state is tf.TrialState.COMPLETE for t in study.trials)
