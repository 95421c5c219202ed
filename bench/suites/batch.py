"""Batches: rounds of suggestions asked together, evaluated together, told together.

The NeurIPS 2020 black-box optimization challenge (Turner et al., "Bayesian
Optimization is Superior to Random Search for Machine Learning Hyperparameter
Tuning: Analysis of the Black-Box Optimization Challenge 2020", PMLR 2021) ran
16 rounds of 8 suggestions; the same 128 evaluations in 8 rounds of 16 make
the second suite, where each round knows less. Each method here asks for a
whole round before any of its results is told:

- ``tf-auto``: treefarm's ``auto``, ``study.ask()`` once per suggestion of the
  round (the trials asked and not yet told are pending: the optimizer sees them);
- ``optuna-tpe-cl``: Optuna's ``TPESampler(constant_liar=True)``, one
  ``study.ask()`` per suggestion (the running trials are given the worst value seen);
- ``ngopt``: Nevergrad's NGOpt told ``num_workers`` = the batch size;
- ``ax``: Ax's ``Client``, ``get_next_trials(max_trials=batch)`` (its joint batch
  acquisition), in Ax's interpreter (:mod:`bench.harness.nevergrad_ax`);
- ``tf-random``: random search.

Rows are the runner's (``problem``, ``method``, ``seed``, ``budget``, ``status``,
``losses`` in evaluation order, ``batch``), one per run, resumable:

    python -m bench.suites.batch run --seeds 10 --out bench/results/batch_16x8.jsonl
    python -m bench.suites.batch run --rounds 8 --batch 16 --seeds 10 --out bench/results/batch_8x16.jsonl

Ackley-5's optimum is the box's centre and Levy-10's is 5 % of the range from it, so a
method that starts at the centre (NGOpt does) starts at or beside the optimum; both are
also run with the optimum moved to a fixed random point (``ackley5_shifted``,
``levy10_shifted``, :data:`bench.harness.problems.SHIFTED`), rows of their own.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..harness.methods import Stopwatch, _optuna_params
from ..harness.paths import RESULTS
from ..harness.problems import Problem, all_problems
from ..harness.runner import head_commit, key_of, read_rows
from ..harness.spread import spread_notes
from ..harness.suite import Finals, Suite, complete, merge, runner_finals

PROBLEMS = ("branin", "hartmann6", "ackley5", "rosenbrock4", "levy10")
ROWS = "batch_16x8.jsonl"
#: The same budget in 8 rounds of 16.
ROWS_8X16 = "batch_8x16.jsonl"
#: Ackley-5 and Levy-10 with their optima off the centre, in each shape.
SHIFTED_PROBLEMS = ("ackley5_shifted", "levy10_shifted")
ROWS_SHIFTED = "batch_16x8_shifted.jsonl"
ROWS_8X16_SHIFTED = "batch_8x16_shifted.jsonl"
#: Row methods -> the report's columns.
COLUMNS = {"tf-auto": "auto", "optuna-tpe-cl": "optuna-tpe-cl", "ngopt": "ngopt", "ax": "ax", "tf-random": "random"}
Result = dict[str, Any]


def _treefarm(algo: str) -> Callable[[Problem, int, int, int], Result]:
    def run(problem: Problem, seed: int, rounds: int, batch: int) -> Result:
        import treefarm as tf

        study = tf.Study.create(space=problem.treefarm_space(), algo=algo, seed=seed)
        losses, clock = [], Stopwatch()
        for _ in range(rounds):
            clock.start()
            trials = [study.ask() for _ in range(batch)]
            clock.lap()
            for trial in trials:
                losses.append(float(problem.objective(problem.flat_value(trial.value))))
                study.tell(trial, losses[-1])
        return _per_suggestion(clock.result(losses, tf.__version__), batch)

    return run


def _optuna_cl(problem: Problem, seed: int, rounds: int, batch: int) -> Result:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed, constant_liar=True))
    losses, clock = [], Stopwatch()
    for _ in range(rounds):
        clock.start()
        trials = [study.ask() for _ in range(batch)]
        values = [_optuna_params(problem, t) for t in trials]
        clock.lap()
        for trial, config in zip(trials, values):
            losses.append(float(problem.objective(config)))
            study.tell(trial, losses[-1])
    return _per_suggestion(clock.result(losses, optuna.__version__), batch)


def _ngopt(problem: Problem, seed: int, rounds: int, batch: int) -> Result:
    import nevergrad as ng

    from ..harness.nevergrad_ax import nevergrad_space, plain

    optimizer = ng.optimizers.NGOpt(parametrization=nevergrad_space(problem.params, seed),
                                    budget=rounds * batch, num_workers=batch)
    losses, clock = [], Stopwatch()
    for _ in range(rounds):
        clock.start()
        candidates = [optimizer.ask() for _ in range(batch)]
        clock.lap()
        scored = [float(problem.objective(plain(c.value))) for c in candidates]
        losses += scored
        clock.start()
        for candidate, loss in zip(candidates, scored):
            optimizer.tell(candidate, loss)
        clock.pause()
    return _per_suggestion(clock.result(losses, ng.__version__), batch)


def _ax(problem: Problem, seed: int, rounds: int, batch: int) -> Result:
    from ..harness.nevergrad_ax import run_ax

    return run_ax(problem, seed, rounds * batch, batch)


def _per_suggestion(result: Result, batch: int) -> Result:
    """A round's seconds spread evenly over its suggestions."""
    for key in ("suggest_times", "suggest_cpu"):
        result[key] = [t / batch for t in result[key] for _ in range(batch)]
    return result


