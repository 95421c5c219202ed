"""The GP with and without each trial's fold spread as its own noise, on a noisy k-fold objective.

The problem is the closure test of ``examples/closure_test.py`` made noisy:
polynomial ridge regression (``degree`` 1-15, ``alpha`` 1e-10-1, log) of the
law ``f(x) = sin(3x) + x / 2`` at 40 fixed points of ``[0, 2]``. Each trial
draws ``R`` (``--replicas``, 1 or 4) fresh pseudo-data sets (the law plus Gaussian noise of sd
``NOISE``, seeded by the run's seed and the trial's number), and for each of
5 interleaved folds fits the other folds and scores the mean squared error
against the law on the fold. The loss is the mean of the ``R x 5`` fold
losses (``treefarm.evaluate_folds``, ``how="mean"``), stored with its variance
``s^2 / (5 R)``. Flexible models (high degree, tiny alpha) have fold losses
that disagree by orders of magnitude; smooth ones agree: the noise is
heteroscedastic.

The truth is known in closed form: the fit is linear in the data, ``coef =
A y``, so a fold's expected loss over pseudo-data is ``mean((P A f_T -
f_S)^2) + NOISE^2 ||P A||_F^2 / |S|`` (bias and variance of a linear
smoother; ``P`` the test fold's design matrix). A run's score is the true
loss of the trial the study recommends (:attr:`treefarm.Study.recommended_trial`:
the GP's best posterior mean at an evaluated point when the noise is
significant) and of its best observed trial. One JSON line per (variant,
seed, replicas); a rerun skips the rows already in the file.

    python -m bench.screens.fold_noise --seeds 20 --replicas 1 --out bench/results/fold_noise.jsonl
    python -m bench.screens.fold_noise --seeds 20 --replicas 4 --out bench/results/fold_noise.jsonl
    python -m bench.screens.fold_noise --report bench/results/fold_noise.jsonl
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

N_POINTS, N_FOLDS, NOISE = 40, 5, 0.5
N_TRIALS = 30
X = np.linspace(0.0, 2.0, N_POINTS)
FOLD = np.arange(N_POINTS) % N_FOLDS
VARIANTS = ("heteroscedastic", "homoscedastic")


def law(x: np.ndarray) -> np.ndarray:
    return np.sin(3.0 * x) + 0.5 * x


def smoother(train: np.ndarray, test: np.ndarray, degree: int, alpha: float) -> np.ndarray:
    """``P A``: test-fold predictions as a linear map of the training targets (|S|, |T|)."""
    v = np.vander(X[train] - 1.0, degree + 1)
    a = np.vstack([v, np.sqrt(alpha) * np.eye(degree + 1)])
    pinv = np.linalg.pinv(a)[:, : len(v)]  # ridge coefficients = pinv [y; 0]
    return np.vander(X[test] - 1.0, degree + 1) @ pinv


def true_loss(params: dict[str, Any]) -> float:
    """The expected mean fold loss over pseudo-data sets (module docstring)."""
    total = 0.0
    for f in range(N_FOLDS):
        test = np.equal(FOLD, f)
        pa = smoother(~test, test, params["degree"], params["alpha"])
        bias2 = np.mean((pa @ law(X[~test]) - law(X[test])) ** 2)
        total += bias2 + NOISE**2 * float((pa**2).sum()) / int(test.sum())
    return float(total / N_FOLDS)


def run(variant: str, seed: int, n_replicas: int) -> dict[str, Any]:
    import treefarm as tf
    from treefarm.optimizers.gp import GP

    space = {"degree": tf.Int(1, 15), "alpha": tf.Real(1e-10, 1.0, log=True)}

    def objective(params: dict[str, Any], trial: tf.Trial) -> dict[str, Any]:
        rng = np.random.default_rng([seed, trial.number])
        ys = [law(X) + NOISE * rng.standard_normal(N_POINTS) for _ in range(n_replicas)]

        def fold_loss(r: int, f: int) -> float:
            test = np.equal(FOLD, f)
            pa = smoother(~test, test, params["degree"], params["alpha"])
            return float(np.mean((pa @ ys[r][~test] - law(X[test])) ** 2))

        return tf.evaluate_folds(fold_loss, n_folds=N_FOLDS, n_replicas=n_replicas, trial=trial)

    algo = GP(heteroscedastic=variant == "heteroscedastic")
    study = tf.Study.create(space=space, algo=algo, seed=seed)
    start = time.perf_counter()
    study.optimize(objective, N_TRIALS)
    seconds = time.perf_counter() - start
    trials = [
        {
            "params": dict(t.params),
            "loss": t.value,
            "loss_variance": t.user_attrs["loss_variance"],
            "true": true_loss(dict(t.params)),
        }
        for t in study.trials
    ]
    return {
        "variant": variant,
        "seed": seed,
        "replicas": n_replicas,
        "n_trials": N_TRIALS,
        "seconds": seconds,
        "best_true": true_loss(dict(study.best_trial.params)),
        "recommended_true": true_loss(dict(study.recommended_trial.params)),
        "trials": trials,
    }


def report(rows: list[dict[str, Any]]) -> str:
    """Per replicas and variant: medians (and means) over seeds of the true loss of the
    recommended and of the best observed trial, and how often each variant wins a seed."""
    lines = [
        "| replicas | variant | seeds | median true loss, recommended | mean | median true loss, "
        "best observed | mean | seeds where it recommends better (ties) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for replicas in sorted({r["replicas"] for r in rows}):
        by = {
            v: {r["seed"]: r for r in rows if r["replicas"] == replicas and r["variant"] == v}
            for v in VARIANTS
        }
        seeds = sorted(set(by[VARIANTS[0]]) & set(by[VARIANTS[1]]))
        for variant, other in (VARIANTS, VARIANTS[::-1]):
            rec = np.array([by[variant][s]["recommended_true"] for s in seeds])
            rec_other = np.array([by[other][s]["recommended_true"] for s in seeds])
            best = np.array([by[variant][s]["best_true"] for s in seeds])
            wins, ties = int((rec < rec_other).sum()), int((rec == rec_other).sum())
            lines.append(
                f"| {replicas} | {variant} | {len(seeds)} | {np.median(rec):.4f} | {rec.mean():.4f} "
                f"| {np.median(best):.4f} | {best.mean():.4f} | {wins} ({ties}) |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.screens.fold_noise")
    parser.add_argument("--out", type=Path, default=Path("bench/results/fold_noise.jsonl"))
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("--report", type=Path, help="print the table of this file's rows and stop")
    args = parser.parse_args(argv)
    if args.report:
        print(report([json.loads(line) for line in args.report.read_text().splitlines() if line]))
        return
    done = set()
    if args.out.exists():
        done = {
            (r["variant"], r["seed"], r["replicas"])
            for r in map(json.loads, args.out.read_text().splitlines())
        }
    for seed in range(args.seeds):
        for variant in VARIANTS:
            if (variant, seed, args.replicas) in done:
                continue
            row = run(variant, seed, args.replicas)
            with args.out.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(variant, seed, args.replicas, f"{row['seconds']:.1f}s", flush=True)


if __name__ == "__main__":
    main()
