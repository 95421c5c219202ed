"""Multi-fidelity optimization: the best full-fidelity value against the total cost spent.

Problems: :mod:`bench.harness.fidelity_problems` (published synthetic
functions with their fidelity terms, variants whose low fidelities mislead,
and tabulated learning curves of real training; :data:`HELD_OUT` kept out of
every design choice, :data:`HELD_OUT_LATER` added once the design was done).
Methods: :mod:`bench.harness.fidelity_methods`.

Each (problem, method, seed, max_cost) run is one process (``one``), its row
one JSON line appended to ``--out``; ``run`` skips the keys already there, so
an interrupted benchmark resumes. Costs are full-evaluation equivalents; the
measure is the simple regret of the best full-fidelity value within 10, 30
and 100 of them (:func:`bench.harness.fidelity_methods.best_at`).

Which rows a method's cells read: the files of :data:`FILES` in their order, a later
file's row replacing an earlier one's for the same run (the newest code's), and for the
cells at a cost, each seed's run with the smallest budget reaching it (:func:`finals_at`).

``python -m bench.suites.fidelity report FILE...`` prints the anytime tables
(median regret and wins/losses beyond noise at each cost), the low
fidelities' rank correlations and the time per suggestion as a study grows.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from ..harness.fidelity_problems import (
    ALL_HELD_OUT,
    HELD_OUT,
    HELD_OUT_FOURTH,
    HELD_OUT_LATER,
    HELD_OUT_THIRD,
    PROBLEMS,
)
from ..harness.paths import RESULTS, ROOT
from ..harness.spread import joined, spread_notes
from ..harness.suite import Finals, Suite, lines

COSTS = (10, 30, 100)
#: The cost of the report's table (the issue's criterion); the others are in the notes.
COST = 30
#: The suite's rows, oldest code first: where two files hold the same run (problem, method, seed,
#: budget), the later file's row is read (:func:`rows`), so a method rerun with newer code goes in a
#: new file at the end. ``fidelity_new*.jsonl`` (``tf-auto-fidelity`` at the merge of its branches)
#: are left out: every run in them was rerun with the code as shipped (``fidelity_after.jsonl``,
#: ``fidelity_curves_after.jsonl``). ``fidelity_cont_*.jsonl``: ``tf-auto-fidelity`` once its rungs continue
#: the model's pick (``auto``'s ``promotions="model"``, the default since; run as
#: ``tf-auto-fidelity-model`` at dfdab1a, the same trials, and relabelled: ``ran_as`` in each row).
#: ``fidelity_checks5_100.jsonl``: ``tf-auto-fidelity`` to 100 with five checks, in place of the runs to
#: 100 of the older counts. ``fidelity_fourth.jsonl``: every method on the problems added last.
FILES = ("fidelity.jsonl", "fidelity_auto.jsonl", "fidelity_hb.jsonl", "fidelity_synetune.jsonl",
         "fidelity_after.jsonl", "fidelity_curves_after.jsonl", "fidelity_svc.jsonl", "fidelity_smac.jsonl",
         "fidelity_100.jsonl", "fidelity_auto_100.jsonl", "fidelity_mislead_checks_promoted.jsonl",
         "fidelity_checks_heldout.jsonl", "fidelity_checks_100.jsonl", "fidelity_svc_today.jsonl",
         "fidelity_cont_design.jsonl", "fidelity_cont_heldout.jsonl", "fidelity_cont_svc.jsonl",
         "fidelity_neps.jsonl", "fidelity_rosenbrock.jsonl", "fidelity_rosenbrock_100.jsonl",
         "fidelity_rastrigin8.jsonl", "fidelity_checks5_design.jsonl", "fidelity_checks5_heldout.jsonl",
         "fidelity_third.jsonl", "fidelity_checks5_100.jsonl", "fidelity_fourth.jsonl")
COLUMNS = ("tf-auto-fidelity", "tf-auto-full", "tf-random-full", "tf-auto-hyperband", "optuna-tpe-hyperband",
           "optuna-tpe-sha", "dehb", "smac-mf", "synetune-bohb", "neps-hyperband", "neps-priorband")
#: The method the others are tested against: ``auto`` with fidelities.
OURS = "tf-auto-fidelity"
#: The benchmark's interpreter: a venv with the peers (bench/notes/fidelity.md).
PYTHON = "/work/venvs/bench56/bin/python"
Key = tuple[str, str, int, int]


def key_of(row: dict[str, Any]) -> Key:
    return (row["problem"], row["method"], int(row["seed"]), int(row["max_cost"]))


def rows(files: Iterable[str | Path] = FILES) -> list[dict[str, Any]]:
    """One row per key from ``files`` (names in bench/results/, or paths), read in their order:
    a later row of the same key replaces an earlier one (so a later file's rows, the newer
    code's, replace an earlier file's), except that a failed row never hides one that ran."""
    out: dict[Key, dict[str, Any]] = {}
    for f in files:
        path = Path(f) if Path(f).exists() else RESULTS / f
        if not path.exists():
            continue
        for r in lines(path):
            key = key_of(r)
            if r["status"] == "ok" or out.get(key, {}).get("status") != "ok":
                out[key] = r
    return list(out.values())


def one(problem: str, method: str, seed: int, max_cost: int) -> dict[str, Any]:
    """The row of one run in this process (``commit``: the treefarm code it ran, ``TREEFARM_AT``
    when the runner gave it a snapshot of another commit, else this repository's HEAD)."""
    import traceback

    from ..harness.fidelity_methods import run
    from ..harness.fidelity_problems import problems
    from ..harness.methods import NotAvailableError
    from ..harness.runner import head_commit

    row: dict[str, Any] = {"problem": problem, "method": method, "seed": seed, "max_cost": max_cost}
    start = time.perf_counter()
    try:
        row.update(status="ok", **run(method, problems()[problem], seed, max_cost))
    except (ImportError, NotAvailableError) as exc:  # a peer's library or its own interpreter (NePS) missing
        row.update(status="unavailable", error=f"not installed: {exc}")
    except Exception as exc:  # a failing method is a recorded row, not a dead benchmark
        row.update(status="error", error=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc()[-1500:])
    row["wall"] = round(time.perf_counter() - start, 2)
    row["commit"] = os.environ.get("TREEFARM_AT") or head_commit()
    return row


def snapshot(commit: str) -> Path:
    """treefarm's ``src`` at ``commit``, unpacked once under /tmp (a run of today's treefarm while
    the branch moves on)."""
    target = Path(f"/tmp/treefarm-{commit}")
    if not (target / "src" / "treefarm").exists():
        target.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", commit, "src"], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target / "src"


def _child(key: Key, timeout: float, treefarm_at: str | None) -> dict[str, Any]:
    problem, method, seed, max_cost = key
    cmd = [sys.executable, "-m", "bench.suites.fidelity", "one", problem, method, str(seed), str(max_cost)]
    base = {"problem": problem, "method": method, "seed": seed, "max_cost": max_cost}
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    if treefarm_at:
        env.update(TREEFARM_AT=treefarm_at, PYTHONPATH=f"{snapshot(treefarm_at)}{os.pathsep}{ROOT}")
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)
    except subprocess.TimeoutExpired:
        return {**base, "status": "error", "error": f"timed out after {timeout:g} s"}
    found = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not found:
        return {**base, "status": "error", "error": f"exit {done.returncode}: {done.stderr[-1500:]}"}
    return json.loads(found[-1])


