"""Screens of a model for spaces made only of choices, on the choice suite's design part.

Variants (rows named ``tf-`` + the variant, beside the suite's ``treefarm-auto`` and ``optuna-gp``):

- ``auto-decision``: ``Auto`` whose GP has one length scale per choice
  (``GP(choice_scales="decision")``), TPE's turns as today;
- ``auto-decision-wide``: the same with that GP scoring 2,048 space-covering candidates and
  climbing from 10 starts (Optuna's GP's numbers; 512 and 8 by default);
- ``gp-decision``: that GP alone; ``gp-decision-standard`` with the plain standardized
  output (no warp); ``gp-decision-wide`` with 2,048 candidates and 10 starts.

    python -m bench.screens.choice_model run --methods tf-auto-decision,treefarm-auto --seeds 3 \\
        --problems pest25,pest15,hartmann6_grid,styblinski5_grid --rows bench/results/choice_model.jsonl

Only the design part (:data:`bench.suites.categorical.DESIGN`) is screened; the held-out part
runs once, after the choice, with the suite's own command.
"""

from __future__ import annotations

from ..suites import categorical


def _auto_decision() -> object:
    from treefarm.optimizers import GP, Auto

    return Auto(gp=GP(choice_scales="decision"))


def _auto_decision_wide() -> object:
    from treefarm.optimizers import GP, Auto

    return Auto(gp=GP(choice_scales="decision", n_candidates=2048, n_starts=10))


def _gp_decision() -> object:
    from treefarm.optimizers import GP

    return GP(choice_scales="decision")


def _gp_decision_standard() -> object:
    from treefarm.optimizers import GP

    return GP(choice_scales="decision", output="standard")


def _gp_decision_wide() -> object:
    from treefarm.optimizers import GP

    return GP(choice_scales="decision", n_candidates=2048, n_starts=10)


VARIANTS = {
    "tf-auto-decision": _auto_decision,
    "tf-auto-decision-wide": _auto_decision_wide,
    "tf-gp-decision": _gp_decision,
    "tf-gp-decision-standard": _gp_decision_standard,
    "tf-gp-decision-wide": _gp_decision_wide,
}


def main(argv: list[str] | None = None) -> None:
    categorical.main_with(VARIANTS, argv)


if __name__ == "__main__":
    main()
