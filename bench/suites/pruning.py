"""Early stopping on learning curves: treefarm's ASHA and Hyperband against no pruning
and against Optuna's SuccessiveHalving and Hyperband pruners, each over TPE.

Two problems trained step by step (one step = one unit of resource):

- ``mlp_digits``: scikit-learn's ``MLPClassifier`` on the digits data, one
  ``partial_fit`` epoch per step (minibatches of 128), validation error after each;
- ``hgb_synth``: ``HistGradientBoostingClassifier`` on a fixed synthetic
  classification set, 5 boosting iterations per step (``warm_start``);
- ``hgb_synth_val3000``: the same model on a draw of the same generator with
  the same 700 training samples' size but 3,000 validation samples instead of
  300, so one validation sample moves the error by 0.00033 instead of 0.0033
  (the errors of ``hgb_synth`` are quantised as coarsely as the gaps measured).

Each trial may take ``MAX_STEPS`` (27) steps. Runs without pruning evaluate
``N_FULL`` trials to the end; pruned runs go on until they have used
``PRUNED_SHARE`` of that many steps. Every trial's state, value and steps
used are kept, so the best error reached within any step budget can be read
back (``bench/suites/pruning_report.py``). One JSON line per (problem, method, seed);
a rerun skips the rows already in the file.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..harness.paths import RESULTS
from ..harness.spread import spread_notes
from ..harness.suite import Finals, Suite, lines

MAX_STEPS = 27
N_FULL = 30
PRUNED_SHARE = 0.5
METHODS = ("tf-none", "tf-asha", "tf-hyperband", "optuna-none", "optuna-sha", "optuna-hyperband")
EXTRA_METHODS = ("tf-asha-r3", "optuna-sha-r3")
"""Successive halving whose first rung is at 3 steps instead of 1 (``--methods`` names them)."""
PROBLEMS = ("mlp_digits", "hgb_synth", "hgb_synth_val3000")

Trainer = Callable[[dict[str, Any]], Callable[[], float]]
"""Given a configuration, a function that trains one more step and returns the validation error."""


def _split(x: np.ndarray, y: np.ndarray, test_size: float | int = 0.3) -> tuple[np.ndarray, ...]:
    from sklearn.model_selection import train_test_split

    return tuple(train_test_split(x, y, test_size=test_size, random_state=0, stratify=y))


def mlp_digits() -> tuple[dict[str, Any], Trainer]:
    """The MLP problem: its space (treefarm spelling) and trainer."""
    from sklearn.datasets import load_digits
    from sklearn.neural_network import MLPClassifier

    import treefarm as tf

    data = load_digits()
    xtr, xva, ytr, yva = _split(data.data / 16.0, data.target)
    classes = np.unique(ytr)
    space = {
        "lr": tf.Real(1e-4, 1e-1, log=True),
        "alpha": tf.Real(1e-6, 1e-1, log=True),
        "hidden": tf.Int(8, 64, log=True),
    }

    def trainer(p: dict[str, Any]) -> Callable[[], float]:
        model = MLPClassifier(
            hidden_layer_sizes=(p["hidden"],),
            learning_rate_init=p["lr"],
            alpha=p["alpha"],
            batch_size=128,
            random_state=0,
        )

        def step() -> float:
            model.partial_fit(xtr, ytr, classes=classes)
            return float(1.0 - model.score(xva, yva))

        return step

    return space, trainer


def hgb_synth(n_validation: int = 300) -> tuple[dict[str, Any], Trainer]:
    """The gradient-boosting problem: 5 iterations per step, 700 training samples."""
    from sklearn.datasets import make_classification
    from sklearn.ensemble import HistGradientBoostingClassifier

    import treefarm as tf

    n = 700 + n_validation
    x, y = make_classification(n_samples=n, n_features=20, n_informative=8, flip_y=0.05, random_state=0)
    xtr, xva, ytr, yva = _split(x, y, 0.3 if n_validation == 300 else n_validation)
    space = {
        "lr": tf.Real(1e-3, 0.5, log=True),
        "leaves": tf.Int(4, 32, log=True),
        "min_leaf": tf.Int(2, 100, log=True),
        "l2": tf.Real(1e-6, 10.0, log=True),
    }

    def trainer(p: dict[str, Any]) -> Callable[[], float]:
        model = HistGradientBoostingClassifier(
            learning_rate=p["lr"],
            max_leaf_nodes=p["leaves"],
            min_samples_leaf=p["min_leaf"],
            l2_regularization=p["l2"],
            max_iter=0,
            warm_start=True,
            early_stopping=False,
            random_state=0,
        )

        def step() -> float:
            model.set_params(max_iter=model.max_iter + 5)
            model.fit(xtr, ytr)
            return float(1.0 - model.score(xva, yva))

        return step

    return space, trainer


def run_treefarm(method: str, space: dict[str, Any], trainer: Trainer, seed: int) -> list[dict[str, Any]]:
    import treefarm as tf

    pruner: tf.Pruner | None = {
        "tf-none": None,
        "tf-asha": tf.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3, max_resource=MAX_STEPS),
        "tf-asha-r3": tf.SuccessiveHalvingPruner(min_resource=3, reduction_factor=3, max_resource=MAX_STEPS),
        "tf-hyperband": tf.HyperbandPruner(min_resource=1, max_resource=MAX_STEPS, reduction_factor=3),
    }[method]
    budget = _budget(pruner is not None)
    used = [0]

    def objective(p: dict[str, Any], trial: tf.Trial) -> float:
        step = trainer(p)
        for epoch in range(1, MAX_STEPS + 1):
            error = step()
            used[0] += 1
            trial.report(epoch, error)
            if trial.should_prune():
                raise tf.TrialPruned()
        return error

    def stop(study: tf.Study, _record: tf.TrialRecord) -> None:
        if used[0] >= budget:
            study.stop()

    study = tf.Study.create(space=space, algo="tpe", seed=seed, pruner=pruner)
    study.optimize(objective, callbacks=[stop])
    return [
        {"state": t.state.value, "value": t.value, "steps": len(t.intermediate), "params": dict(t.params)}
        for t in study.trials
        if t.state.is_finished
    ]


def _optuna_params(trial: Any, space: dict[str, Any]) -> dict[str, Any]:
    import treefarm as tf

    out: dict[str, Any] = {}
    for name, node in space.items():
        if isinstance(node, tf.Int):
            out[name] = trial.suggest_int(name, node.low, node.high, log=node.log)
        else:
            out[name] = trial.suggest_float(name, node.low, node.high, log=node.log)
    return out


def run_optuna(method: str, space: dict[str, Any], trainer: Trainer, seed: int) -> list[dict[str, Any]]:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    pruner = {
        "optuna-none": optuna.pruners.NopPruner(),
        "optuna-sha": optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3),
        "optuna-sha-r3": optuna.pruners.SuccessiveHalvingPruner(min_resource=3, reduction_factor=3),
        "optuna-hyperband": optuna.pruners.HyperbandPruner(
            min_resource=1, max_resource=MAX_STEPS, reduction_factor=3
        ),
    }[method]
    budget = _budget(method != "optuna-none")
    used = [0]

    def objective(trial: Any) -> float:
        step = trainer(_optuna_params(trial, space))
        for epoch in range(1, MAX_STEPS + 1):
            error = step()
            used[0] += 1
            trial.report(error, epoch)
            if trial.should_prune():
                raise optuna.TrialPruned()
        return error

    def stop(study: Any, _trial: Any) -> None:
        if used[0] >= budget:
            study.stop()

    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed), pruner=pruner)
    study.optimize(objective, callbacks=[stop])
    return [
        {
            "state": "complete" if t.state.name == "COMPLETE" else t.state.name.lower(),
            "value": t.value if t.value is not None else t.intermediate_values.get(t.last_step or 0),
            "steps": len(t.intermediate_values),
            "params": t.params,
        }
        for t in study.trials
    ]


def _budget(pruned: bool) -> int:
    """The steps a run may use: every full trial, or the pruned share of that."""
    full = N_FULL * MAX_STEPS
    return int(PRUNED_SHARE * full) if pruned else full


def run_one(problem: str, method: str, seed: int) -> dict[str, Any]:
    space, trainer = {
        "mlp_digits": mlp_digits,
        "hgb_synth": hgb_synth,
        "hgb_synth_val3000": lambda: hgb_synth(3000),
    }[problem]()
    runner = run_treefarm if method.startswith("tf-") else run_optuna
    start = time.perf_counter()
    trials = runner(method, space, trainer, seed)
    return {
        "problem": problem,
        "method": method,
        "seed": seed,
        "max_steps": MAX_STEPS,
        "budget": _budget(not method.endswith("-none")),
        "seconds": time.perf_counter() - start,
        "trials": trials,
    }


def finals() -> Finals:
    """Per problem and method, each seed's best validation error within 40 % of the steps
    the no-pruning runs use (their median), the budget the early-stopping criterion sets."""
    import math

    from .pruning_report import SHARE, best_within

    runs: dict[tuple[str, str], dict[int, list[dict[str, Any]]]] = {}
    for f in FILES:
        for r in lines(RESULTS / f):
            runs.setdefault((r["problem"], r["method"]), {})[int(r["seed"])] = r["trials"]
    out: Finals = {}
    for (problem, method), seeds in runs.items():
        full = [sum(t["steps"] for t in trials) for (p, m), by in runs.items() if p == problem
                and m.endswith("-none") for trials in by.values()]
        budget = SHARE * float(np.median(full))
        out[(problem, method)] = {s: best_within(trials, budget) for s, trials in seeds.items()
                                  if math.isfinite(best_within(trials, budget))}
    return {k: v for k, v in out.items() if v}


FILES = ("pruning.jsonl", "pruning_hgb.jsonl", "pruning_hgb_b.jsonl", "pruning_hgb_more.jsonl")
SUITES = (
    Suite(
        "pruning", "Early stopping: ASHA and Hyperband",
        "treefarm's ASHA and Hyperband against no pruning and Optuna's successive halving and Hyperband, "
        "with TPE proposing in every run: an MLP on digits trained epoch by epoch, and boosting on a "
        "synthetic task, stage by stage.",
        "best validation error within 40 % of the steps a run without pruning uses", "tf-asha",
        ("tf-asha", "tf-hyperband", "tf-none", "optuna-sha", "optuna-hyperband", "optuna-none"), FILES,
        ("python -m bench.suites.pruning --seeds 10 --problems mlp_digits --out bench/results/pruning.jsonl",
         "python -m bench.suites.pruning --seeds 10 --problems hgb_synth --out bench/results/pruning_hgb.jsonl",
         "python -m bench.suites.pruning --seed-list 10,11,12,13,14,15,16,17,18,19 --problems hgb_synth "
         "--out bench/results/pruning_hgb_more.jsonl"),
        finals, notes=spread_notes("tf-asha", ("tf-asha", "tf-hyperband", "tf-none", "optuna-sha", "optuna-hyperband", "optuna-none"), full=False)),
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.suites.pruning")
    parser.add_argument("--out", type=Path, default=Path("bench/results/pruning.jsonl"))
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--seed-list", default="", help="comma-separated seeds, in order (overrides --seeds)")
    parser.add_argument("--problems", default=",".join(PROBLEMS))
    parser.add_argument("--methods", default=",".join(METHODS))
    args = parser.parse_args(argv)
    done = set()
    if args.out.exists():
        for line in args.out.read_text().splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            done.add((row["problem"], row["method"], row["seed"]))
    for problem in args.problems.split(","):
        seeds = [int(s) for s in args.seed_list.split(",")] if args.seed_list else range(args.seeds)
        for seed in seeds:
            for method in args.methods.split(","):
                if (problem, method, seed) in done:
                    continue
                row = run_one(problem, method, seed)
                with args.out.open("a") as fh:
                    fh.write(json.dumps(row) + "\n")
                print(problem, method, seed, f"{row['seconds']:.1f}s", flush=True)


if __name__ == "__main__":
    main()
