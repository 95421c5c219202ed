"""``treefarm import-optuna OPTUNA_STORAGE --study NAME --to STORAGE``: continue an Optuna study in treefarm.

    treefarm import-optuna sqlite:///optuna.db --study resnet --to treefarm.db
    treefarm run resnet.py --study resnet --n-trials 300     # the copied trials count

Copies the Optuna study's complete, pruned and failed trials (values,
intermediate values, user attributes) into a new treefarm study in the
space they reveal (see :mod:`treefarm.integration.optuna_import`); what
treefarm cannot express is printed as a warning. The space is kept in the
study as a space file's contents, so ``treefarm ask``/``tell`` continue it
from any program; ``--space-out FILE`` also writes it as a JSON space file.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from ..exceptions import StudyError
from ..optimizers import available
from .asktell import SPACE_ATTR
from .command import Command

__all__ = ["COMMAND", "cmd_import_optuna"]


def cmd_import_optuna(args: argparse.Namespace) -> int:
    try:
        import optuna

        from ..integration.optuna_import import IMPORTED_ATTR, import_study
    except ImportError as exc:
        raise StudyError(
            f"importing an Optuna study needs Optuna: pip install 'treefarm[optuna]' ({exc})"
        ) from exc
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        source = optuna.load_study(study_name=args.study, storage=args.optuna_storage)
    except KeyError as exc:
        raise StudyError(
            f"the Optuna study must exist in OPTUNA_STORAGE, but got study={args.study!r}, "
            f"optuna_storage={args.optuna_storage!r}"
        ) from exc
    study = import_study(source, storage=args.to, name=args.name, algo=args.algo, seed=args.seed)
    try:
        imported = study.storage.get_study(study.name).attrs[IMPORTED_ATTR]
        data = imported["space"] if isinstance(imported, dict) else None
        study.storage.set_study_attr(study.study_id, SPACE_ATTR, data)
        if args.space_out:
            Path(args.space_out).write_text(json.dumps(data, indent=2) + "\n")
        counts = Counter(t.state.value for t in study.trials)
        states = ", ".join(f"{state} {n}" for state, n in sorted(counts.items()))
        print(
            f"imported Optuna study {args.study!r} into study {study.name!r} in {args.to}: {len(study.trials)} trials ({states})"
        )
        if counts.get("complete") and len(study.directions) == 1:
            print(f"best value: {study.best_value!r} (trial {study.best_trial.number})")
    finally:
        study.storage.close()
    return 0


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "optuna_storage", metavar="OPTUNA_STORAGE", help="the Optuna storage URL (sqlite:///optuna.db)"
    )
    parser.add_argument("--study", required=True, help="the Optuna study's name")
    parser.add_argument(
        "--storage", "--to", dest="to", required=True, metavar="STORAGE",
        help="the treefarm storage: path or URL (--to is the same option)",
    )
    parser.add_argument(
        "--name", default=None, help="the new treefarm study's name (default: the Optuna study's)"
    )
    parser.add_argument(
        "--algo", default=None, choices=available(), help="optimizer to continue with (default: auto)"
    )
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--space-out", default=None, metavar="FILE.json", help="also write the space as a space file"
    )


COMMAND = Command(
    "import-optuna", "copy an Optuna study's trials into a new treefarm study", _arguments, cmd_import_optuna
)
