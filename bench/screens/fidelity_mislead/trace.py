"""Where one run of ``auto`` with a declared fidelity spends its cost: for each seed, the
evaluations made, the cost spent when the last evaluation below the top rung ended (the
switch to the top rung), the top-rung evaluations made before it, the final regret and the
regrets of the first top-rung evaluations.

    PYTHONPATH=src:. python -m bench.screens.fidelity_mislead.trace hartmann3_mislead 0 1 2
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import treefarm as tf
from bench.harness.fidelity_methods import BudgetSpentError, Ledger
from bench.harness.fidelity_problems import MAX_STEPS, problems
from bench.harness.problems import params_to_space


def trace(name: str, seed: int, max_cost: float = 30.0) -> str:
    problem = problems()[name]
    ledger = Ledger(problem, max_cost)
    fidelity = tf.Fidelity(1, MAX_STEPS, integer=True, reduction_factor=3, cost=problem.cost)
    study = tf.Study.create(space=params_to_space(problem.params), algo="auto", seed=seed, fidelity=fidelity)
    log: list[tuple[float, float, float]] = []  # (fidelity, cost spent, regret at full fidelity)

    def objective(config: dict[str, Any], trial: tf.Trial) -> float:
        try:
            value = ledger.evaluate(config, trial.fidelity)
        except BudgetSpentError:
            raise tf.TrialPruned() from None
        log.append((float(trial.fidelity or MAX_STEPS), ledger.spent, problem.full(config) - problem.optimum))
        return value

    def stop(study: tf.Study, _record: Any) -> None:
        if ledger.done:
            study.stop()

    study.optimize(objective, callbacks=[stop], max_cost=max_cost, progress=False)
    low = [i for i, (f, _, _) in enumerate(log) if f < MAX_STEPS]
    last = low[-1] if low else -1
    before = sum(f == MAX_STEPS for f, _, _ in log[:last])
    tops = [r for f, _, r in log if f == MAX_STEPS]
    return (f"seed {seed}: {len(log)} evaluations, last below the top at cost {log[last][1]:.2f} "
            f"after {before} at the top; regret {min(tops):.2g}; first at the top {[round(r, 3) for r in tops[:8]]}")


if __name__ == "__main__":
    logging.disable(logging.INFO)
    for seed in sys.argv[2:]:
        print(trace(sys.argv[1], int(seed)), flush=True)
