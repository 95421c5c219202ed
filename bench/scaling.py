"""Time per suggestion as the history grows: treefarm's optimizers against Optuna's.

The history is preloaded with random observations of a smooth function
(sphere) in d dimensions, then a few suggestions are timed and their median
reported, in CPU seconds of this process (the machine is shared, so wall
time would include waiting for a core). treefarm:
``optimizer.suggest(space, history, 1, rng)`` (what ``ask`` calls); Optuna: ``study.ask()`` plus the ``suggest_float`` calls
after ``study.add_trials`` of the preloaded trials.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np


def _data(d: int, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    return X, ((X - 0.3) ** 2).sum(1)


def treefarm_time(algo: str, d: int, n: int, repeats: int = 3) -> float:
    import treefarm as tf

    space = {f"x{i}": tf.Real(0.0, 1.0) for i in range(d)}
    X, y = _data(d, n)
    history = tf.History(
        complete=tuple(
            tf.Observation(tf.Config({f"x{i}": float(v) for i, v in enumerate(row)}), float(loss))
            for row, loss in zip(X, y)
        )
    )
    optimizer = tf.optimizers.make_optimizer(algo)
    times = []
    for r in range(repeats):
        start = time.process_time()
        optimizer.suggest(space, history, 1, np.random.default_rng(r))  # type: ignore[arg-type]
        times.append(time.process_time() - start)
    return float(np.median(times))


def optuna_time(sampler: str, d: int, n: int, repeats: int = 3) -> float:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    make: dict[str, Any] = {
        "tpe": lambda: optuna.samplers.TPESampler(seed=0),
        "gp": lambda: optuna.samplers.GPSampler(seed=0),
        "random": lambda: optuna.samplers.RandomSampler(seed=0),
    }
    study = optuna.create_study(sampler=make[sampler]())
    X, y = _data(d, n)
    dists = {f"x{i}": optuna.distributions.FloatDistribution(0.0, 1.0) for i in range(d)}
    study.add_trials(
        [
            optuna.trial.create_trial(
                params={f"x{i}": float(v) for i, v in enumerate(row)}, distributions=dists, value=float(v)
            )
            for row, v in zip(X, y)
        ]
    )
    times = []
    for _ in range(repeats):
        start = time.process_time()
        trial = study.ask()
        for i in range(d):
            trial.suggest_float(f"x{i}", 0.0, 1.0)
        times.append(time.process_time() - start)
        study.tell(trial, 1.0)
    return float(np.median(times))


def table(methods: list[str], dims: list[int], sizes: list[int], *, cap: float = 20.0) -> str:
    """The markdown table, one row per (method, d). GP models are timed once
    per cell (three times for the others), are not run at 10,000, and a row
    stops once a suggestion took more than ``cap`` CPU seconds (marked ">cap")."""
    lines = [
        "| method | d | " + " | ".join(f"CPU ms, n={n}" for n in sizes) + " |",
        "|---|---|" + "---|" * len(sizes),
    ]
    for m in methods:
        lib, algo = m.split("-", 1)
        timer = treefarm_time if lib == "tf" else optuna_time
        repeats = 1 if algo == "gp" else 3
        for d in dims:
            cells: list[str] = []
            seconds = 0.0
            for n in sizes:
                if algo == "gp" and n > 1000:
                    cells.append("–")
                elif seconds > cap:
                    cells.append(f">{cap:g} s")
                else:
                    text, seconds = _cell(timer, algo, d, n, repeats)
                    cells.append(text)
            lines.append(f"| {m} | {d} | " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    return "\n".join(lines)


def _cell(timer: Any, algo: str, d: int, n: int, repeats: int) -> tuple[str, float]:
    """The cell's text and the seconds it measured (0 for a failure)."""
    try:
        seconds = timer(algo, d, n, repeats)
    except ImportError as exc:
        return f"not installed ({exc.name})", 0.0
    except Exception as exc:  # a failure is a cell, not a dead table
        return type(exc).__name__, 0.0
    return f"{1000 * seconds:.1f}", seconds
