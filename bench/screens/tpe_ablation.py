"""Which of TPE's settings close the gap to Optuna's default TPESampler?

The variants start from the seed's settings, ``TPE.hyperopt()`` (seeds/000:
gamma 0.25 of the trials in l(x), 20 random start-up trials, 24 candidates,
univariate densities; ``TPE()``'s defaults when this was run) and choose
among 24 whole configurations drawn from l. This runs variants that change
one thing at a time on the synthetic set, in this
process (the optimizer's time is not measured here), and prints the final
median regret per problem beside the peers' medians from a results file, so
a change of defaults can be argued from figures:

    python -m bench.screens.tpe_ablation bench/results/main.jsonl [--seeds 30]

"per-address choice" is Hyperopt's and Optuna's univariate proposal, each
address keeping its own best of 24 draws (treefarm's before it chose whole
configurations). "Optuna 5's settings" is every setting of Optuna 5's default
TPESampler at once: whether it matches Optuna's own runs says how far the
medians of two equal algorithms drift apart at this many seeds. The last
column counts the problems where a variant's final regret differs from
Optuna's default beyond the seeds' noise (the 95% bootstrap interval of the
difference of medians excludes 0), better and worse. Rows go to
``bench/results/tpe_ablation.jsonl`` with the commit that made them
(resumable: a variant, problem and seed already there from this commit is
not rerun; rows of other commits are ignored).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..harness.methods import run_treefarm
from ..harness.paths import RESULTS
from ..harness.problems import SYNTHETIC
from ..harness.report import _curves, median_difference_interval, select
from ..harness.runner import head_commit, read_rows

OUT = RESULTS / "tpe_ablation.jsonl"
PEERS = ("optuna-tpe", "optuna-tpe-uni", "hyperopt-tpe")


def optuna_split(n: int) -> int:
    """Optuna's ``default_gamma``: the best ``min(ceil(0.1 n), 25)`` trials make l(x)."""
    return min(math.ceil(0.1 * n), 25)


def per_address_tpe(**options: Any) -> Any:
    """The seed's TPE (with ``options``) whose every address keeps its own best draw (the per-address mode of l/g)."""
    import dataclasses

    import treefarm as tf
    from treefarm.optimizers.tpe.proposal import Proposal
    from treefarm.space import walk

    class PerAddressProposal(Proposal):
        def __call__(self) -> Any:
            def decide(address: str, node: Any, allowed: tuple[int, ...]) -> Any:
                draws = self._draws_at(address, node, allowed)
                return draws.values[int(np.argmax(draws.log_ratios[0]))]

            return walk(self.root, decide)[0]

    class PerAddressTPE(tf.TPE):
        def _template(self, root: Any, complete: Any, rng: np.random.Generator) -> Any:
            template = super()._template(root, complete, rng)
            return PerAddressProposal(**{f.name: getattr(template, f.name) for f in dataclasses.fields(template)})

    return hyperopt(PerAddressTPE, **options)


def hyperopt(cls: Any = None, **settings: Any) -> Any:
    """``TPE.hyperopt()`` (of ``cls``, a subclass of TPE) with ``settings`` changed, constructor
    options and tuned settings alike (:attr:`treefarm.optimizers.base.Optimizer.tuned`)."""
    import treefarm as tf
    from treefarm.optimizers.base import variant
    from treefarm.optimizers.tpe.sampler import HYPEROPT_OPTIONS, HYPEROPT_TUNED

    cls = cls or tf.TPE
    tuned = HYPEROPT_TUNED | {key: value for key, value in settings.items() if key in cls.tuned}
    options = HYPEROPT_OPTIONS | {key: value for key, value in settings.items() if key not in cls.tuned}
    return variant(cls, tuned, **options)


