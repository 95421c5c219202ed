"""CPU seconds of one ``GP(objectives="ehvi")`` suggestion on a long two-objective history.

The history: ``n`` uniform random points of a 6-d cube scored by ZDT1 (Zitzler,
Deb & Thiele 2000), every trial complete, ranked by the Pareto order as a
study ranks them. "Fresh" is a new optimizer's first suggestion (a new worker,
a resumed study: it fits the hyperparameters), "running" the same object's next
one after one more trial. One BLAS thread (``OMP_NUM_THREADS=1``).

    OMP_NUM_THREADS=1 python -m bench.screens.ehvi_cost --trials 1001,3000,10000
    OMP_NUM_THREADS=1 python -m bench.screens.ehvi_cost --trials 3000 --unbounded
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np


def history(n: int, dim: int = 6) -> tuple[dict[str, object], Any]:
    import treefarm as tf
    from treefarm.pareto import ranking_losses

    space = {f"x{i}": tf.Real(0.0, 1.0) for i in range(dim)}
    configs = tf.sample(space, np.random.default_rng(0), n=n)  # type: ignore[arg-type]
    X = np.array([[c[f"x{i}"] for i in range(dim)] for c in configs])
    g = 1 + 9 * X[:, 1:].mean(axis=1)
    Y = np.stack([X[:, 0], g * (1 - np.sqrt(X[:, 0] / g))], axis=1)
    ranks = ranking_losses(Y)
    observations = tuple(
        tf.Observation(c, float(r), losses=tuple(map(float, y))) for c, r, y in zip(configs, ranks, Y)
    )
    return space, tf.History(complete=observations)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.screens.ehvi_cost")
    parser.add_argument("--trials", default="1001,3000,10000")
    parser.add_argument("--unbounded", action="store_true", help="GP(full_until=None): every trial")
    args = parser.parse_args(argv)
    from treefarm.optimizers.gp import GP

    for n in map(int, args.trials.split(",")):
        space, h = history(n + 1)
        head = type(h)(complete=h.complete[:n])
        gp = GP(objectives="ehvi", full_until=None) if args.unbounded else GP(objectives="ehvi")
        times = []
        for seed, seen in ((1, head), (2, h)):
            start = time.process_time()
            gp.suggest(space, seen, 1, np.random.default_rng(seed))
            times.append(time.process_time() - start)
        print(f"{n} trials{' (unbounded)' if args.unbounded else ''}: fresh {times[0]:.2f} s, running {times[1]:.2f} s CPU")


if __name__ == "__main__":
    main()
