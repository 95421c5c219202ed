"""``TPE()`` against Optuna's default ``TPESampler``: BBOB in 5-d and COCO's bbob-mixint.

treefarm's ``TPE()`` with its defaults (``tf-tpe``) and Optuna 5's default
``TPESampler(seed=...)`` (``optuna-tpe``, multivariate), 100 evaluations,
seeds 0-9, in the same runs. BBOB (Hansen et al. 2009): the 24 noiseless
functions in 5-d, instances 1-3 pooled. bbob-mixint (Tušar, Brockhoff &
Hansen 2019): the same functions with four fifths of the variables integer
(``Int`` for treefarm, int distributions for Optuna), in 5-d and 10-d,
regret against COCO's logged optimum. Functions 13-24 of bbob-mixint were
held out before any row was read: no choice of ``TPE()``'s was made on them,
and they are reported apart.
"""

from __future__ import annotations

from ..harness.suite import Finals, Suite, merge, runner_finals

COLUMNS = ("tpe", "optuna-tpe")
NAMES = {"tf-tpe": "tpe", "optuna-tpe": "optuna-tpe"}
MEASURE = "regret after 100 evaluations, instances pooled"
METHODS = "--methods tf-tpe,optuna-tpe --in-process"


def _design() -> Finals:
    return merge(runner_finals("tpe_bbob5.jsonl", NAMES), runner_finals("tpe_mixint.jsonl", NAMES))


def _held_out() -> Finals:
    return runner_finals("tpe_mixint_held.jsonl", NAMES)


SUITES = (
    Suite(
        "tpe", "TPE() vs Optuna's TPE",
        "BBOB 5-d and bbob-mixint f1-f12 (5-d, 10-d); Optuna's default `TPESampler`.",
        MEASURE, "tpe", COLUMNS, ("tpe_bbob5.jsonl", "tpe_mixint.jsonl"),
        (f"python -m bench.harness.bbob run --dims 5 {METHODS} --out bench/results/tpe_bbob5.jsonl",
         "python -m bench.harness.mixint run --functions 1-12 --in-process"),
        _design, resolved_only=True),
    Suite(
        "tpe-held-out", "TPE(), held out",
        "bbob-mixint f13-f24 (5-d, 10-d), held out before any row was read.",
        MEASURE, "tpe", COLUMNS, ("tpe_mixint_held.jsonl",),
        ("python -m bench.harness.mixint run --functions 13-24 --in-process --out bench/results/tpe_mixint_held.jsonl",),
        _held_out, held_out=True, resolved_only=True),
)
