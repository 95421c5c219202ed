"""``treefarm run FILE.py``: optimize the objective a Python file defines, in this process."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from ..exceptions import ConfigError, TreefarmError
from ..space.chosen import Chosen
from ..storage import open_storage
from ..study import DEFAULT_STORAGE, Study
from .arguments import (
    ALLOW_SPACE_CHANGE_HELP,
    FIDELITY_HELP,
    MAX_COST_HELP,
    PRUNER_HELP,
    RETRY_DEADLINE_HELP,
    algo_option,
    deadline_option,
    direction_options,
    positive_float,
    positive_int,
)
from .command import Command, UsageError
from .loading import attribute, fidelity_from, load_file, pruner_from
from .progress import CLAIMED, Progress, own_lines
from .signals import sigterm_as_sigint

__all__ = ["COMMAND", "cmd_run"]


def _summary(study: Study, storage: str) -> None:
    counts: dict[str, int] = {}
    for t in study.trials:
        counts[t.state.value] = counts.get(t.state.value, 0) + 1
    states = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(f"study {study.name!r} in {storage}: {sum(counts.values())} trials ({states})")
    objectives = study.objectives
    if objectives.several:
        front = study.best_trials
        print(f"Pareto front ({objectives.describe()}): {len(front)} trials")
        for trial in front:
            shown = ", ".join(f"{label}={v!r}" for label, v in zip(objectives.labels, trial.values or ()))
            print(f"  trial {trial.number}: {shown} config {json.dumps(dict(trial.params))}")
        return
    best = study.best_trial
    print(f"best {objectives.label()}: {best.value!r} (trial {best.number})")
    print(f"best config: {json.dumps(dict(best.params))}")
    try:
        print(f"best params: {_shown(study.best_params)!r}")
    except ConfigError as exc:  # a space narrowed with --allow-space-change: the config above says it all
        print(f"best params: not arranged, the best trial lies outside the space as changed ({exc})")


def _shown(value: Any) -> Any:
    """Built parameters as a reader wants them: a join's option with no members as its
    label (``'adam'``, not ``Chosen('adam', {})``), one with members as ``{label: members}``."""
    if isinstance(value, Chosen):
        members = {k: _shown(v) for k, v in value.items()}
        return {value.option: members} if members else value.option
    if isinstance(value, dict):
        return {k: _shown(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_shown(v) for v in value)
    return value


def cmd_run(args: argparse.Namespace) -> int:
    module, objective_name = load_file(args.file)
    objective = attribute(module, objective_name, "the objective")
    space = attribute(module, args.space, "the space")
    storage = open_storage(args.storage, **deadline_option(args))
    try:  # closing copies a SQLite file's -wal into it: the file alone then holds every trial
        study = Study.create(
            args.study or Path(args.file.partition(":")[0]).stem,
            space=space,
            storage=storage,
            algo=args.algo,
            direction=args.direction,
            directions=args.directions,
            seed=args.seed,
            load_if_exists=True,
            allow_space_change=args.allow_space_change,
            pruner=pruner_from(module, args.pruner),
            fidelity=fidelity_from(module, args.fidelity),
        )
        return _run_study(study, objective, module, args)
    finally:
        storage.close()


def _run_study(study: Study, objective: Any, module: ModuleType, args: argparse.Namespace) -> int:
    done = study.storage.count_trials(study.study_id, states=CLAIMED)
    progress = Progress(args.n_trials, stream=sys.stderr, done=done)
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(sigterm_as_sigint())  # a terminated run fails its trials and closes
            stack.enter_context(own_lines())
            executor = _cluster(stack, args)
            if executor is not None:
                from ..execution.by_value import ByValue

                objective = ByValue(objective, module)
            study.optimize(
                objective,
                args.n_trials,
                timeout=args.timeout,
                n_jobs=args.jobs,
                callbacks=[progress],
                executor=executor,
                progress=False,
                max_cost=args.max_cost,
            )
    except KeyboardInterrupt:
        progress.close()
        print("interrupted: the running trials were recorded as failed (reason 'interrupted')", file=sys.stderr)
        with contextlib.suppress(TreefarmError):
            _summary(study, args.storage)
        return 130
    progress.close()
    _summary(study, args.storage)
    return 0


def _cluster(stack: contextlib.ExitStack, args: argparse.Namespace) -> Any:
    """The cluster ``--dask`` or ``--ray`` names, connected until ``stack`` closes; None for neither."""
    if args.dask and args.ray:
        raise UsageError(f"--dask and --ray are two clusters: give one, but got dask={args.dask!r}, ray={args.ray!r}")
    if args.dask:
        from ..execution.dask import connect

        return stack.enter_context(connect(args.dask))
    if args.ray:
        from ..execution.ray import connect as connect_ray

        return stack.enter_context(connect_ray(args.ray))
    return None


def _arguments(run: argparse.ArgumentParser) -> None:
    run.add_argument(
        "file", metavar="FILE.py[:objective]", help="a Python file, executed, that defines the objective and the space"
    )
    run.add_argument("--space", default="space", help="name of the space in the file (default: space)")
    run.add_argument("--pruner", default=None, metavar="NAME", help=PRUNER_HELP)
    algo_option(run, "optimizer (default: the study's stored one, else auto)")
    run.add_argument(
        "--n-trials",
        type=positive_int,
        default=None,
        help="the study's total trials, shared by every process running it (default: no limit)",
    )
    run.add_argument("--timeout", type=positive_float, default=None, help="seconds")
    run.add_argument("--max-cost", type=positive_float, default=None, help=MAX_COST_HELP)
    run.add_argument("--fidelity", default=None, metavar="NAME", help=FIDELITY_HELP)
    run.add_argument("--storage", default=DEFAULT_STORAGE, help=f"path or URL (default: {DEFAULT_STORAGE})")
    run.add_argument("--retry-deadline", type=positive_float, default=None, help=RETRY_DEADLINE_HELP)
    run.add_argument("--study", default=None, help="study name (default: the file's stem)")
    direction_options(
        run,
        default="stored, else minimize",
        several="several objectives, one direction each (e.g. minimize,maximize); the objective returns one value each",
        metavar="D1,D2,...",
    )
    run.add_argument("--jobs", type=positive_int, default=1, help="parallel worker processes")
    run.add_argument("--seed", type=int, default=None)
    run.add_argument("--allow-space-change", action="store_true", help=ALLOW_SPACE_CHANGE_HELP)
    run.add_argument(
        "--dask",
        default=None,
        metavar="ADDRESS",
        help="evaluate on a Dask cluster: a scheduler address (tcp://host:8786) or 'local' (pip install 'treefarm[dask]')",
    )
    run.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="evaluate on a Ray cluster: 'auto', ray://host:10001, or 'local' (the default: a cluster on this "
        "machine, stopped at the end) (pip install 'treefarm[ray]')",
    )


COMMAND = Command("run", "optimize the objective defined in a Python file", _arguments, cmd_run)