def run_all(keys: Sequence[Key], out: Path, jobs: int, timeout: float, *, treefarm_at: str | None = None,
            in_process: bool = False) -> None:
    """Every key ``out`` lacks (or holds as an error), ``jobs`` processes at a time; ``in_process``
    runs them one after another in this interpreter (for the peers, whose runs take seconds)."""
    import threading

    done = {key_of(r) for r in rows([out]) if r["status"] != "error"} if out.exists() else set()
    todo = [k for k in keys if k not in done]
    lock = threading.Lock()

    def work(key: Key) -> None:
        row = one(*key) if in_process else _child(key, timeout, treefarm_at)
        with lock, out.open("a") as fh:
            fh.write(json.dumps(row) + "\n")
        print(*key, row["status"], row.get("wall", ""), row.get("error", "")[:200], flush=True)

    if in_process:
        for key in todo:
            work(key)
        return
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(work, todo))


# --------------------------------------------------------------------------- measures


def regret_at(row: dict[str, Any], cost: float) -> float:
    from ..harness.fidelity_methods import best_at
    from ..harness.fidelity_problems import problems

    return best_at(row["events"], cost) - problems()[row["problem"]].optimum


def finals_at(cost: float, files: Iterable[str | Path] = FILES, *, held_out: bool | None = None) -> Finals:
    """(problem, method) -> seed -> regret of the best full-fidelity value within ``cost``, read
    from the seed's run with the smallest budget that reaches ``cost`` (a run to 30 for the
    30 column even where a run to 100 exists: a method may plan by its budget)."""
    chosen: dict[tuple[str, str, int], dict[str, Any]] = {}
    for r in rows(files):
        if r["status"] != "ok" or r["max_cost"] < cost:
            continue
        if held_out is not None and (r["problem"] in ALL_HELD_OUT) != held_out:
            continue
        at = (r["problem"], r["method"], int(r["seed"]))
        if at not in chosen or r["max_cost"] < chosen[at]["max_cost"]:
            chosen[at] = r
    out: Finals = {}
    for (problem, method, seed), r in chosen.items():
        out.setdefault((problem, method), {})[seed] = regret_at(r, cost)
    return out


