"""Ask and tell from any program: ``treefarm create``, ``ask`` and ``tell``.

    treefarm create runs.db --study sim --space space.json --n-trials 40
    treefarm ask runs.db --study sim            # the trial number, then `address value` lines
    treefarm ask runs.db --study sim --json     # {"trial": 3, "config": {...}, "params": {...}}
    treefarm tell runs.db --study sim --trial 3 --value 0.25
    treefarm tell runs.db --study sim --trial 4 --failed "solver diverged"
    treefarm tell runs.db --study two --trial 5 --value 0.25,31.0 --constraints -0.5
    treefarm create runs.db --study mf --space space.json --fidelity 1,27 --integer-fidelity --max-cost 270
    treefarm ask runs.db --study mf             # first line: the trial, its fidelity, the trial it continues or -

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

A study created with ``--fidelity LOW,HIGH`` has a :class:`~treefarm.Fidelity` (its cost
is the fidelity): each trial is asked at one fidelity, which ``ask`` prints after the trial's
number, with the number of the trial it continues (the same configuration at the rung
below, whose checkpoint the program may resume) or ``-``; ``--json`` gives them as
``fidelity`` and ``continues``. ``--max-cost`` (of ``create``, or of ``ask``) is the cost
budget, kept as ``--n-trials`` is: ``ask`` exits with status 3 once it is spent.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from ..exceptions import StudyError, format_values
from ..fidelity import Fidelity
from ..space.files import read_space_data, space_from_data
from ..storage import Storage, open_storage
from ..study import Study
from ..study.state.outcome import failure
from ..study.study import check_max_cost
from .arguments import algo_option, direction_options, positive_float, positive_int, storage_argument
from .command import Command

__all__ = ["ASK", "BUDGET_SPENT", "CREATE", "TELL"]

SPACE_ATTR = "space_file"
"""The study attribute holding the space file's contents (what ``ask`` and ``tell`` rebuild the space from)."""
BUDGET_ATTR = "n_trials"
"""The study attribute holding the budget given to ``create``."""
COST_ATTR = "max_cost"
"""The study attribute holding the cost budget given to ``create``."""
BUDGET_SPENT = 3
"""``ask``'s exit status when the study's budget is spent (a shell loop's end)."""


def cmd_create(args: argparse.Namespace) -> int:
    data = read_space_data(args.space)
    space = space_from_data(data)
    fidelity = None
    if args.fidelity is not None:
        low, high = args.fidelity
        eta = {} if args.reduction_factor is None else {"reduction_factor": args.reduction_factor}
        fidelity = Fidelity(low, high, integer=args.integer_fidelity, **eta)
    elif args.integer_fidelity or args.reduction_factor is not None:
        raise StudyError("--integer-fidelity and --reduction-factor describe a --fidelity LOW,HIGH, but got no --fidelity")
    _check_cost(args.max_cost, fidelity)
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
            fidelity=fidelity,
        )
        storage.set_study_attr(study.study_id, SPACE_ATTR, data)
        if args.n_trials is not None:
            storage.set_study_attr(study.study_id, BUDGET_ATTR, args.n_trials)
        if args.max_cost is not None:
            storage.set_study_attr(study.study_id, COST_ATTR, args.max_cost)
        print(f"study {study.name!r} in {args.storage}: {len(study.trials)} trials")
    return 0


def _check_cost(max_cost: object, fidelity: Fidelity | None) -> float | None:
    """``--max-cost``, which needs a fidelity: a trial told here reports no step, so without one
    it costs nothing and the budget would never be spent."""
    if max_cost is not None and fidelity is None:
        raise StudyError(
            f"--max-cost is spent by the trials' fidelities, but got --max-cost={max_cost!r} for a study "
            "without one (create it with --fidelity LOW,HIGH)"
        )
    return check_max_cost(max_cost, fidelity)


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
        stored_cost = study._record.attrs.get(COST_ATTR)
        study.max_cost = _check_cost(args.max_cost if args.max_cost is not None else stored_cost, study.fidelity)
        trial = study.ask_within(budget)
        if trial is None:
            cost = study.max_cost is not None and study.storage.spent_cost(study.study_id) >= study.max_cost
            said = f"cost budget of {study.max_cost:g}" if cost else f"budget of {budget} trials"
            print(f"the study's {said} is spent", file=sys.stderr)
            return BUDGET_SPENT
        at = {"fidelity": trial.fidelity, "continues": trial.continues} if study.fidelity is not None else {}
        if args.json:
            print(json.dumps({"trial": trial.number, **at, "config": dict(trial.config), "params": trial.value}))
        else:
            where = [_plain(trial.fidelity), "-" if trial.continues is None else trial.continues] if at else []
            print(trial.number, *where)
            for address, value in trial.config.items():
                print(f"{address} {_plain(value)}")
    return 0


COST_HELP = f"the cost budget, the sum of the trials' fidelities; ask exits with status {BUDGET_SPENT} once spent"


def _fidelity_bounds(text: str) -> tuple[float, float]:
    """``--fidelity LOW,HIGH``: two numbers (the :class:`~treefarm.Fidelity` checks them)."""
    bounds = _numbers(text)
    if len(bounds) != 2:
        raise argparse.ArgumentTypeError(f"expected LOW,HIGH, two numbers, but got {text!r}")
    return bounds[0], bounds[1]


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
    create.add_argument(
        "--fidelity",
        type=_fidelity_bounds,
        default=None,
        metavar="LOW,HIGH",
        help="each trial at one fidelity between LOW and HIGH (the full evaluation), chosen by successive "
        "halving; ask prints it (default: none)",
    )
    create.add_argument("--integer-fidelity", action="store_true", help="whole fidelities: epochs, rounds, samples")
    create.add_argument(
        "--reduction-factor", type=positive_int, default=None, help="of the fidelity's rungs (default: 3)"
    )
    create.add_argument("--max-cost", type=positive_float, default=None, help=COST_HELP)


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
    ask.add_argument("--max-cost", type=positive_float, default=None, help=f"{COST_HELP} (default: create's)")


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