def variants() -> dict[str, Callable[[], Any]]:
    import treefarm as tf

    return {
        "seed defaults": lambda: tf.TPE.hyperopt(),
        "per-address choice": per_address_tpe,
        "linear forgetting (25)": lambda: hyperopt(forget=25),
        "10 start-up": lambda: tf.TPE.hyperopt(n_startup=10),
        "multivariate": lambda: tf.TPE.hyperopt(multivariate=True),
        "Optuna's split": lambda: tf.TPE.hyperopt(gamma=optuna_split),
        "multivariate, Optuna's split": lambda: tf.TPE.hyperopt(gamma=optuna_split, multivariate=True),
        "multivariate, 10 start-up": lambda: tf.TPE.hyperopt(multivariate=True, n_startup=10),
        "multivariate, Optuna's split, 10 start-up": lambda: tf.TPE.hyperopt(
            gamma=optuna_split, multivariate=True, n_startup=10
        ),
        "bounds not neighbours": lambda: hyperopt(bounds_as_neighbours=False),
        "Optuna 5's settings": lambda: hyperopt(
            multivariate=True, gamma=optuna_split, n_startup=10, forget=25, bounds_as_neighbours=False
        ),
    }


def run(seeds: int, budget: int = 100) -> list[dict[str, Any]]:
    """The rows of this commit for ``seeds`` seeds, running the missing ones."""
    commit = head_commit()
    old = [json.loads(line) for line in OUT.read_text().splitlines()] if OUT.exists() else []
    rows = [r for r in old if r.get("commit") == commit and r["seed"] < seeds]
    done = {(r["variant"], r["problem"], r["seed"]) for r in rows}
    with OUT.open("a") as fh:
        for name, make in variants().items():
            for p, problem in SYNTHETIC.items():
                for seed in range(seeds):
                    if (name, p, seed) in done:
                        continue
                    best = min(run_treefarm(make(), problem, seed, budget)["losses"])
                    row = {
                        "variant": name,
                        "problem": p,
                        "seed": seed,
                        "regret": best - problem.optimum,
                        "commit": commit,
                    }
                    fh.write(json.dumps(row) + "\n")
                    fh.flush()
                    rows.append(row)
    return rows


def table(rows: list[dict[str, Any]], peer_rows: list[dict[str, Any]]) -> str:
    problems = list(SYNTHETIC)
    curves = _curves(peer_rows)
    head = (
        "| variant | " + " | ".join(problems) + " | no worse than optuna-tpe | beyond noise: better / worse |"
    )
    lines = [head, "|---|" + "---|" * (len(problems) + 2)]
    optuna = {
        p: curves[(p, "optuna-tpe")][:, -1] - SYNTHETIC[p].optimum
        for p in problems
        if (p, "optuna-tpe") in curves
    }
    reference = {p: float(np.median(regrets)) for p, regrets in optuna.items()}
    rng = np.random.default_rng(0)
    for peer in PEERS:
        cells = [
            f"{np.median(curves[(p, peer)][:, -1]) - SYNTHETIC[p].optimum:.3g}"
            if (p, peer) in curves
            else "·"
            for p in problems
        ]
        lines.append(f"| {peer} (peer) | " + " | ".join(cells) + " | | |")
    for name in variants():
        regrets = {
            p: np.array([r["regret"] for r in rows if r["variant"] == name and r["problem"] == p])
            for p in problems
        }
        meds = {p: float(np.median(regrets[p])) for p in problems}
        wins = sum(meds[p] <= reference[p] for p in reference)
        intervals = [median_difference_interval(regrets[p], optuna[p], rng) for p in optuna]
        better, worse = sum(hi < 0 for _, hi in intervals), sum(lo > 0 for lo, _ in intervals)
        lines.append(
            f"| {name} | "
            + " | ".join(f"{meds[p]:.3g}" for p in problems)
            + f" | {wins}/{len(reference)} | {better} / {worse} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="a benchmark results file with the peers' rows")
    parser.add_argument("--seeds", type=int, default=30)
    args = parser.parse_args()
    rows = run(args.seeds)
    print(table(rows, select(read_rows(args.results), None)))


if __name__ == "__main__":
    main()
