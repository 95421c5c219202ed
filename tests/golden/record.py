"""Golden suggestions: what every built-in optimizer proposes for fixed seeds.

A refactoring of the optimizers, the model-based core or the study must leave
these to the bit; a change in behaviour is made on purpose, with the file
rewritten by ``python -m tests.golden.record`` and the reason in the commit.

The policy for a float difference: the file records the environment it was
written in (NumPy, SciPy, the CPU's SIMD level NumPy dispatches to, the
machine). In that environment every suggestion must match to the bit. In another
one, NumPy's vectorized ``exp``/``log`` may round the last bit otherwise and an
acquisition's optimum then moves by about 1e-7; there the runs are compared
suggestion by suggestion, every decision exactly and every float to a relative
1e-5, up to the first decision that differs (from there the histories differ),
and at least the first ``AGREE_AT_LEAST`` suggestions of each run must agree.

Two views are recorded for each optimizer, space and batch size (1 and 4):
the optimizer alone (``suggest`` over a growing history of a deterministic
loss) and a study (ask/tell in memory, so the study's seeding, history and
bookkeeping are covered too).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

import treefarm as tf
from treefarm.optimizers import History, Observation
from treefarm.optimizers.registry import make_optimizer
from treefarm.testing.optimizer_suite import SPACES as SUITE_SPACES
from treefarm.testing.optimizer_suite import _loss

FILE = Path(__file__).with_name("suggestions.json")
#: The conformance suite's spaces, and two that take routes of ``auto`` of their own: reals only
#: (the GP alone, where its tuned trust region would act) and yes/no decisions only (the GP with
#: longer scales per choice, no TPE turns).
SPACES = {
    **SUITE_SPACES,
    "reals": lambda: {"x": tf.Real(-5, 5), "y": tf.Real(-5, 5), "lr": tf.Real(1e-4, 1.0, log=True)},
    "yes_no": lambda: {f"use_{i}": tf.Choice("on", "off") for i in range(6)},
}
ALGOS = ("random", "anneal", "tpe", "gp", "auto", "grammar", "cmaes", "qmc", "grid", "nsga2")
N_TRIALS = 30
BATCHES = (1, 4)
AGREE_AT_LEAST = 5
ENVIRONMENT_KEY = "_environment"


def environment() -> dict[str, Any]:
    """What decides the last bit of a suggestion besides the code: the numeric
    libraries' versions, the SIMD level NumPy dispatches to, and the machine."""
    import platform

    import scipy

    simd = np.show_config(mode="dicts")["SIMD Extensions"]  # type: ignore[index]
    return {
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "simd": sorted(simd.get("found", [])),
        "machine": platform.machine(),
    }


def _plain(config: tf.Config) -> dict[str, Any]:
    return dict(sorted(config.items()))


def optimizer_run(algo: str, space_name: str, batch: int) -> list[Any]:
    """The optimizer's own suggestions over a history it grows batch by batch."""
    space = SPACES[space_name]()
    optimizer = make_optimizer(algo)
    complete: list[Observation] = []
    out: list[Any] = []
    step = 0
    while len(complete) < N_TRIALS:
        rng = np.random.default_rng(1000 + step)
        try:
            configs = optimizer.suggest(space, History(complete=tuple(complete)), batch, rng)
        except tf.TreefarmError as error:
            return [f"{type(error).__name__}: {error}"]
        for config in configs:
            complete.append(Observation(config, _loss(config)))
            out.append(_plain(config))
        step += 1
    return out


def study_run(algo: str, space_name: str, batch: int) -> list[Any]:
    """A study's suggestions with ask/tell in memory, ``batch`` trials pending at a time."""
    space = SPACES[space_name]()
    try:
        study = tf.Study.create(space=space, algo=algo, seed=7)
        out: list[Any] = []
        while len(out) < N_TRIALS:
            trials = [study.ask() for _ in range(batch)]
            for trial in trials:
                out.append(_plain(trial.config))
                study.tell(trial.number, _loss(trial.config))
    except tf.TreefarmError as error:
        return [f"{type(error).__name__}: {error}"]
    return out


def record() -> dict[str, Any]:
    result: dict[str, Any] = {ENVIRONMENT_KEY: environment()}
    for algo in ALGOS:
        for space_name in SPACES:
            for batch in BATCHES:
                key = f"{algo}/{space_name}/{batch}"
                result[key] = {
                    "optimizer": optimizer_run(algo, space_name, batch),
                    "study": study_run(algo, space_name, batch),
                }
                print(key, file=sys.stderr, flush=True)
    return result


if __name__ == "__main__":
    FILE.write_text(json.dumps(record(), indent=0, sort_keys=True) + "\n")
