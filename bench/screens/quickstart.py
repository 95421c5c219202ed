"""The README's Quickstart over many seeds: how often each optimizer ends no better than SGD's branch.

The Quickstart's optimum (0.080) is on the ``adam`` option of its join; the
best on ``sgd`` is 0.100. One seed's run says little (and its last digits
depend on the processor), so this prints, per optimizer, the best loss after
60 and after ``--trials`` trials for seeds ``0 .. --seeds - 1``, their
medians, and how many runs ended no better than SGD's branch can be (best >= 0.1).

Usage::

    python -m bench.screens.quickstart --seeds 10 --trials 100 --algos auto,gp,tpe
"""

from __future__ import annotations

import argparse
import runpy

import numpy as np

from ..harness.paths import ROOT

QUICKSTART = ROOT / "examples" / "quickstart.py"
#: The best loss on SGD's branch: a run at or above it did no better than that branch allows.
SGD_FLOOR = 0.1


def best_curves(algo: str, seeds: int, trials: int) -> np.ndarray:
    """(seeds, trials) best-so-far losses of ``algo`` on the Quickstart."""
    import treefarm as tf

    example = runpy.run_path(str(QUICKSTART))
    curves = []
    for seed in range(seeds):
        study = tf.Study.create(space=example["space"], algo=algo, seed=seed)
        study.optimize(example["objective"], trials)
        curves.append(np.minimum.accumulate([t.value for t in study.trials]))
    return np.array(curves)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.screens.quickstart")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--algos", default="auto,gp,tpe")
    args = parser.parse_args(argv)
    print("| algo | trials | best per seed | median | runs >= 0.1 (SGD's best) |\n|---|---|---|---|---|")
    for algo in args.algos.split(","):
        curves = best_curves(algo, args.seeds, args.trials)
        for t in sorted({min(60, args.trials), args.trials}):
            best = curves[:, t - 1]
            print(f"| {algo} | {t} | {' '.join(f'{b:.4f}' for b in best)} | {np.median(best):.4f} "
                  f"| {int(np.sum(best >= SGD_FLOOR))} of {len(best)} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
