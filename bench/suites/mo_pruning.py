"""MO-ASHA: the steps a study with two objectives saves under successive halving,
and the hypervolume it keeps.

Objective: a training run whose error curve falls with the epochs towards a floor
set by the model's width (a wider model reaches a lower floor: error
``0.3 / sqrt(width) + 0.5 exp(-lr * epoch) + noise``), reported as
``[error, log10(width)]`` at each of 27 epochs: accuracy against size, a front.
The curves cross on purpose: early on a slow learning rate looks worse than a
small model, at the end the width decides, so a rung judged at epoch 1 misleads.
A second problem, ``mlp``, trains a real network: scikit-learn's
``MLPClassifier`` on the digits (1,257 training and 540 validation images),
one ``partial_fit`` pass per epoch, with its hidden units (4-256, log), initial
learning rate (1e-4 to 0.1, log) and L2 penalty (1e-6 to 0.1, log) tuned, and
``[validation error, log10(weights)]`` reported at each of 27 epochs (reference
``[1.0, 5.0]``). ``mlp-cancer``, added after the others' figures were read (a
check nothing was chosen on), is the same network on scikit-learn's breast-cancer
data (398 training and 171 validation rows, 30 standardized features, two classes).
The same seeds run with ``SuccessiveHalvingPruner(min_resource=1,
reduction_factor=3, max_resource=27)`` and without a pruner; each row holds the
epochs trained and the final front's hypervolume (reference ``[1.0, 3.0]``).

    python -m bench.suites.mo_pruning run --seeds 10 --trials 60
    python -m bench.suites.mo_pruning run --seeds 10 --trials 60 --min-resource 3
    python -m bench.suites.mo_pruning run --problem mlp --seeds 10 --trials 60 --algos tpe
    python -m bench.suites.mo_pruning run --problem mlp --seeds 10 --trials 60 --pruned-trials 200 --algos tpe
    python -m bench.suites.mo_pruning report
    python -m bench.suites.mo_pruning front --problem mlp-cancer --seeds 10

``front`` runs unpruned studies and prints, per seed, the curve of the front's
smallest trial at the rungs (epochs 1, 3, 9) and how many trials of its size were
lower than it at epoch 3: whether any rung could have kept it.

``--pruned-trials`` lets the pruned studies run on past the unpruned one's trials:
each row keeps the hypervolume after every trial with the epochs spent so far, and
the report compares a pruned study's front once it has trained half (and all) of
the unpruned study's epochs with the unpruned study's final front: the steps saved
at no loss of hypervolume.

Rows: ``bench/results/mo_pruning.jsonl``.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from ..harness.paths import RESULTS

ROWS = RESULTS / "mo_pruning.jsonl"
REFERENCE = [1.0, 3.0]
PRUNERS = {"sha": "successive halving (MO-ASHA)", "hyperband": "Hyperband"}
EPOCHS = 27


def _objective(params: dict[str, Any], trial: Any) -> list[float]:
    rng = np.random.default_rng(trial.number)
    floor = 0.3 / math.sqrt(params["width"])
    values = [1.0, 0.0]
    for epoch in range(1, (trial.budget or EPOCHS) + 1):
        error = floor + 0.5 * math.exp(-params["lr"] * epoch) + 0.01 * float(rng.standard_normal())
        values = [error, math.log10(params["width"])]
        trial.report(epoch, values)
        if trial.should_prune():
            import treefarm as tf

            raise tf.TrialPruned()
    return values


def _data(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(X_train, X_valid, y_train, y_valid)``: 70/30, stratified, seed 0; the
    digits scaled to [0, 1], the breast-cancer features standardized on the
    training part."""
    from sklearn.datasets import load_breast_cancer, load_digits
    from sklearn.model_selection import train_test_split

    if name == "mlp":
        X, y = load_digits(return_X_y=True)
        X = X / 16.0
    else:
        X, y = load_breast_cancer(return_X_y=True)
    X_train, X_valid, y_train, y_valid = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    if name != "mlp":
        mean, std = X_train.mean(axis=0), X_train.std(axis=0)
        X_train, X_valid = (X_train - mean) / std, (X_valid - mean) / std
    return X_train, X_valid, y_train, y_valid


