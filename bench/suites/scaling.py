"""Time per suggestion as the history grows: treefarm's optimizers against Optuna's.

The history is preloaded with n random observations of a smooth function
(sphere) in d dimensions; then a few suggestions are made as a study makes
them, each evaluated and added to the history before the next, so history
sizes n, n+1, ... (an optimizer that caches work between suggestions gets no
more help than it would in a real study). Their median is reported, in CPU
seconds of this process (the machine is shared, so wall time would include
waiting for a core). treefarm: ``optimizer.suggest(space, history, 1, rng)``
(what ``ask`` calls); Optuna: ``study.ask()`` plus the ``suggest_float``
calls, then ``study.tell``, after ``study.add_trials`` of the preloaded trials.
Each library first makes one untimed suggestion from 25 observations, so
imports and first-call costs are not counted.
treefarm's peak memory is that of one suggestion at the largest n, traced by
``tracemalloc`` (NumPy reports its buffers to it; torch does not, so Optuna
has no such column).
"""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np


def _sphere(x: np.ndarray) -> np.ndarray:
    return ((x - 0.3) ** 2).sum(-1)


def _data(d: int, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    X = np.random.default_rng(seed).random((n, d))
    return X, _sphere(X)


def _treefarm_setup(algo: str, d: int, n: int) -> tuple[Any, Any, Any]:
    import treefarm as tf

    space = {f"x{i}": tf.Real(0.0, 1.0) for i in range(d)}
    X, y = _data(d, n)
    history = tf.History(
        complete=tuple(
            tf.Observation(tf.Config({f"x{i}": float(v) for i, v in enumerate(row)}), float(loss))
            for row, loss in zip(X, y)
        )
    )
    return space, history, tf.optimizers.make_optimizer(algo)


def treefarm_time(algo: str, d: int, n: int, repeats: int = 3) -> list[float]:
    import treefarm as tf

    space, history, optimizer = _treefarm_setup(algo, d, n)
    warmup = tf.History(complete=history.complete[:25])  # imports and first-call costs, untimed
    optimizer.suggest(space, warmup, 1, np.random.default_rng(0))
    times: list[float] = []
    for r in range(repeats):
        start = time.process_time()
        (config,) = optimizer.suggest(space, history, 1, np.random.default_rng(r))
        times.append(time.process_time() - start)
        x = np.array([config[f"x{i}"] for i in range(d)])
        observation = tf.Observation(config, float(_sphere(x)))
        history = tf.History(complete=(*history.complete, observation))
    return times


def treefarm_peak_mb(algo: str, d: int, n: int) -> float:
    """Peak traced memory of one suggestion from ``n`` observations, in MB."""
    import tracemalloc

    space, history, optimizer = _treefarm_setup(algo, d, n)
    tracemalloc.start()
    optimizer.suggest(space, history, 1, np.random.default_rng(0))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def optuna_time(sampler: str, d: int, n: int, repeats: int = 3) -> list[float]:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    make: dict[str, Any] = {
        "tpe": lambda: optuna.samplers.TPESampler(seed=0),
        "gp": lambda: optuna.samplers.GPSampler(seed=0),
        "random": lambda: optuna.samplers.RandomSampler(seed=0),
    }
    X, y = _data(d, n)
    dists = {f"x{i}": optuna.distributions.FloatDistribution(0.0, 1.0) for i in range(d)}
    trials = [
        optuna.trial.create_trial(
            params={f"x{i}": float(v) for i, v in enumerate(row)}, distributions=dists, value=float(v)
        )
        for row, v in zip(X, y)
    ]
    warmup = optuna.create_study(sampler=make[sampler]())  # imports and first-call costs, untimed
    warmup.add_trials(trials[:25])
    warmup.ask().suggest_float("x0", 0.0, 1.0)
    study = optuna.create_study(sampler=make[sampler]())
    study.add_trials(trials)
    times: list[float] = []
    for _ in range(repeats):
        start = time.process_time()
        trial = study.ask()
        for i in range(d):
            trial.suggest_float(f"x{i}", 0.0, 1.0)
        times.append(time.process_time() - start)
        study.tell(trial, float(_sphere(np.array([trial.params[f"x{i}"] for i in range(d)]))))
    return times


def table(methods: list[str], dims: list[int], sizes: list[int], *, cap: float = 20.0) -> str:
    """The markdown table, one row per (method, d): the median CPU time of a
    sequence of suggestions at each history size (10 for the GP models, a
    whole cycle of treefarm's refit schedule, 3 for the others) with their
    mean in parentheses, and treefarm's peak memory at the largest size run.
    GP models are not run at 10,000, and a row stops once a suggestion took
    more than ``cap`` CPU seconds (marked ">cap")."""
    lines = [
        "| method | d | " + " | ".join(f"CPU ms, n={n}" for n in sizes) + " | peak MB |",
        "|---|---|" + "---|" * (len(sizes) + 1),
    ]
    for m in methods:
        lib, algo = m.split("-", 1)
        timer = treefarm_time if lib == "tf" else optuna_time
        repeats = 10 if algo in ("gp", "auto") else 3
        for d in dims:
            cells: list[str] = []
            seconds, largest = 0.0, 0
            for n in sizes:
                if algo in ("gp", "auto") and n > 1000:
                    cells.append("–")
                elif seconds > cap:
                    cells.append(f">{cap:g} s")
                else:
                    text, seconds = _cell(timer, algo, d, n, repeats)
                    cells.append(text)
                    largest = n
            peak = f"{treefarm_peak_mb(algo, d, largest):.0f}" if lib == "tf" and largest else "–"
            lines.append(f"| {m} | {d} | " + " | ".join(cells) + f" | {peak} |")
            print(lines[-1], file=sys.stderr, flush=True)  # progress; the table goes to stdout at the end
    return "\n".join(lines)


def _cell(timer: Any, algo: str, d: int, n: int, repeats: int) -> tuple[str, float]:
    """The cell's text, ``median (mean)`` in ms, and the median in seconds (0 for a failure)."""
    try:
        times = timer(algo, d, n, repeats)
    except ImportError as exc:
        return f"not installed ({exc.name})", 0.0
    except Exception as exc:  # a failure is a cell, not a dead table
        return type(exc).__name__, 0.0
    median = float(np.median(times))
    return f"{1000 * median:.1f} ({1000 * float(np.mean(times)):.1f})", median
