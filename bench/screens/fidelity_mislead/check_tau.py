"""How often Kendall's tau of a few random configurations, between a low fidelity and the top,
falls below the floor of 0.3 on the design problems (the checks' error rates).

    PYTHONPATH=src:. python -m bench.screens.fidelity_mislead.check_tau
"""

from __future__ import annotations

import numpy as np
from scipy.stats import kendalltau

from bench.harness.fidelity_problems import problems

PROBLEMS = ("branin", "currin", "park1", "hartmann3", "branin_mislead", "hartmann3_mislead")
DRAWS = 400


def main() -> None:
    rng = np.random.default_rng(0)
    print("| problem | configurations | step | mean tau | P(tau < 0.3) | P(tau < 0) |")
    print("|---|---|---|---|---|---|")
    for name in PROBLEMS:
        problem = problems()[name]
        for n in (5, 8):
            for step in (1, 9):
                taus = []
                for _ in range(DRAWS):
                    configs = [{p.name: rng.uniform(p.low, p.high) for p in problem.params} for _ in range(n)]
                    low = [problem.value(c, step) for c in configs]
                    top = [problem.full(c) for c in configs]
                    taus.append(kendalltau(low, top).statistic)
                t = np.array(taus)
                print(f"| {name} | {n} | {step} | {t.mean():.2f} | {(t < 0.3).mean():.2f} | {(t < 0).mean():.2f} |")


if __name__ == "__main__":
    main()