def held_out_label(problem: str) -> str:
    if problem in HELD_OUT_FOURTH:
        return " (held out, added last)"
    if problem in HELD_OUT_THIRD:
        return " (held out, added with five checks)"
    return " (held out)" if problem in HELD_OUT else " (held out, added later)" if problem in HELD_OUT_LATER else ""


MISLEADING = ("branin_mislead", "hartmann3_mislead", "hartmann6_noise", "rastrigin8_mislead")


def criteria(files: Iterable[str | Path] = FILES, *, held_out: bool | None = None,
             cost: float = COST) -> list[dict[str, Any]]:
    """Per problem, the issue's criteria for :data:`OURS` at ``cost``: against the best other
    method's median (worse / no worse / better beyond noise), whether its median at half the cost
    reaches that best median, and (low fidelities that mislead) its verdict against ``tf-auto-full``."""
    from ..harness.summary import verdict

    files = tuple(files)
    at, half = finals_at(cost, files, held_out=held_out), finals_at(cost / 2, files, held_out=held_out)
    out = []
    for p in sorted({p for p, m in at if m == OURS}, key=PROBLEMS.index):
        others = {m: float(np.median(list(v.values()))) for (pp, m), v in at.items() if pp == p and m != OURS}
        if not others:
            continue
        best = min(others, key=lambda m: others[m])
        ours_half = float(np.median(list(half[(p, OURS)].values())))
        vs_full = verdict(at, p, "tf-auto-full", OURS) if (p, "tf-auto-full") in at else 0
        out.append({"problem": p, "ours": float(np.median(list(at[(p, OURS)].values()))), "best": best,
                    "best_median": others[best], "vs_best": verdict(at, p, best, OURS),
                    "half_cost": ours_half <= others[best], "vs_auto_full": vs_full})
    return out


def counts(rows_: list[dict[str, Any]]) -> tuple[int, int, int]:
    """The problems where :data:`OURS` is no worse, better (beyond noise), and reaches at half the cost."""
    return (sum(r["vs_best"] >= 0 for r in rows_), sum(r["vs_best"] > 0 for r in rows_),
            sum(r["half_cost"] for r in rows_))