def _mlp(params: dict[str, Any], trial: Any, data: str = "mlp") -> list[float]:
    import warnings

    from sklearn.neural_network import MLPClassifier

    X_train, X_valid, y_train, y_valid = _data(data)
    classes = np.unique(y_train)
    model = MLPClassifier(
        hidden_layer_sizes=(params["units"],),
        learning_rate_init=params["lr"],
        alpha=params["alpha"],
        random_state=trial.number,
    )
    units, n_out = params["units"], len(classes) if len(classes) > 2 else 1
    size = math.log10(X_train.shape[1] * units + units * n_out + units + n_out)
    values = [1.0, size]
    for epoch in range(1, (trial.budget or EPOCHS) + 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.partial_fit(X_train, y_train, classes=classes)
        values = [1.0 - float(model.score(X_valid, y_valid)), size]
        trial.report(epoch, values)
        if trial.should_prune():
            import treefarm as tf

            raise tf.TrialPruned()
    return values


def _problem(name: str) -> tuple[dict[str, Any], Any, list[float]]:
    """The space, objective and hypervolume reference of a problem."""
    import treefarm as tf

    if name in ("mlp", "mlp-cancer"):
        space = {
            "units": tf.Int(4, 256, log=True),
            "lr": tf.Real(1e-4, 0.1, log=True),
            "alpha": tf.Real(1e-6, 0.1, log=True),
        }
        return space, functools.partial(_mlp, data=name), [1.0, 5.0]
    return {"width": tf.Int(1, 1024, log=True), "lr": tf.Real(0.01, 1.0, log=True)}, _objective, REFERENCE


def _pruner(kind: str, min_resource: int) -> Any:
    import treefarm as tf

    if kind == "hyperband":
        return tf.HyperbandPruner(min_resource=min_resource, reduction_factor=3, max_resource=EPOCHS)
    return tf.SuccessiveHalvingPruner(min_resource=min_resource, reduction_factor=3, max_resource=EPOCHS)


def run_one(
    seed: int, trials: int, pruned: bool, algo: str, min_resource: int = 1, problem: str = "curves", kind: str = "sha"
) -> dict[str, Any]:
    import treefarm as tf

    pruner = _pruner(kind, min_resource) if pruned else None
    space, objective, reference = _problem(problem)
    study = tf.Study.create(space=space, directions=["minimize", "minimize"], pruner=pruner, algo=algo, seed=seed)
    study.optimize(objective, n_trials=trials, progress=False)
    epochs = sum(max(t.intermediate) for t in study.trials if t.intermediate)
    return {
        "problem": problem,
        "seed": seed,
        "algo": algo,
        "pruned": pruned,
        "min_resource": min_resource if pruned else None,
        **({"pruner": kind} if pruned and kind != "sha" else {}),
        "trials": trials,
        "epochs": int(epochs),
        "hypervolume": study.hypervolume(reference),
        "anytime": anytime(study.trials, reference),
    }


def anytime(trials: list[Any], reference: list[float]) -> list[list[float]]:
    """``[epochs so far, hypervolume so far]`` after each trial, in trial order
    (one process runs them one after another, so a prefix is the study as it stood)."""
    from treefarm.pareto import hypervolume, nondominated_mask

    out, spent, done = [], 0, []
    for t in trials:
        spent += max(t.intermediate) if t.intermediate else 0
        if t.state.name == "COMPLETE" and t.values is not None:
            done.append(t.values)
        Y = np.array(done, dtype=float).reshape(-1, len(reference))
        hv = hypervolume(Y[nondominated_mask(Y)], np.array(reference)) if len(Y) else 0.0
        out.append([spent, float(hv)])
    return out


def front_curves(problem: str, seeds: int, trials: int = 60) -> list[str]:
    """For each seed's unpruned study, its hypervolume, the front's trial with the
    lowest second objective (the smallest model): its losses at epochs 1, 3, 9 and
    27, and how many trials of its second objective were lower at epoch 3."""
    import treefarm as tf

    space, objective, reference = _problem(problem)
    out = []
    for seed in range(seeds):
        study = tf.Study.create(space=space, directions=["minimize", "minimize"], algo="tpe", seed=seed)
        study.optimize(objective, n_trials=trials, progress=False)
        smallest = min(study.best_trials, key=lambda t: t.values[1])
        rungs = [round(smallest.intermediate[e], 3) for e in (1, 3, 9, EPOCHS)]
        same = [t for t in study.trials if t.values is not None and t.values[1] == smallest.values[1]]
        lower = sum(t.intermediate[3] < smallest.intermediate[3] for t in same)
        out.append(
            f"seed {seed}: hypervolume {study.hypervolume(reference):.4f}, smallest front trial "
            f"{smallest.number} at epochs 1/3/9/{EPOCHS}: {rungs}; {lower} of {len(same)} trials of its "
            "size lower at epoch 3"
        )
    return out


def _interval(a: np.ndarray, b: np.ndarray) -> tuple[float, float, str]:
    """The 95 % bootstrap interval of median(a) - median(b) (seeded) and its verdict."""
    rng = np.random.default_rng(0)
    boot = np.median(rng.choice(a, (2000, len(a))), axis=1) - np.median(rng.choice(b, (2000, len(b))), axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    verdict = "lower beyond noise" if hi < 0 else "higher beyond noise" if lo > 0 else "no difference beyond noise"
    return float(lo), float(hi), verdict


def at_equal_steps(on: list[dict[str, Any]], off: list[dict[str, Any]], share: float) -> str | None:
    """The pruned runs' hypervolume once they have trained ``share`` of the epochs
    the unpruned run of the same seed trained in all (a run whose trials all
    ended before that keeps its final front: it spent less), against that run's
    final hypervolume; None with fewer than 5 seeds."""
    final = {r["seed"]: (r["epochs"], r["hypervolume"]) for r in off}
    mine, theirs = [], []
    for r in on:
        if r["seed"] not in final or "anytime" not in r:
            continue
        budget = share * final[r["seed"]][0]
        mine.append(max((hv for spent, hv in r["anytime"] if spent <= budget), default=0.0))
        theirs.append(final[r["seed"]][1])
    if len(mine) < 5:
        return None
    a, b = np.array(mine), np.array(theirs)
    lo, hi, verdict = _interval(a, b)
    return (
        f"with {share:.0%} of its epochs: median hypervolume {np.median(a):.4f} against {np.median(b):.4f}, "
        f"difference [{lo:.4f}, {hi:.4f}]: {verdict} ({len(a)} seeds)"
    )


def report(path: Path = ROWS) -> str:
    """One line per pruned setting: at the same number of trials, the epochs
    trained and the hypervolume against the unpruned study (60 trials); for
    runs with more trials, the hypervolume once they have trained half, and
    all, of the unpruned study's epochs."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    out = []
    for r in rows:
        r.setdefault("problem", "curves")
    settings = sorted(
        {
            (r["problem"], r["algo"], r.get("min_resource", 1), r.get("pruner", "sha"), r["trials"])
            for r in rows
            if r["pruned"]
        }
    )
    for problem, algo, minimum, kind, trials in settings:
        mine = [r for r in rows if r["problem"] == problem and r["algo"] == algo]
        on = [
            r
            for r in mine
            if r["pruned"]
            and r.get("min_resource", 1) == minimum
            and r.get("pruner", "sha") == kind
            and r["trials"] == trials
        ]
        off = [r for r in mine if not r["pruned"]]
        if not on or not off:
            continue
        head = f"{problem}, {algo}, {PRUNERS[kind]}, first rung at {minimum} epochs"
        if trials == off[0]["trials"]:
            steps = np.median([r["epochs"] for r in on]) / np.median([r["epochs"] for r in off])
            a = np.array([r["hypervolume"] for r in on])
            b = np.array([r["hypervolume"] for r in off])
            lo, hi, verdict = _interval(a, b)
            out.append(
                f"{head}, {trials} trials each: it trains {steps:.0%} of the epochs of no pruning (medians over "
                f"{len(on)} and {len(off)} seeds); median hypervolume {np.median(a):.4f} against {np.median(b):.4f}, "
                f"difference [{lo:.4f}, {hi:.4f}]: {verdict}"
            )
        for share in (0.5, 1.0):
            line = at_equal_steps(on, off, share)
            if line is not None:
                out.append(f"{head}, up to {trials} trials against {off[0]['trials']} unpruned, {line}")
    return "\n".join(out)


def _positive(text: str) -> int:
    """An integer >= 1, or argparse's error naming the value."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.suites.mo_pruning")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("--seeds", type=_positive, default=10)
    run.add_argument("--trials", type=_positive, default=60)
    run.add_argument(
        "--pruned-trials", type=_positive, default=None, help="the pruned studies' trials (default: --trials)"
    )
    run.add_argument("--algos", default="tpe,random")
    run.add_argument("--min-resource", type=_positive, default=1, help="the first rung's epochs")
    run.add_argument("--problem", default="curves", choices=["curves", "mlp", "mlp-cancer"])
    run.add_argument("--pruner", default="sha", choices=sorted(PRUNERS), help="successive halving or Hyperband")
    run.add_argument("--out", type=Path, default=ROWS, help="the rows' file (resumable)")
    front = sub.add_parser("front", help="per seed, the unpruned front's smallest trial at the rungs")
    front.add_argument("--problem", default="mlp-cancer", choices=["curves", "mlp", "mlp-cancer"])
    front.add_argument("--seeds", type=_positive, default=10)
    front.add_argument("--trials", type=_positive, default=60)
    rep = sub.add_parser("report")
    rep.add_argument("--out", type=Path, default=ROWS, help="the rows' file")
    args = parser.parse_args(argv)
    if args.command == "report":
        print(report(args.out))
        return
    if args.command == "front":
        print("\n".join(front_curves(args.problem, args.seeds, args.trials)))
        return
    rows_file: Path = args.out
    done = set()
    if rows_file.exists():
        done = {
            (
                r.get("problem", "curves"),
                r["seed"],
                r["algo"],
                r["pruned"],
                r["trials"],
                r.get("min_resource", 1 if r["pruned"] else None),
                r.get("pruner", "sha") if r["pruned"] else None,
            )
            for r in map(json.loads, rows_file.read_text().splitlines())
        }
    rows_file.parent.mkdir(parents=True, exist_ok=True)
    for seed in range(args.seeds):
        for algo in args.algos.split(","):
            for pruned in (True, False):
                trials = args.pruned_trials or args.trials if pruned else args.trials
                key = (
                    args.problem, seed, algo, pruned, trials,
                    args.min_resource if pruned else None, args.pruner if pruned else None,
                )
                if key in done:
                    continue
                row = run_one(seed, trials, pruned, algo, args.min_resource, args.problem, args.pruner)
                with rows_file.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                print(json.dumps(row), file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
