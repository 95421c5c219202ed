"""Resumable, parallel benchmark runs: one process per run, one JSON line per run.

Every (problem, method, seed, budget) run executes in a fresh interpreter
(``python -m bench one ...``) with a wall-clock cap, so a crash, a hang or a
peer that is not installed becomes a recorded row with its error, never a
dead benchmark. Rows are appended to a JSON-lines file as runs finish; a
rerun skips every key already in the file, so an interrupted benchmark
resumes where it stopped.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .methods import CannotExpressError, NotAvailableError, run
from .paths import ROOT
from .problems import all_problems

Key = tuple[str, str, int, int]


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a results file, one per key (a torn line from a killed run
    is skipped; when two runners recorded the same key, the last row wins)."""
    if not path.exists():
        return []
    rows: dict[Key, dict[str, Any]] = {}
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        rows[key_of(row)] = row
    return list(rows.values())


def key_of(row: dict[str, Any]) -> Key:
    return (row["problem"], row["method"], int(row["seed"]), int(row["budget"]))


def run_one(problem: str, method: str, seed: int, budget: int) -> dict[str, Any]:
    """One run in this process: the row to record (``status`` ok, cannot,
    unavailable (a missing treefarm optimizer or peer library) or error)."""
    row: dict[str, Any] = {"problem": problem, "method": method, "seed": seed, "budget": budget}
    start = time.perf_counter()
    try:
        result = run(method, all_problems()[problem], seed, budget)
        row.update(status="ok", **result)
    except CannotExpressError as exc:
        row.update(status="cannot", error=str(exc))
    except NotAvailableError as exc:
        row.update(status="unavailable", error=str(exc))
    except ImportError as exc:
        row.update(status="unavailable", error=f"not installed: {exc}")
    except Exception as exc:  # a failing method is a recorded row, not a dead benchmark
        row.update(
            status="error", error=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc()[-2000:]
        )
    row["wall"] = time.perf_counter() - start
    row["commit"] = head_commit()
    row["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return row


def head_commit() -> str:
    """The repository's HEAD (the treefarm code a run used; the tree is edited while benchmarks run)."""
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    )
    return done.stdout.strip()


def _child(key: Key, timeout: float) -> dict[str, Any]:
    problem, method, seed, budget = key
    cmd = [sys.executable, "-m", "bench", "one", problem, method, str(seed), str(budget)]
    base = {"problem": problem, "method": method, "seed": seed, "budget": budget}
    try:
        done = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=ROOT,
            env={**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"},
        )
    except subprocess.TimeoutExpired:
        return {**base, "status": "error", "error": f"timed out after {timeout:g} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {**base, "status": "error", "error": f"exit {done.returncode}: {done.stderr[-1500:]}"}
    return json.loads(lines[-1])


def run_all(
    keys: Iterable[Key], out: Path, *, jobs: int = 2, timeout: float = 3600.0, in_process: bool = False
) -> int:
    """Run every key not yet in ``out``, ``jobs`` at a time; returns how many ran.

    ``in_process`` runs the keys one after another in this interpreter, without
    the wall-clock cap: for methods of a second or less, where starting an
    interpreter per run costs more than the run (the rows are the same)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    done = {key_of(r) for r in read_rows(out)}
    todo = [k for k in keys if k not in done]
    lock = threading.Lock()

    def work(key: Key) -> None:
        row = run_one(*key) if in_process else _child(key, timeout)
        with lock, out.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        losses = row.get("losses") or [float("nan")]
        print(
            f"{key[0]:22s} {key[1]:14s} seed={key[2]:<3d} {row['status']:6s} best={min(losses):.6g}",
            flush=True,
        )

    if in_process:
        for key in todo:
            work(key)
        return len(todo)
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(work, todo))
    return len(todo)
