"""``treefarm``: run an objective from a file, list and inspect studies, export trials.

    treefarm run examples/quickstart.py --n-trials 50 --algo tpe
    treefarm studies treefarm.db
    treefarm show treefarm.db --study quickstart
    treefarm export treefarm.db --study quickstart --format csv --output trials.csv
    treefarm hint treefarm.db --study quickstart --config '{"layers": 3}' --credibility 0.8
    treefarm plot treefarm.db --study quickstart --kind convergence -o convergence.png
    treefarm dashboard treefarm.db
    treefarm worker postgresql://user@host/db --study quickstart --file examples/quickstart.py
    treefarm recover treefarm-journal.jsonl treefarm.db
    treefarm create runs.db --study sim --space space.json --n-trials 40
    treefarm ask runs.db --study sim --json
    treefarm tell runs.db --study sim --trial 3 --value 0.25

A file given to ``run`` defines the objective (``objective`` unless
``FILE.py:NAME`` says otherwise) and its space (``space`` unless ``--space``
says otherwise). The files given to ``run``, ``worker`` and ``hint --space`` are
executed as Python (``worker`` without ``--file`` runs ``./STUDY.py``): run only
files you trust. Errors in arguments exit with status 2 and a message that
names the argument.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib.util
import io
import json
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from .. import __version__
from ..exceptions import TreefarmError, format_values
from ..optimizers import available
from ..pruners import Pruner
from ..storage import Storage, TrialState, open_storage
from ..study import DEFAULT_STORAGE, Study
from ..study.export import ROW_COLUMNS, trial_rows
from ..study.warm import GATE_TRIALS, gate_open, warm_source
from . import asktell, hint, recover, worker
from .arguments import ALLOW_SPACE_CHANGE_HELP, PRUNER_HELP, positive_float, positive_int
from .dashboard import DashboardUsageError
from .dashboard import add_parser as add_dashboard_parser
from .plot import PlotUsageError
from .plot import add_parser as add_plot_parser
from .progress import Progress, own_lines
from .signals import sigterm_as_sigint
from .tidy import as_found

__all__ = ["main"]

_PACKAGE = str(Path(__file__).resolve().parents[1])
"""Where treefarm's own files are: their frames are left out of a user file's error."""

CLAIMED = (TrialState.RUNNING, TrialState.COMPLETE, TrialState.FAILED, TrialState.PRUNED)
"""The states a study-wide budget counts."""


class UsageError(Exception):
    """A command-line argument is wrong."""


def _load_file(target: str) -> tuple[ModuleType, str]:
    path_text, _, name = target.partition(":")
    path = Path(path_text)
    if path.suffix != ".py" or not path.is_file():
        raise UsageError(f"FILE must be an existing .py file, but got FILE={path_text!r}")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot import FILE={path_text!r}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    sys.path.insert(0, str(path.resolve().parent))
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise FileError(_user_error(exc, path)) from None
    return module, name or "objective"


class FileError(TreefarmError):
    """The Python file a command runs raised (a syntax error, an import that failed)."""


def _user_error(exc: Exception, path: Path) -> str:
    """The error a user's file raised while it was imported, as Python would show it
    for the file alone: its own frames (none of treefarm's or importlib's), then the error."""
    frames = [
        f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith((_PACKAGE, "<frozen"))
    ]
    shown = "".join(traceback.format_list(frames)) + "".join(traceback.format_exception_only(type(exc), exc))
    return f"running {path} raised:\n" + (f"Traceback (most recent call last):\n{shown}" if frames else shown).rstrip()


def _attribute(module: ModuleType, name: str, what: str) -> Any:
    if not hasattr(module, name):
        raise UsageError(f"the file must define {what} {name!r}, but {module.__file__} has no {name!r}")
    return getattr(module, name)


def _pruner(module: ModuleType, name: str | None) -> Pruner | None:
    """The pruner the file names ``name``: a :class:`~treefarm.Pruner`, or a function
    that makes one when called without arguments; None without ``--pruner``."""
    if name is None:
        return None
    found = _attribute(module, name, "the pruner")
    made = found() if callable(found) and not isinstance(found, Pruner) else found
    if not isinstance(made, Pruner):
        raise UsageError(
            f"--pruner must name a Pruner (or a function making one) in the file, but {name!r} is {made!r}"
        )
    return made


def _summary(study: Study, storage: str) -> None:
    counts: dict[str, int] = {}
    for t in study.trials:
        counts[t.state.value] = counts.get(t.state.value, 0) + 1
    states = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(f"study {study.name!r} in {storage}: {sum(counts.values())} trials ({states})")
    best = study.best_trial
    print(f"best value: {best.value!r} (trial {best.number})")
    print(f"best config: {json.dumps(dict(best.params))}")
    print(f"best params: {study.best_params!r}")


def cmd_run(args: argparse.Namespace) -> int:
    module, objective_name = _load_file(args.file)
    objective = _attribute(module, objective_name, "the objective")
    space = _attribute(module, args.space, "the space")
    storage = open_storage(args.storage, **_deadline(args))
    try:  # closing copies a SQLite file's -wal into it: the file alone then holds every trial
        study = Study.create(
            args.study or Path(args.file.partition(":")[0]).stem,
            space=space,
            storage=storage,
            algo=args.algo,
            direction=args.direction,
            seed=args.seed,
            load_if_exists=True,
            allow_space_change=args.allow_space_change,
            pruner=_pruner(module, args.pruner),
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
            executor = None
            if args.dask:
                from ..execution.dask import ByValue, connect

                objective = ByValue(objective, module)
                executor = stack.enter_context(connect(args.dask))
            study.optimize(
                objective,
                args.n_trials,
                timeout=args.timeout,
                n_jobs=args.jobs,
                callbacks=[progress],
                executor=executor,
                progress=False,
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


def _deadline(args: argparse.Namespace) -> dict[str, Any]:
    """``--retry-deadline`` as the storage's option, when given."""
    return {} if args.retry_deadline is None else {"retry_deadline": args.retry_deadline}