def criteria_text(rows_: list[dict[str, Any]], cost: float = COST) -> str:
    """One line of counts (a verdict of +1: the other is worse than ours beyond noise)."""
    if not rows_:
        return ""
    n = len(rows_)
    no_worse, better, half = counts(rows_)
    text = (f"{OURS} against the best other method of each problem at {cost:g}: no worse beyond noise on "
            f"{no_worse}/{n}, better on {better}/{n}; its median at {cost / 2:g} reaches that method's at "
            f"{cost:g} on {half}/{n}")
    misleading = [r for r in rows_ if r["problem"] in MISLEADING]
    if misleading:
        ok = sum(r["vs_auto_full"] >= 0 for r in misleading)
        text += f"; no worse than tf-auto-full on {ok}/{len(misleading)} problems whose low fidelities mislead"
    return text + "."


def held_out_text(rows_: list[dict[str, Any]], cost: float = COST) -> str:
    """The held-out criteria over all of them, then each group's three counts: held out from the start,
    added later, added with five checks, added last."""
    groups = [("held out from the start", HELD_OUT), ("added later", HELD_OUT_LATER),
              ("added with five checks", HELD_OUT_THIRD), ("added last", HELD_OUT_FOURTH)]
    parts = [(name, [r for r in rows_ if r["problem"] in members]) for name, members in groups]
    said = [f"{name} " + ", ".join(f"{k}/{len(part)}" for k in counts(part)) for name, part in parts if part]
    text = f"All held out: {criteria_text(rows_, cost)}"
    return text + (f" By group (no worse, better, half the cost): {'; '.join(said)}." if said else "")


def notes(held_out: bool) -> Any:
    """The issue's criteria under the table (the other costs are in the notes page)."""
    def text(_finals: Finals) -> str:
        found = criteria(held_out=held_out)
        return held_out_text(found) if held_out else criteria_text(found)
    return text


