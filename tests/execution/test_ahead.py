"""On an executor the next trials are prepared while the workers run: a finished
worker starts again at once, a seeded run stays reproducible for a given completion
order, and nothing prepared is lost, run twice or left RUNNING."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

import treefarm as tf
from treefarm.execution.base import Pending
from treefarm.storage import TrialState
from treefarm.study.run.ahead import AHEAD

SPACE = {"x": tf.Real(-1.0, 1.0), "y": tf.Real(-1.0, 1.0)}


def quadratic(p: dict[str, float]) -> float:
    return (p["x"] - 0.3) ** 2 + p["y"] ** 2


SPANS: dict[int, list[tuple[float, float]]] = {}
_lock = threading.Lock()
_calls = [0]


def timed(p: dict[str, float]) -> float:
    """0.8 s, its start and end kept in SPANS by thread."""
    start = time.monotonic()
    time.sleep(0.8)
    with _lock:
        SPANS.setdefault(threading.get_ident(), []).append((start, time.monotonic()))
    return quadratic(p)


def slow(p: dict[str, float]) -> float:
    time.sleep(0.05)
    return quadratic(p)


def explode_on_sixth(p: dict[str, float]) -> float:
    _calls[0] += 1
    if _calls[0] == 6:
        raise ValueError("bad objective")
    return quadratic(p)


class Scripted:
    """An executor that runs each evaluation when it is submitted and reports them
    finished one at a time, oldest first (a fixed completion order); its
    ``first_completed`` raises KeyboardInterrupt on call ``interrupt_at``."""

    def __init__(self, capacity: int, interrupt_at: int | None = None) -> None:
        self._capacity, self.interrupt_at, self.calls = capacity, interrupt_at, 0
        self.order: list[Future[Any]] = []

    def capacity(self) -> int:
        return self._capacity

    def submit(self, function: Callable[..., Any], /, *args: Any) -> Pending:
        future: Future[Any] = Future()
        future.set_result(function(*args))
        self.order.append(future)
        return future

    def first_completed(self, pending: Collection[Pending]) -> set[Pending]:
        self.calls += 1
        if self.calls == self.interrupt_at:
            raise KeyboardInterrupt
        return {next(f for f in self.order if f in pending)}


def _states(study: tf.Study) -> list[TrialState]:
    return [t.state for t in study.trials]


def test_a_seeded_run_gives_the_same_trials_for_the_same_completion_order() -> None:
    """TPE reads the history, so preparing ahead could make a run depend on thread
    timing; the helper runs only while the study waits, so it does not."""
    runs = []
    for _ in range(2):
        study = tf.Study.create(space=SPACE, storage=None, algo="tpe", seed=7)
        study.optimize(quadratic, 30, executor=Scripted(4))
        runs.append([(t.number, t.params["x"], t.params["y"], t.value) for t in study.trials])
    assert runs[0] == runs[1]
    assert [number for number, *_ in runs[0]] == list(range(30)), "every trial number once, the budget exact"


def test_a_finished_worker_gets_a_prepared_trial_at_once() -> None:
    """Suggestions take 0.3 s and evaluations 0.8 s on 2 threads: prepared while
    the others run, a worker's next trial starts well within one suggestion's time."""
    class Slow(tf.Optimizer):
        def suggest(self, space, history, n, rng):  # type: ignore[no-untyped-def]
            time.sleep(0.3)
            return tf.RandomSearch().suggest(space, history, n, rng)

    SPANS.clear()
    study = tf.Study.create(space=SPACE, storage=None, algo=Slow(), seed=0)
    with ThreadPoolExecutor(2) as pool:
        study.optimize(timed, 10, executor=pool)
    assert _states(study) == [TrialState.COMPLETE] * 10
    gaps = [b[0] - a[1] for runs in SPANS.values() for a, b in zip(sorted(runs), sorted(runs)[1:])]
    assert len(gaps) == 8 and sorted(gaps)[len(gaps) // 2] < 0.15, f"a worker waited between trials: {gaps}"


class _Broken(tf.Optimizer):
    """Random for the first five trials' suggestions, then raises."""

    needs_history = True

    def suggest(self, space, history, n, rng):  # type: ignore[no-untyped-def]
        if len(history.complete) + len(history.pending) >= 5:
            raise RuntimeError("optimizer bug")
        return tf.RandomSearch().suggest(space, history, n, rng)


def test_a_suggestion_failing_while_prepared_fails_its_trial_with_the_reason() -> None:
    study = tf.Study.create(space=SPACE, storage=None, algo=_Broken(), seed=0)
    with pytest.raises(tf.SuggestionError, match="optimizer bug"):
        study.optimize(quadratic, 20, executor=Scripted(2))
    states = _states(study)
    assert TrialState.RUNNING not in states, f"a trial was left running: {states}"
    unsuggested = [t for t in study.trials if not t.params]
    assert len(unsuggested) == 1, "one trial was claimed for the suggestion that raised"
    assert "_Broken raised while suggesting" in str(unsuggested[0].system_attrs["fail_reason"])
    assert states.count(TrialState.COMPLETE) >= 1, "results finished before the error are recorded"


def test_ctrl_c_fails_the_running_and_the_prepared_trials() -> None:
    study = tf.Study.create(space=SPACE, storage=None, algo="random", seed=0)
    with pytest.raises(KeyboardInterrupt):
        study.optimize(quadratic, 50, executor=Scripted(3, interrupt_at=4))
    trials = study.trials
    unfinished = [t for t in trials if t.state is not TrialState.COMPLETE]
    assert [t.number for t in trials] == list(range(len(trials)))
    assert len(unfinished) == 3 + AHEAD, "the three running trials and the prepared ones"
    assert all(t.state is TrialState.FAILED and t.system_attrs["fail_reason"] == "interrupted" for t in unfinished)


def test_an_uncaught_error_fails_every_trial_still_held() -> None:
    _calls[0] = 0
    study = tf.Study.create(space=SPACE, storage=None, algo="random", seed=1)
    with pytest.raises(ValueError, match="bad objective"):
        study.optimize(explode_on_sixth, 40, executor=Scripted(2), catch=())
    states = _states(study)
    assert TrialState.RUNNING not in states, f"a trial was left running: {states}"
    assert "bad objective" in str(study.trials[5].system_attrs["fail_reason"])


def test_a_rule_stopping_the_run_leaves_no_prepared_trial_unrun() -> None:
    study = tf.Study.create(space=SPACE, storage=None, algo="random", seed=2)
    with ThreadPoolExecutor(3) as pool:
        study.optimize(slow, timeout=0.5, executor=pool)
        study.optimize(slow, n_new_trials=7, executor=pool)
    states = _states(study)
    assert states and set(states) == {TrialState.COMPLETE}, f"prepared trials must run: {states}"
    assert [t.number for t in study.trials] == list(range(len(states)))
