"""``TPE()`` against Optuna's default ``TPESampler``: BBOB in 5-d and COCO's bbob-mixint.

treefarm's ``TPE()`` with its defaults (``tf-tpe``: rank weights since
``tpe_ranked.jsonl``, and every turn joint on the 5-d problems since
``tpe_joint5.jsonl``; the ``TPE()`` before the rank weights is loaded as
``tpe-unranked``, the one before ``always_joint`` as ``tpe-product``, and both
are compared in ``docs/design/tpe.md``; those two come from the committed rows:
the commands run from scratch make today's ``TPE()`` in every file) and
Optuna 5's default ``TPESampler(seed=...)``
(``optuna-tpe``, multivariate), 100 evaluations, seeds 0-59. BBOB (Hansen
et al. 2009): the 24 noiseless functions in 5-d, instances 1-3 pooled.
bbob-mixint (Tušar, Brockhoff & Hansen 2019): the same functions with four
fifths of the variables integer (``Int`` for treefarm, int distributions for
Optuna), in 5-d and 10-d, regret against COCO's logged optimum; seeds 30-59
of both in ``tpe_seeds30_59.jsonl`` (the commands with ``--seeds 30`` and
``--seeds 60`` on copies of their files). Functions
13-24 of bbob-mixint were held out before any row was read: no choice of
``TPE()``'s was made on them, and they are reported apart.
"""

from __future__ import annotations

from ..harness.spread import spread_notes
from ..harness.suite import Finals, Suite, keep, merge, runner_finals

COLUMNS = ("tpe", "optuna-tpe")
BEFORE = {"tf-tpe": "tpe-unranked", "optuna-tpe": "optuna-tpe"}
NOW = {"tf-tpe": "tpe"}
BOTH = {"tf-tpe": "tpe", "optuna-tpe": "optuna-tpe"}
MEASURE = "regret after 100 evaluations, instances pooled"
#: Optuna's rows; the files' ``tf-tpe`` rows are the unranked ``TPE()`` of their commits.
METHODS = "--methods optuna-tpe --in-process"
RANKED = "tpe_ranked.jsonl"
NEW = f"--methods tf-tpe --in-process --seeds 30 --out bench/results/{RANKED}"
MORE_SEEDS = "tpe_seeds10_29.jsonl"
#: Seeds 30-59 of both ``TPE()`` with rank weights and Optuna's TPE.
SIXTY = "tpe_seeds30_59.jsonl"
#: ``TPE()`` with every turn joint on 3-5 always-active numbers (``always_joint=5``):
#: the 5-d problems, seeds 0-59; the 10-d ones are unchanged by it.
JOINT5 = "tpe_joint5.jsonl"
JOINT5_RUNS = (f"python -m bench.harness.bbob run --dims 5 --methods tf-tpe --in-process --seeds 60 --out bench/results/{JOINT5}",
               f"python -m bench.harness.mixint run --functions 1-24 --dims 5 --methods tf-tpe --in-process --seeds 60 --out bench/results/{JOINT5}")


def _held(problem: str) -> bool:
    """bbob-mixint f13-f24 (``mixint 5-d f13``): the held-out functions."""
    return problem.startswith("mixint") and int(problem.rpartition("f")[2]) >= 13


def _all(earlier: bool) -> Finals:
    """Optuna's and today's ``TPE()``'s finals; with ``earlier``, the two
    ``TPE()`` before it too (``tpe-unranked``, ``tpe-product``)."""
    names = BEFORE if earlier else {"optuna-tpe": "optuna-tpe"}
    before = merge(*(runner_finals(f, names) for f in ("tpe_bbob5.jsonl", "tpe_mixint.jsonl",
                                                        "tpe_mixint_held.jsonl", MORE_SEEDS)))
    ranked = merge(runner_finals(RANKED, NOW), runner_finals(SIXTY, BOTH))
    now = merge(before, ranked, runner_finals(JOINT5, NOW))
    if not earlier:
        return now
    product = {(p, "tpe-product"): seeds for (p, m), seeds in ranked.items() if m == "tpe"}
    return merge(now, product)


def _part(held: bool, *, earlier: bool = False) -> Finals:
    finals = _all(earlier)
    return keep(finals, problems=sorted({p for p, _ in finals if _held(p) == held}))


SUITES = (
    Suite(
        "tpe", "TPE() vs Optuna's TPE",
        "BBOB 5-d and bbob-mixint f1-f12 (5-d, 10-d); Optuna's default `TPESampler`.",
        MEASURE, "tpe", COLUMNS, ("tpe_bbob5.jsonl", "tpe_mixint.jsonl", MORE_SEEDS, RANKED, SIXTY, JOINT5),
        (f"python -m bench.harness.bbob run --dims 5 {METHODS} --out bench/results/tpe_bbob5.jsonl",
         f"python -m bench.harness.mixint run --functions 1-12 {METHODS}",
         f"python -m bench.harness.bbob run --dims 5 {NEW}",
         f"python -m bench.harness.mixint run --functions 1-12 {NEW}", *JOINT5_RUNS),
        lambda: _part(False), resolved_only=True, notes=spread_notes("tpe", COLUMNS, full=False)),
    Suite(
        "tpe-held-out", "TPE(), held out",
        "bbob-mixint f13-f24 (5-d, 10-d), held out before any row was read.",
        MEASURE, "tpe", COLUMNS, ("tpe_mixint_held.jsonl", MORE_SEEDS, RANKED, SIXTY, JOINT5),
        (f"python -m bench.harness.mixint run --functions 13-24 {METHODS} --out bench/results/tpe_mixint_held.jsonl",
         f"python -m bench.harness.mixint run --functions 13-24 {NEW}", JOINT5_RUNS[1]),
        lambda: _part(True), held_out=True, resolved_only=True, notes=spread_notes("tpe", COLUMNS, full=False)),
)


def main() -> None:
    """``python -m bench.suites.tpe``: both parts' tables with the two earlier ``TPE()`` beside."""
    from dataclasses import replace

    from ..harness.summary import table

    for suite, held in zip(SUITES, (False, True)):
        print(table(replace(suite, columns=(*COLUMNS, "tpe-product", "tpe-unranked")), _part(held, earlier=True)), end="\n\n")


if __name__ == "__main__":
    main()