COMMANDS = (
    "python -m bench.harness.fidelity_tables",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods "
    "tf-random-full,optuna-tpe-hyperband,optuna-tpe-sha,dehb --in-process --out bench/results/fidelity.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods tf-auto-full --treefarm-at 0abf63e "
    "--out bench/results/fidelity_auto.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods tf-auto-hyperband --treefarm-at 0abf63e "
    "--out bench/results/fidelity_hb.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods synetune-bohb --in-process "
    "--out bench/results/fidelity_synetune.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods tf-auto-fidelity --problems "
    "hartmann6_noise,branin_mislead,hartmann3_mislead,borehole,hartmann6,branin,hartmann3,currin "
    "--out bench/results/fidelity_after.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods tf-auto-fidelity --problems "
    "lgbm_diabetes_rounds,mlp_wine_epochs,hgb_cancer_rounds,sgd_digits_epochs "
    "--out bench/results/fidelity_curves_after.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods tf-auto-fidelity --problems "
    "svc_digits_subset --out bench/results/fidelity_svc.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods smac-mf --problems "
    "lgbm_diabetes_rounds,mlp_wine_epochs,hartmann6_noise,borehole,hartmann6 --out bench/results/fidelity_smac.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 100 --methods "
    "tf-random-full,optuna-tpe-hyperband,optuna-tpe-sha,dehb --in-process --problems hartmann6_noise,borehole,hartmann6 "
    "--out bench/results/fidelity_100.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 100 --methods tf-auto-full --treefarm-at 0abf63e "
    "--problems hartmann6_noise,borehole,hartmann6 --out bench/results/fidelity_auto_100.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods tf-auto-fidelity --problems "
    "hartmann3_mislead,branin_mislead,branin,currin,hartmann3,park1 --out bench/results/fidelity_mislead_checks_promoted.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods tf-auto-fidelity --problems "
    "hartmann6_noise,borehole,hartmann6 --out bench/results/fidelity_checks_heldout.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 100 --methods tf-auto-fidelity --problems "
    "borehole,hartmann6,hartmann6_noise --out bench/results/fidelity_checks_100.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods tf-auto-fidelity --treefarm-at f1703b5 "
    "--problems branin,currin,park1,hartmann3,branin_mislead,hartmann3_mislead "
    "--out bench/results/fidelity_cont_design.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods tf-auto-fidelity --treefarm-at f1703b5 "
    "--problems borehole,hartmann6,hartmann6_noise,lgbm_diabetes_rounds,mlp_wine_epochs "
    "--out bench/results/fidelity_cont_heldout.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods tf-auto-fidelity --treefarm-at 24d9ff5 "
    "--problems svc_digits_subset --out bench/results/fidelity_cont_svc.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods tf-auto-fidelity --problems "
    "svc_digits_subset --out bench/results/fidelity_svc_today.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods neps-hyperband,neps-priorband --problems "
    "borehole,hartmann6,hartmann6_noise,lgbm_diabetes_rounds,mlp_wine_epochs,branin,currin,park1,hartmann3,"
    "branin_mislead,hartmann3_mislead,hgb_cancer_rounds,sgd_digits_epochs,svc_digits_subset "
    "--out bench/results/fidelity_neps.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --problems rosenbrock6,rosenbrock10 "
    "--treefarm-at 2baa7de --jobs 2 --out bench/results/fidelity_rosenbrock.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 100 --problems rosenbrock6,rosenbrock10 "
    "--treefarm-at 2baa7de --jobs 2 --out bench/results/fidelity_rosenbrock_100.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --problems rastrigin8,rastrigin8_mislead "
    "--out bench/results/fidelity_rastrigin8.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods tf-auto-fidelity --treefarm-at 2a7b1d3 "
    "--problems rastrigin8,rastrigin8_mislead --out bench/results/fidelity_checks5_design.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --methods tf-auto-fidelity --treefarm-at 2a7b1d3 "
    "--problems borehole,hartmann6,hartmann6_noise,lgbm_diabetes_rounds,mlp_wine_epochs,rosenbrock6,rosenbrock10 "
    "--out bench/results/fidelity_checks5_heldout.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --problems trid10,lgbm_cancer_rounds "
    "--treefarm-at 2a7b1d3 --out bench/results/fidelity_third.jsonl",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 100 --methods tf-auto-fidelity --treefarm-at 3fd8cf8 "
    "--problems rosenbrock6,hartmann6,hartmann6_noise,borehole,rosenbrock10 --out bench/results/fidelity_checks5_100.jsonl",
    "python -m bench.harness.fidelity_tables lgbm_friedman_rounds mlp_digits_epochs svr_friedman_subset",
    "python -m bench.suites.fidelity run --seeds 10 --max-cost 30 --jobs 2 --problems "
    "lgbm_friedman_rounds,mlp_digits_epochs,svr_friedman_subset --treefarm-at 3bfe7bb "
    "--out bench/results/fidelity_fourth.jsonl",
)
ABOUT = ("Published synthetic functions with their fidelity terms, variants whose low fidelities mislead, and "
         "tabulated learning curves of real training (bench/notes/fidelity.md); the tables read runs of 30 "
         "full-evaluation equivalents (the notes have 10 and, on five held-out problems, 100).")
MEASURE = f"regret of the best full-fidelity value within {COST} full-evaluation equivalents"
SUITES = (
    Suite("fidelity", "Multi-fidelity: best value against cost", ABOUT, MEASURE, OURS, COLUMNS, FILES, COMMANDS,
          lambda: finals_at(COST, held_out=False), notes=joined(notes(False), spread_notes(OURS, COLUMNS, full=False))),
    Suite("fidelity-held-out", "Multi-fidelity, held-out problems",
          f"The multi-fidelity problems kept out of every design choice ({', '.join(HELD_OUT)}; added once the "
          f"design was done, before any method ran on them: {', '.join(HELD_OUT_LATER)}; added once the checks "
          f"were made five, before any method ran on them: {', '.join(HELD_OUT_THIRD)}; added last, real training "
          f"of the shapes the held-out part lacked: {', '.join(HELD_OUT_FOURTH)}).", MEASURE, OURS,
          COLUMNS, FILES, COMMANDS, lambda: finals_at(COST, held_out=True), held_out=True,
          notes=joined(notes(True), spread_notes(OURS, COLUMNS, full=False))),
)


