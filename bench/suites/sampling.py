"""Time to draw 10,000 configurations of the flat network space of seeds/002.

Each function returns (wall seconds, CPU seconds of this process): on a
shared machine the CPU time is the steadier figure.
"""

from __future__ import annotations

import time

import numpy as np


def treefarm_sampling(n: int = 10_000) -> tuple[float, float]:
    import treefarm as tf

    from ..harness.problems import _example

    space = _example("spaces").network
    start, cpu = time.perf_counter(), time.process_time()
    tf.sample(space, np.random.default_rng(0), n=n)
    return time.perf_counter() - start, time.process_time() - cpu


def hyperopt_sampling(n: int = 10_000) -> tuple[float, float]:
    import math

    from hyperopt import hp
    from hyperopt.pyll.stochastic import sample

    space = {
        "learning_rate": hp.loguniform("learning_rate", math.log(1e-5), math.log(1e-1)),
        "batch_size": hp.choice("batch_size", [16, 32, 64, 128, 256]),
        "layers": hp.quniform("layers", 0.5, 5.5, 1),
        "dropout": hp.uniform("dropout", 0.0, 0.5),
        "weight_decay": hp.loguniform("weight_decay", math.log(1e-6), math.log(1e-2)),
    }
    rng = np.random.default_rng(0)
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(n):
        sample(space, rng=rng)
    return time.perf_counter() - start, time.process_time() - cpu