METHODS: dict[str, Callable[[Problem, int, int, int], Result]] = {
    "tf-auto": _treefarm("auto"), "optuna-tpe-cl": _optuna_cl, "ngopt": _ngopt, "ax": _ax,
    "tf-random": _treefarm("random"),
}


def run_all(problems: list[str], methods: list[str], seeds: int, rounds: int, batch: int, out: Path) -> None:
    """The (problem, method, seed) runs ``out`` lacks, seed by seed, appended as they finish."""
    done = {key_of(r) for r in read_rows(out)}
    catalogue = all_problems()
    for seed in range(seeds):
        for problem in problems:
            for method in methods:
                key = (problem, method, seed, rounds * batch)
                if key in done:
                    continue
                result = METHODS[method](catalogue[problem], seed, rounds, batch)
                row = {"problem": problem, "method": method, "seed": seed, "budget": rounds * batch,
                       "status": "ok", "batch": batch, **result, "commit": head_commit()}
                with out.open("a") as fh:
                    fh.write(json.dumps(row) + "\n")
                print(f"{problem:12s} {method:14s} seed={seed} best={min(result['losses']):.6g}", flush=True)


def finals() -> Finals:
    return merge(runner_finals(ROWS, COLUMNS), runner_finals(ROWS_SHIFTED, COLUMNS))


def finals_8x16() -> Finals:
    """The 8-by-16 rows, each cell once all 10 seeds have run (a run under way shows nothing)."""
    return complete(merge(runner_finals(ROWS_8X16, COLUMNS), runner_finals(ROWS_8X16_SHIFTED, COLUMNS)), range(10))


#: The methods of the 8-by-16 rows on every problem but Ax (1-4 minutes a run, its own commands).
RAN_8X16 = ("tf-auto", "optuna-tpe-cl", "ngopt", "tf-random")


SUITES = (
    Suite(
        "batch", "Batches: 16 rounds of 8",
        "Each method asks a whole round of 8 suggestions before it is told any of their results, as in the "
        "NeurIPS 2020 black-box challenge: treefarm's `auto` (pending trials), Optuna's TPE with its "
        "constant liar, NGOpt with 8 workers, Ax's batch acquisition, random search; five synthetic "
        "functions with known optima, and Ackley-5 and Levy-10 again with their optima moved off the box's "
        "centre (`_shifted`: at the centre, or 5 % of the range from it, a method that starts at the centre "
        "starts at the optimum). `auto`'s rows of the first five, made at older commits, were run again at "
        "a7e0851: the same 128 losses in each of the 50 runs (`batch_16x8_auto_today.jsonl`).",
        "simple regret after 16 rounds of 8 (128 evaluations)", "auto", tuple(COLUMNS.values()), (ROWS, ROWS_SHIFTED),
        (f"python -m bench.suites.batch run --methods {','.join(COLUMNS)} --seeds 10 --out bench/results/{ROWS}",
         f"python -m bench.suites.batch run --problems {','.join(SHIFTED_PROBLEMS)} --methods {','.join(RAN_8X16)} "
         f"--seeds 10 --out bench/results/{ROWS_SHIFTED}"),
        finals, notes=spread_notes("auto", tuple(COLUMNS.values()))),
    Suite(
        "batch-8x16", "Batches: 8 rounds of 16",
        "The `batch` suite's methods and functions, the two shifted ones too, in rounds of 16 (NGOpt with 16 workers; Ax's batch of "
        "16). Ax's first suggestion is the box's centre on every seed (Ackley-5's optimum; Levy-10's regret there is "
        "1.44, where its runs end but one), as NGOpt's Cobyla starts there: on those two the shifted pair is the comparison.",
        "simple regret after 8 rounds of 16 (128 evaluations)", "auto", tuple(COLUMNS.values()),
        (ROWS_8X16, ROWS_8X16_SHIFTED),
        (f"python -m bench.suites.batch run --rounds 8 --batch 16 --methods {','.join(RAN_8X16)} --seeds 10 "
         f"--out bench/results/{ROWS_8X16}",
         f"python -m bench.suites.batch run --rounds 8 --batch 16 --problems {','.join(PROBLEMS)} --methods ax --seeds 10 "
         f"--out bench/results/{ROWS_8X16}",
         f"python -m bench.suites.batch run --rounds 8 --batch 16 --problems {','.join(SHIFTED_PROBLEMS)} "
         f"--methods {','.join(RAN_8X16)} --seeds 10 --out bench/results/{ROWS_8X16_SHIFTED}",
         f"python -m bench.suites.batch run --rounds 8 --batch 16 --problems {','.join(SHIFTED_PROBLEMS)} --methods ax "
         f"--seeds 10 --out bench/results/{ROWS_8X16_SHIFTED}"),
        finals_8x16, notes=spread_notes("auto", tuple(COLUMNS.values()))),
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.suites.batch")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("--problems", default=",".join(PROBLEMS))
    run.add_argument("--methods", default=",".join(COLUMNS))
    run.add_argument("--seeds", type=int, default=10)
    run.add_argument("--rounds", type=int, default=16)
    run.add_argument("--batch", type=int, default=8)
    run.add_argument("--out", type=Path, default=RESULTS / ROWS)
    args = parser.parse_args(argv)
    run_all(args.problems.split(","), args.methods.split(","), args.seeds, args.rounds, args.batch, args.out)


if __name__ == "__main__":
    main()
