"""Ask and tell from any program: ``treefarm create``, ``ask`` and ``tell``.

    treefarm create runs.db --study sim --space space.json --n-trials 40
    treefarm ask runs.db --study sim            # the trial number, then `address value` lines
    treefarm ask runs.db --study sim --json     # {"trial": 3, "config": {...}, "params": {...}}
    treefarm tell runs.db --study sim --trial 3 --value 0.25
    treefarm tell runs.db --study sim --trial 4 --failed "solver diverged"
    treefarm tell runs.db --study two --trial 5 --value 0.25,31.0 --constraints -0.5

``create`` reads a space file (JSON, or YAML with PyYAML; see
:mod:`treefarm.space.files`) and keeps its contents in the study, so ``ask``
and ``tell`` in any process need only the storage and the study's name. Each
command is one ask or one tell of the Python API on the shared storage, so
several shells asking at once get distinct trials, and a budget
(``--n-trials`` of ``create``, or of ``ask``) is never exceeded: ``ask``
exits with status 3 once it is spent. A trial asked here stays RUNNING
until it is told; its worker is the ``ask`` process, which has ended, so a
Python ``optimize`` running the same study on this machine would take it for
dead: drive one study either way, not both.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from ..exceptions import StudyError, format_values
from ..space.files import read_space_data, space_from_data
from ..storage import Storage, open_storage
from ..study import Study
from ..study.state.outcome import failure
from .arguments import algo_option, direction_options, positive_int, storage_argument
from .command import Command

__all__ = ["ASK", "BUDGET_SPENT", "CREATE", "TELL"]

SPACE_ATTR = "space_file"
"""The study attribute holding the space file's contents (what ``ask`` and ``tell`` rebuild the space from)."""
BUDGET_ATTR = "n_trials"
"""The study attribute holding the budget given to ``create``."""
BUDGET_SPENT = 3
"""``ask``'s exit status when the study's budget is spent (a shell loop's end)."""


def cmd_create(args: argparse.Namespace) -> int:
    data = read_space_data(args.space)
    space = space_from_data(data)
    with open_storage(args.storage) as storage:
        study = Study.create(
            args.study,
            space=space,
            storage=storage,
            algo=args.algo,
            direction=args.direction,
            directions=args.directions,
            seed=args.seed,
            load_if_exists=args.skip_if_exists,
        )
        storage.set_study_attr(study.study_id, SPACE_ATTR, data)
        if args.n_trials is not None:
            storage.set_study_attr(study.study_id, BUDGET_ATTR, args.n_trials)
        print(f"study {study.name!r} in {args.storage}: {len(study.trials)} trials")
    return 0


def _study(storage: Storage, name: str) -> Study:
    """The study ``name``, with the space its creation kept."""
    record = storage.get_study(name)
    data = record.attrs.get(SPACE_ATTR)
    if data is None:
        raise StudyError(
            "ask and tell need a study made by `treefarm create --space FILE`, which keeps its space, "
            f"but got {format_values(study=name)}, made without one"
        )
    return Study.load(name, space=space_from_data(data), storage=storage)


def _plain(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def cmd_ask(args: argparse.Namespace) -> int:
    with open_storage(args.storage) as storage:
        study = _study(storage, args.study)
        stored = study._record.attrs.get(BUDGET_ATTR)
        budget = args.n_trials if args.n_trials is not None else stored if isinstance(stored, int) else None
        trial = study.ask_within(budget)
        if trial is None:
            print(f"the study's budget of {budget} trials is spent", file=sys.stderr)
            return BUDGET_SPENT
        if args.json:
            print(json.dumps({"trial": trial.number, "config": dict(trial.config), "params": trial.value}))
        else:
            print(trial.number)
            for address, value in trial.config.items():
                print(f"{address} {_plain(value)}")
    return 0


def _numbers(text: str) -> list[float]:
    """Comma-separated finite numbers (one per objective, or per constraint)."""
    values = []
    for part in text.split(","):
        try:
            value = float(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected comma-separated numbers, but got {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(
                f"expected finite numbers (tell --failed REASON otherwise), but got {text!r}"
            )
        values.append(value)
    return values


def cmd_tell(args: argparse.Namespace) -> int:
    with open_storage(args.storage) as storage:
        study = _study(storage, args.study)
        if args.failed is not None:
            record = study.finish(args.trial, failure(args.failed))
        else:
            loss: float | list[float] = args.value[0] if len(args.value) == 1 else args.value
            told = loss if args.constraints is None else {"loss": loss, "constraints": args.constraints}
            record = study.tell(args.trial, told)
        shown = (
            f"value {', '.join(map(repr, args.value))}" if args.failed is None else f"failed: {args.failed}"
        )
        print(f"trial {record.number} {shown}")
    return 0


def _create_arguments(create: argparse.ArgumentParser) -> None:
    storage_argument(create)
    create.add_argument("--study", required=True)
    create.add_argument("--space", required=True, metavar="FILE", help="a .json, .yaml or .yml space file")
    algo_option(create, "optimizer (default: auto)")
    direction_options(
        create,
        default="minimize",
        several="several objectives: minimize or maximize for each (tell --value V1,V2)",
        metavar="D1,D2",
    )
    create.add_argument("--seed", type=int, default=None)
    create.add_argument(
        "--n-trials",
        type=positive_int,
        default=None,
        help="the study's budget, which ask keeps to (default: none)",
    )
    create.add_argument(
        "--skip-if-exists", action="store_true", help="reuse a study of that name with the same space"
    )


def _ask_arguments(ask: argparse.ArgumentParser) -> None:
    storage_argument(ask)
    ask.add_argument("--study", required=True)
    ask.add_argument("--json", action="store_true", help="print one JSON object: trial, config, params")
    ask.add_argument(
        "--n-trials",
        type=positive_int,
        default=None,
        help=f"budget (default: create's); exit status {BUDGET_SPENT} once the study has that many trials",
    )


def _tell_arguments(tell: argparse.ArgumentParser) -> None:
    storage_argument(tell)
    tell.add_argument("--study", required=True)
    tell.add_argument("--trial", type=int, required=True, metavar="N")
    outcome = tell.add_mutually_exclusive_group(required=True)
    outcome.add_argument(
        "--value", type=_numbers, help="the objective's value (several objectives: one per objective, V1,V2)"
    )
    outcome.add_argument("--failed", metavar="REASON", help="the trial failed, and why")
    tell.add_argument(
        "--constraints",
        type=_numbers,
        default=None,
        metavar="C1,C2",
        help="constraint values, feasible where each is <= 0 (with --value; write --constraints=-1,2 when the first is negative)",
    )


CREATE = Command(
    "create",
    "create a study from a space file (JSON or YAML), for ask and tell",
    _create_arguments,
    cmd_create,
)
ASK = Command("ask", "start a trial: print its number and configuration", _ask_arguments, cmd_ask)
TELL = Command("tell", "record a trial's value, or that it failed", _tell_arguments, cmd_tell)
