"""The suites of the report, in its order: each names its rows, its measure, the method the
others are tested against, and the commands that made its rows (:class:`bench.harness.suite.Suite`).

- :mod:`.numeric`: synthetic functions, tuning problems, BBOB in 2-d, 10-d, 20-d, and the BBOB
  functions held out from the design;
- :mod:`.categorical`: spaces of choices only; :mod:`.batch`: rounds of 8 or 16 suggestions asked together;
- :mod:`.tpe`: ``TPE()`` against Optuna's TPE on BBOB 5-d and bbob-mixint, and its held-out functions;
- :mod:`.grammars`: symbolic regression and kernel search, and the held-out targets;
- :mod:`.integrations`: treefarm inside Optuna, ``TreefarmSearchCV`` against scikit-optimize;
- :mod:`.pruning`: ASHA and Hyperband; :mod:`.fidelity`: multi-fidelity optimization, the best
  full-fidelity value against the cost spent, and its held-out problems; :mod:`.hints`: search hints; :mod:`.overhead`: seconds per
  suggestion; :mod:`.many`: many workers on one storage.

The other modules here are the scripts behind some suites' rows (their runners and reports).
"""

from __future__ import annotations

from ..harness.suite import Suite


def all_suites() -> tuple[Suite, ...]:
    """Every suite, in the report's order."""
    from . import (
        batch,
        categorical,
        fidelity,
        grammars,
        hints,
        integrations,
        many,
        numeric,
        overhead,
        pruning,
        tpe,
    )

    return (*numeric.SUITES, *categorical.SUITES, *batch.SUITES, *tpe.SUITES, *grammars.SUITES, *integrations.SUITES,
            *pruning.SUITES, *fidelity.SUITES, *hints.SUITES, *overhead.SUITES, *many.SUITES)


def by_name() -> dict[str, Suite]:
    return {s.name: s for s in all_suites()}
