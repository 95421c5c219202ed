"""``treefarm worker STORAGE --study NAME``: a long-running worker on a shared database.

Start one on each machine that shares the storage (PostgreSQL, or a SQLite
file on one machine)::

    treefarm worker postgresql://user@db-host/treefarm --study tune --file objective.py --n-trials 500

Each worker claims trials from the study until the study-wide budget
``--n-trials`` is spent (claims are counted atomically across all workers, so
they make exactly that many trials between them), then exits with status 0.
The objective and space come from the file as in ``treefarm run`` (default
``NAME.py``). While it evaluates, the worker's heartbeat keeps its trial
alive; a worker that dies is found by any other worker's recovery, which
fails its trial and queues the configuration again. SIGTERM and Ctrl-C fail
the worker's running trial (reason ``"interrupted"``) and exit 130. The storage
rides out outages up to ``--retry-deadline`` seconds; a result it still cannot
take is kept in ``--journal`` (see ``treefarm recover``).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from types import ModuleType
from typing import Any

from ..storage import Storage, open_storage
from ..study import Study
from ..study.state.names import path_segment
from .arguments import (
    ALLOW_SPACE_CHANGE_HELP,
    FIDELITY_HELP,
    MAX_COST_HELP,
    PRUNER_HELP,
    algo_option,
    positive_float,
    positive_int,
    storage_argument,
)
from .command import Command
from .loading import attribute, fidelity_from, load_file, pruner_from
from .progress import CLAIMED, Progress, own_lines
from .signals import sigterm_as_sigint

__all__ = ["COMMAND", "cmd_worker"]


def cmd_worker(args: argparse.Namespace) -> int:
    module, objective_name = load_file(args.file or f"{path_segment(args.study)}.py")
    objective = attribute(module, objective_name, "the objective")
    space = attribute(module, args.space, "the space")
    storage = open_storage(args.storage, retry_deadline=args.retry_deadline, journal=args.journal)
    try:  # closing copies a SQLite file's -wal into it: the file alone then holds every trial
        return _work(storage, objective, space, module, args)
    finally:
        storage.close()


def _work(storage: Storage, objective: Any, space: Any, module: ModuleType, args: argparse.Namespace) -> int:
    study = Study.create(
        args.study,
        space=space,
        storage=storage,
        algo=args.algo,
        load_if_exists=True,
        allow_space_change=args.allow_space_change,
        heartbeat_interval=args.heartbeat,
        requeue_interrupted=True,
        pruner=pruner_from(module, args.pruner),
        fidelity=fidelity_from(module, args.fidelity),
    )
    done = storage.count_trials(study.study_id, states=CLAIMED)
    progress = Progress(args.n_trials, stream=sys.stderr, done=done)
    try:
        with sigterm_as_sigint(), own_lines():
            study.optimize(
                objective,
                args.n_trials,
                timeout=args.timeout,
                callbacks=[progress],
                progress=False,
                max_cost=args.max_cost,
            )
    except KeyboardInterrupt:
        progress.close()
        print("interrupted: this worker's running trial was recorded as failed", file=sys.stderr)
        return 130
    progress.close()
    total = storage.count_trials(study.study_id, states=CLAIMED)
    with contextlib.suppress(Exception):
        print(f"study {study.name!r}: {total} trials claimed; best value {study.best_value!r}")
    return 0


def _arguments(worker: argparse.ArgumentParser) -> None:
    storage_argument(worker, "path or URL of the shared storage")
    worker.add_argument("--study", required=True, help="the study's name (created if absent)")
    worker.add_argument(
        "--file", default=None, metavar="FILE.py[:objective]", help="a Python file, executed, defining the objective and space (default: ./STUDY.py)"
    )
    worker.add_argument("--space", default="space", help="name of the space in the file (default: space)")
    worker.add_argument("--pruner", default=None, metavar="NAME", help=PRUNER_HELP)
    algo_option(worker, "optimizer of a new study (default: stored, else auto)")
    worker.add_argument("--allow-space-change", action="store_true", help=ALLOW_SPACE_CHANGE_HELP)
    worker.add_argument(
        "--n-trials",
        type=positive_int,
        default=None,
        help="the study's total trials, shared by every worker (default: until stopped)",
    )
    worker.add_argument("--timeout", type=positive_float, default=None, help="seconds this worker runs")
    worker.add_argument("--max-cost", type=positive_float, default=None, help=MAX_COST_HELP)
    worker.add_argument("--fidelity", default=None, metavar="NAME", help=FIDELITY_HELP)
    worker.add_argument("--heartbeat", type=positive_float, default=10.0, help="seconds between heartbeats")
    worker.add_argument(
        "--retry-deadline", type=positive_float, default=60.0, help="seconds to ride out a storage outage"
    )
    worker.add_argument(
        "--journal",
        default="treefarm-journal.jsonl",
        help="file keeping results the storage could not take (default: treefarm-journal.jsonl)",
    )


COMMAND = Command(
    "worker", "claim and evaluate a shared study's trials until its budget is spent", _arguments, cmd_worker
)
