"""``treefarm export STORAGE --study NAME``: write a study's trials as CSV or JSON."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys

from ..fidelity import stored_full_fidelity
from ..storage import open_storage
from ..study.state.rows import ROW_COLUMNS, trial_rows, value_columns
from .arguments import storage_argument
from .command import Command
from .output import output_file
from .tidy import as_found

__all__ = ["COMMAND", "cmd_export"]


def cmd_export(args: argparse.Namespace) -> int:
    target = None if args.output is None else output_file(args.output, option="--output", storages=[args.storage])
    with as_found(args.storage) as location, open_storage(location) as storage:
        record = storage.get_study(args.study)
        full = stored_full_fidelity(record.attrs)
        rows = trial_rows(storage.get_trials(record.study_id), record.objectives, full_fidelity=full)
    out = io.StringIO()
    if args.format == "json":
        json.dump(rows, out, indent=1)
        out.write("\n")
    else:
        columns = list(dict.fromkeys([*ROW_COLUMNS, *value_columns(record.objectives), *(k for r in rows for k in r)]))
        writer = csv.DictWriter(out, fieldnames=columns)
        writer.writeheader()
        # a mapping or a list (a user attribute) as JSON, which a reader can parse back
        writer.writerows(
            {k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in r.items()} for r in rows
        )
    if target is not None:
        target.write_text(out.getvalue())
    else:
        sys.stdout.write(out.getvalue())
    return 0


def _arguments(export: argparse.ArgumentParser) -> None:
    storage_argument(export)
    export.add_argument("--study", required=True)
    export.add_argument("--format", choices=["csv", "json"], default="csv")
    export.add_argument("--output", default=None, help="file (default: standard output)")


COMMAND = Command("export", "write a study's trials as CSV or JSON", _arguments, cmd_export)