RETRY_DEADLINE_HELP = (
    "seconds to ride out an outage of a database server that has answered once "
    "(default: 60; a server that never answers fails within 5 s)"
)


def _space_from(target: str) -> Any:
    """The space ``FILE.py[:NAME]`` defines (``space`` unless NAME says otherwise)."""
    module, name = _load_file(target)
    return _attribute(module, name if ":" in target else "space", "the space")


def cmd_studies(args: argparse.Namespace) -> int:
    with as_found(args.storage), open_storage(args.storage, read_only=True) as storage:
        return _list_studies(storage, args)


def _list_studies(storage: Storage, args: argparse.Namespace) -> int:
    studies = storage.list_studies()
    if not studies:
        print(f"no studies in {args.storage}")
    for s in studies:
        n = storage.count_trials(s.study_id)
        print(f"{s.name}\t{s.direction}\t{n} trials\tseed={s.seed}")
    return 0


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _table(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    cells = [[str(c) for c in columns]]
    cells += [
        ["" if r.get(c) is None else f"{r[c]:.6g}" if isinstance(r[c], float) else str(r[c]) for c in columns]
        for r in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in cells)


def _one_line(text: Any, width: int = 80) -> Any:
    if not isinstance(text, str):
        return text
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


#: The spread of a fold x replica objective (``evaluate_folds``), shown when stored.
FOLD_COLUMNS = ("user_attrs.bias", "user_attrs.variance", "user_attrs.std")


#: When a warm start's region hints count (treefarm.study.warm.gate_open), for ``show``.
GATE_HELP = (
    f"a warm start's region hints count once {GATE_TRIALS} trials are complete and while "
    "the source's best, evaluated here, ranks in the better half"
)


def cmd_show(args: argparse.Namespace) -> int:
    with as_found(args.storage), open_storage(args.storage, read_only=True, **_deadline(args)) as storage:
        return _show(storage, args)


def _show(storage: Storage, args: argparse.Namespace) -> int:
    record = storage.get_study(args.study)
    trials = storage.get_trials(record.study_id)
    rows = trial_rows(trials)
    for row in rows:
        row["reason"] = _one_line(row.get("fail_reason"))
    columns = ["number", "state", "value", "duration"]
    columns += [c for c in ("last_step", *FOLD_COLUMNS) if any(r.get(c) is not None for r in rows)]
    columns += sorted({k for r in rows for k in r if k.startswith("params.")})
    columns += ["reason"] if any(r["reason"] for r in rows) else []
    print(_table(rows[-args.last :] if args.last else rows, columns))
    counts: dict[str, int] = {}
    for t in trials:
        counts[t.state.value] = counts.get(t.state.value, 0) + 1
    print("\nstates: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    sign = 1.0 if record.direction == "minimize" else -1.0
    for h in storage.get_hints(record.study_id):
        kind = "bad" if h.weight < 0 else "good"
        source = warm_source(h.author)
        shut = source is not None and not gate_open(source, trials, sign)
        note = f"; not counted now: {GATE_HELP}" if shut else ""
        print(
            f"hint {h.hint_id} ({kind}, credibility {h.credibility:g}, by {h.author}{note}): "
            f"{json.dumps(dict(h.config))}"
        )
    complete = [t for t in trials if t.value is not None and t.state.value == "complete"]
    if complete:
        best = min(complete, key=lambda t: (sign * (t.value or 0.0), t.number))
        print(f"best: trial {best.number} value {best.value!r} config {json.dumps(dict(best.params))}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    with as_found(args.storage), open_storage(args.storage, read_only=True) as storage:
        record = storage.get_study(args.study)
        rows = trial_rows(storage.get_trials(record.study_id))
    out = io.StringIO()
    if args.format == "json":
        json.dump(rows, out, indent=1)
        out.write("\n")
    else:
        columns = list(dict.fromkeys([*ROW_COLUMNS, *(k for r in rows for k in r)]))
        writer = csv.DictWriter(out, fieldnames=columns)
        writer.writeheader()
        # a mapping or a list (a user attribute) as JSON, which a reader can parse back
        writer.writerows(
            {k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in r.items()} for r in rows
        )
    if args.output:
        target = Path(args.output)
        if not target.parent.is_dir():
            raise TreefarmError(f"--output must be in an existing folder, but got {format_values(output=args.output)}")
        target.write_text(out.getvalue())
    else:
        sys.stdout.write(out.getvalue())
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="treefarm", description=__doc__.split("\n")[0])
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="optimize the objective defined in a Python file")
    run.add_argument(
        "file", metavar="FILE.py[:objective]", help="a Python file, executed, that defines the objective and the space"
    )
    run.add_argument("--space", default="space", help="name of the space in the file (default: space)")
    run.add_argument("--pruner", default=None, metavar="NAME", help=PRUNER_HELP)
    run.add_argument(
        "--algo", default=None, choices=available(), help="optimizer (default: the study's stored one, else auto)"
    )
    run.add_argument(
        "--n-trials",
        type=positive_int,
        default=None,
        help="the study's total trials, shared by every process running it (default: no limit)",
    )
    run.add_argument("--timeout", type=positive_float, default=None, help="seconds")
    run.add_argument("--storage", default=DEFAULT_STORAGE, help=f"path or URL (default: {DEFAULT_STORAGE})")
    run.add_argument("--retry-deadline", type=positive_float, default=None, help=RETRY_DEADLINE_HELP)
    run.add_argument("--study", default=None, help="study name (default: the file's stem)")
    run.add_argument(
        "--direction", default=None, choices=["minimize", "maximize"], help="(default: stored, else minimize)"
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
    run.set_defaults(func=cmd_run)
    studies = sub.add_parser("studies", help="list the studies in a storage")
    studies.add_argument("storage")
    studies.set_defaults(func=cmd_studies)
    show = sub.add_parser("show", help="a study's trials, counts by state and best")
    show.add_argument("storage")
    show.add_argument("--study", required=True)
    show.add_argument("--last", type=positive_int, default=None, help="only the last N trials")
    show.add_argument("--retry-deadline", type=positive_float, default=None, help=RETRY_DEADLINE_HELP)
    show.set_defaults(func=cmd_show)
    export = sub.add_parser("export", help="write a study's trials as CSV or JSON")
    export.add_argument("storage")
    export.add_argument("--study", required=True)
    export.add_argument("--format", choices=["csv", "json"], default="csv")
    export.add_argument("--output", default=None, help="file (default: standard output)")
    export.set_defaults(func=cmd_export)
    hint.add_parser(sub).set_defaults(func=lambda args: hint.cmd_hint(args, _space_from))
    add_plot_parser(sub)
    add_dashboard_parser(sub)
    recover.register(sub)
    worker.register(sub)
    asktell.register(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``treefarm`` command; returns the exit status."""
    p = parser()
    args = p.parse_args(argv)
    try:
        return int(args.func(args))
    except (UsageError, PlotUsageError, DashboardUsageError) as exc:
        p.error(str(exc))
    except TreefarmError as exc:
        print(f"treefarm: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `treefarm show ... | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 1


if __name__ == "__main__":
    sys.exit(main())
