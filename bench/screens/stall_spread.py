"""Where a stalled run's proposals go: around one local optimum, or away from it.

Issue 18 counts a stall as 50 or more evaluations "at the same local optimum";
``bench.harness.bbob.stalled_for`` counts evaluations without a 1 % cut of the regret,
whatever the proposals did. This runs an optimizer on a BBOB function and, for
each seed, reports the stall (:func:`bench.harness.bbob.stalled_for`) and how many of the
proposals made during it lay farther than ``--radius`` (root-mean-square over the
coordinates scaled to [0, 1]) from the incumbent of their moment: a search that
explores while it stalls is not sitting at one local optimum.

Usage::

    python -m bench.screens.stall_spread --function 23 --dim 10 --algo gp --seeds 30
    python -m bench.screens.stall_spread --function 23 --dim 10 --algo "gp[explore_stalls=false]" --seeds 30

``--algo`` takes the names and ``name[key=value]`` variants of ``bench.harness.screen``.
"""

from __future__ import annotations

import argparse

import numpy as np

from ..harness.bbob import bbob_problems, instance_of_seed, name, stalled_for
from ..harness.screen import _parametrized, _variants

LOW, HIGH = -5.0, 5.0


def run(function: int, dim: int, algo: str, seed: int, budget: int) -> tuple[np.ndarray, np.ndarray]:
    """The (budget,) losses and (budget, dim) unit-scaled points of one run."""
    import treefarm as tf

    problem = bbob_problems()[name(function, instance_of_seed(seed), dim)]
    factory = _variants().get(algo) or _parametrized(algo)
    study = tf.Study.create(space=problem.treefarm_space(), algo=factory() if factory else algo, seed=seed)
    losses, points = [], []
    for _ in range(budget):
        trial = study.ask()
        values = problem.flat_value(trial.value)
        loss = problem.objective(values)
        study.tell(trial, loss)
        losses.append(loss)
        points.append([(values[f"x{i}"] - LOW) / (HIGH - LOW) for i in range(dim)])
    return np.array(losses) - (problem.optimum or 0.0), np.array(points)


def away_during_stall(regret: np.ndarray, points: np.ndarray, radius: float) -> tuple[int, int]:
    """The stall's length and how many of its proposals lay farther than ``radius``
    from the incumbent (the best point so far) when they were made."""
    stall = stalled_for(list(regret))
    if stall == 0:
        return 0, 0
    start = len(regret) - stall
    away = 0
    for t in range(start, len(regret)):
        incumbent = points[int(np.argmin(regret[:t]))]
        away += float(np.sqrt(np.mean((points[t] - incumbent) ** 2))) > radius
    return stall, away


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.screens.stall_spread")
    parser.add_argument("--function", type=int, required=True)
    parser.add_argument("--dim", type=int, required=True)
    parser.add_argument("--algo", default="gp", help="an algo, or a variant of bench.harness.screen")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--budget", type=int, default=100)
    parser.add_argument("--radius", type=float, default=0.05)
    args = parser.parse_args(argv)
    print("| seed | final regret | stalled for | of them away from the incumbent |\n|---|---|---|---|")
    for seed in range(args.seeds):
        regret, points = run(args.function, args.dim, args.algo, seed, args.budget)
        stall, away = away_during_stall(regret, points, args.radius)
        print(f"| {seed} | {regret.min():.3g} | {stall} | {away} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
