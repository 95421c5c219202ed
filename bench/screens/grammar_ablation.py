"""Ablation of the grammar optimizer: what the model, the greed and the candidates each buy.

``python -m bench.screens.grammar_ablation [--seeds 20] [--budget 100]`` runs, in this
process, each variant of :class:`treefarm.GrammarSearch` on four
symbolic-regression targets and prints, per variant and target, the median
best loss over seeds (and the annealing optimizer as the reference):

- ``default``: the registered ``algo="grammar"``;
- ``no model``: one child per suggestion (``n_candidates=1``), so the l/g
  model never chooses: plain evolution from the good trials;
- ``uniform parents``: ``greed=1``, parents uniform over the good quarter;
- ``32 candidates``: the model chooses among 32 children instead of 8.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

import treefarm as tf
from treefarm.optimizers.base import variant

from ..harness.problems import all_problems

VARIANTS: dict[str, Any] = {
    "default": lambda: tf.GrammarSearch(),
    "no model": lambda: tf.GrammarSearch(n_candidates=1),
    "uniform parents": lambda: variant(tf.GrammarSearch, {"greed": 1.0}),
    "32 candidates": lambda: tf.GrammarSearch(n_candidates=32),
    "anneal": lambda: "anneal",
}
PROBLEMS = ("nguyen1", "nguyen5", "nguyen7", "nguyen9")


def best_loss(problem: str, algo: Any, seed: int, budget: int) -> float:
    p = all_problems()[problem]
    study = tf.Study.create(space=p.space, algo=algo, seed=seed)
    best = np.inf
    for _ in range(budget):
        trial = study.ask()
        value = p.objective(trial.value)
        study.tell(trial, value)
        best = min(best, value)
    return float(best)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.screens.grammar_ablation")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--budget", type=int, default=100)
    args = parser.parse_args(argv)
    print("| variant | " + " | ".join(PROBLEMS) + " |\n|" + "---|" * (len(PROBLEMS) + 1))
    for name, make in VARIANTS.items():
        cells = [
            np.median([best_loss(p, make(), s, args.budget) for s in range(args.seeds)]) for p in PROBLEMS
        ]
        print(f"| {name} | " + " | ".join(f"{c:.4f}" for c in cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
