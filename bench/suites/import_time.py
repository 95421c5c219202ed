"""``import treefarm`` against ``import optuna``: seconds to import in a fresh interpreter.

Each library is imported ``--runs`` times, each in a new interpreter
(``python -c "import X"``), alternating the libraries so that a busy moment of
the machine costs both; the wall and the CPU seconds (user and system: the
figure that holds on a loaded machine) of the whole process are timed, and
an empty interpreter's (``python -c "pass"``) median is the start-up taken off.
Every library's bytecode is compiled once, before the runs, into one temporary
cache (``PYTHONPYCACHEPREFIX``), as an installed package has it.
Each row records the commit of the treefarm measured (``treefarm_commit``), so
that rows of two commits, run on one machine together, compare.
``python -X importtime``, in a second interpreter per run, gives the
cumulative microseconds of the library's top-level import and the number of
modules it loads (the table: medians). One
JSON line per library and run appends to ``--out``; the table prints medians.

    python -m bench.suites.import_time --runs 20 --out bench/results/import_time.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

LIBRARIES = ("treefarm", "optuna")


#: The children's environment: bytecode written and read (as an installed package has it),
#: every library's in one cache folder (set by :func:`main`), so that a source checkout
#: and a site-packages install are compared alike.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def python(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True, env=ENV)


def seconds(code: str) -> tuple[float, float]:
    """The wall and the CPU seconds (user and system) of a fresh interpreter running ``code``."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    python(["-c", code])
    wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_profile(library: str) -> dict[str, Any]:
    """``-X importtime``'s cumulative microseconds for ``library`` and the modules it loads."""
    code = f"import sys, {library}; print(len(sys.modules))"
    out = python(["-X", "importtime", "-c", code])
    cumulative = next(
        int(line.split("|")[1])
        for line in out.stderr.splitlines()
        if line.startswith("import time:") and line.split("|")[2].strip() == library
    )
    baseline = python(["-c", "import sys; print(len(sys.modules))"])
    return {"importtime_us": cumulative, "modules": int(out.stdout) - int(baseline.stdout)}


def source_commit() -> str:
    """The commit of the treefarm imported (``+`` when its files differ from it)."""
    import treefarm

    folder = Path(treefarm.__file__).parent
    git = ["git", "-C", str(folder)]
    commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run([*git, "status", "--porcelain", "."], capture_output=True, text=True).stdout.strip()
    return commit + ("+" if dirty else "") if commit else "unknown"


def measure(runs: int, commit: str | None = None) -> list[dict[str, Any]]:
    """One row per library and run: the run's wall seconds less the empty interpreter's
    median, and a second interpreter's ``-X importtime`` profile."""
    versions = {library: python(["-c", f"import {library}; print({library}.__version__)"]).stdout.strip() for library in LIBRARIES}
    empties = [seconds("pass") for _ in range(runs)]
    empty_wall, empty_cpu = (statistics.median(column) for column in zip(*empties))
    commit = commit or source_commit()
    rows: list[dict[str, Any]] = []
    for run in range(runs):
        for library in LIBRARIES:
            wall, cpu = seconds(f"import {library}")
            rows.append(
                {"library": library, "version": versions[library], "treefarm_commit": commit, "run": run,
                 "seconds": wall - empty_wall, "cpu_seconds": cpu - empty_cpu, "interpreter_seconds": empty_wall,
                 **import_profile(library), "python": sys.version.split()[0]}
            )
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| library | version | treefarm commit | runs | wall s median | min | max | CPU s median | min | max "
        "| -X importtime s | modules |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for key in sorted({(r["library"], r["treefarm_commit"]) for r in rows}):
        mine = [r for r in rows if (r["library"], r["treefarm_commit"]) == key]
        wall, cpu = [r["seconds"] for r in mine], [r["cpu_seconds"] for r in mine]
        lines.append(
            f"| {key[0]} | {mine[0]['version']} | {key[1]} | {len(mine)} | {statistics.median(wall):.3f} | {min(wall):.3f} "
            f"| {max(wall):.3f} | {statistics.median(cpu):.3f} | {min(cpu):.3f} | {max(cpu):.3f} | {statistics.median(r['importtime_us'] for r in mine) / 1e6:.3f} | {mine[0]['modules']} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--out", type=Path, help="append the rows here (JSON lines)")
    parser.add_argument("--commit", help="the commit to record, for a treefarm exported without git")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        ENV["PYTHONPYCACHEPREFIX"] = cache
        rows = measure(args.runs, args.commit)
    if args.out:
        with args.out.open("a") as handle:
            handle.writelines(json.dumps(row) + "\n" for row in rows)
        rows = [json.loads(line) for line in args.out.read_text().splitlines() if line.strip()]
    print(table(rows))


if __name__ == "__main__":
    main()