# --------------------------------------------------------------------------- report


def anytime_table(files: Sequence[str | Path], cost: float, *, against: str = OURS,
                  only: Sequence[str] | None = None) -> str:
    """Median regret within ``cost`` per problem and method (``only`` these methods, where given),
    each cell marked where it is worse or better than ``against`` beyond noise."""
    from ..harness.summary import verdict

    finals = finals_at(cost, files)
    if only is not None:
        finals = {k: v for k, v in finals.items() if k[1] in only}
    methods = sorted({m for _, m in finals}, key=lambda m: (COLUMNS.index(m) if m in COLUMNS else 99, m))
    out = [f"Regret within {cost:g} full-evaluation equivalents (median [95 % interval], seeds); "
           f"▲/▼ worse/better than {against} beyond noise:", "",
           "| problem | " + " | ".join(methods) + " |", "|---" * (len(methods) + 1) + "|"]
    for p in sorted({p for p, _ in finals}, key=lambda p: (p in ALL_HELD_OUT, PROBLEMS.index(p))):
        cells = []
        for m in methods:
            seeds = finals.get((p, m))
            mark = ""
            if seeds and m != against and (p, against) in finals:
                mark = {1: " ▲", -1: " ▼", 0: ""}[verdict(finals, p, m, against)]
            cells.append(median_cell(seeds, ",") + mark)
        out.append(f"| {p}{held_out_label(p)} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def median_cell(seeds: dict[int, float] | None, sep: str = ", ") -> str:
    """A table cell of a method's finals on one problem: the median, its 95 % interval and the
    number of seeds ("·" without any)."""
    from ..harness.summary import fmt, median_interval

    if not seeds:
        return "·"
    v = np.array(list(seeds.values()))
    lo, hi = median_interval(v)
    return f"{fmt(float(np.median(v)))} [{fmt(lo)}{sep}{fmt(hi)}] ({len(v)})"


def suggestion_table(files: Sequence[str | Path], marks: Sequence[int] = (10, 30, 100, 300, 1000)) -> str:
    """Median milliseconds of a method's own work per suggestion, by the number of suggestions made."""
    by: dict[str, list[list[float]]] = {}
    for r in rows(files):
        # rows before the clock's second version missed Optuna's suggest_* calls and the first suggestion
        if r["status"] == "ok" and r["max_cost"] == COST and (r.get("clock") == 2 or not r["method"].startswith("optuna")):
            by.setdefault(r["method"], []).append(r["suggest_ms"])
    out = ["| method | evaluations per run (median) | " + " | ".join(f"ms at #{m}" for m in marks) + " |",
           "|---" * (len(marks) + 2) + "|"]
    for m in sorted(by, key=lambda m: (COLUMNS.index(m) if m in COLUMNS else 99, m)):
        laps = by[m]
        cells = []
        for k in marks:
            around = [float(np.median(lap[max(0, k - 5):k + 5])) for lap in laps if len(lap) >= k]
            cells.append(f"{np.median(around):.1f} ({len(around)})" if around else "·")
        out.append(f"| {m} | {np.median([len(lap) + 1 for lap in laps]):.0f} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def correlation_table() -> str:
    from ..harness.fidelity_problems import problems, rank_correlation

    out = ["| problem | shape | Spearman at step 1 | 3 | 9 |", "|---|---|---|---|---|"]
    for name, p in problems().items():
        rho = [rank_correlation(p, s, n=500) for s in (1, 3, 9)]
        out.append(f"| {name} | {p.shape} | " + " | ".join(f"{r:.2f}" for r in rho) + " |")
    return "\n".join(out)


def criteria_table(files: Sequence[str | Path], cost: float = COST) -> str:
    marks = {1: "better", -1: "worse", 0: "no worse"}
    out = [f"| problem | {OURS} | best other | its median | {OURS} vs it | at half the cost | vs tf-auto-full |",
           "|---|---|---|---|---|---|---|"]
    for r in criteria(files, cost=cost):
        out.append(f"| {r['problem']}{held_out_label(r['problem'])} | {r['ours']:.4g} | {r['best']} | {r['best_median']:.4g} | "
                   f"{marks[r['vs_best']]} | {'reached' if r['half_cost'] else 'not reached'} | "
                   f"{marks[r['vs_auto_full']]} |")
    for held_out in (False, True):
        found = criteria(files, held_out=held_out, cost=cost)
        out += ["", held_out_text(found, cost) if held_out else "Design: " + criteria_text(found, cost)]
    return "\n".join(out)


def report(files: Sequence[str | Path], *, against: str = OURS, only: Sequence[str] | None = None) -> str:
    parts = [anytime_table(files, c, against=against, only=only) for c in COSTS if finals_at(c, files)]
    for cost in COSTS:
        if criteria(files, cost=cost):
            parts += [f"The issue's criteria at {cost} (medians of regret):", criteria_table(files, cost)]
    parts += [f"Time per suggestion (runs to {COST}; in parentheses, the runs that made that many):", "",
              suggestion_table(files)]
    return "\n\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.suites.fidelity")
    sub = parser.add_subparsers(dest="command", required=True)
    one_p = sub.add_parser("one", help="one run in this process; prints its row")
    one_p.add_argument("problem")
    one_p.add_argument("method")
    one_p.add_argument("seed", type=int)
    one_p.add_argument("max_cost", type=int)
    run_p = sub.add_parser("run", help="the runs --out lacks, one process each")
    run_p.add_argument("--problems", default=",".join(sorted(PROBLEMS, key=lambda p: p not in ALL_HELD_OUT)),
                       help="comma-separated; by default the held-out ones first")
    run_p.add_argument("--methods", default=",".join(COLUMNS))
    run_p.add_argument("--seeds", type=int, default=10)
    run_p.add_argument("--max-cost", type=int, default=max(COSTS))
    run_p.add_argument("--out", type=Path, default=RESULTS / FILES[0])
    run_p.add_argument("--jobs", type=int, default=1)
    run_p.add_argument("--timeout", type=float, default=3600.0)
    run_p.add_argument("--treefarm-at", default=None, help="run treefarm's code at this commit (a snapshot)")
    run_p.add_argument("--in-process", action="store_true", help="every run in this interpreter, in turn")
    rep = sub.add_parser("report", help="anytime tables, rank correlations, time per suggestion")
    rep.add_argument("files", nargs="*", default=list(FILES))
    rep.add_argument("--correlations", action="store_true")
    rep.add_argument("--against", default=OURS, help="the method the tables' marks compare each cell with")
    rep.add_argument("--methods", default=None, help="comma-separated: the tables' columns (default: every method)")
    args = parser.parse_args(argv)
    named = [args.problem] if args.command == "one" else args.problems.split(",") if args.command == "run" else []
    unknown = [p for p in named if p not in PROBLEMS]
    if unknown:
        parser.error(f"unknown problem {unknown[0]!r}: expected one of {', '.join(PROBLEMS)}")
    if args.command == "one":
        print(json.dumps(one(args.problem, args.method, args.seed, args.max_cost)), flush=True)
    elif args.command == "run":
        keys = [(p, m, s, args.max_cost) for p in args.problems.split(",") for s in range(args.seeds)
                for m in args.methods.split(",")]
        run_all(keys, args.out, args.jobs, args.timeout, treefarm_at=args.treefarm_at, in_process=args.in_process)
    else:
        only = args.methods.split(",") if args.methods else None
        print(report(args.files, against=args.against, only=only)
              + ("\n" + correlation_table() + "\n" if args.correlations else ""))


if __name__ == "__main__":
    main()
