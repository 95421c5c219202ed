"""Many workers on one storage: throughput, ask/tell latency, overhead, and a load test.

    python -m bench.suites.many throughput --url URL --lib treefarm --workers 1 2 4 8 --trials 200
    python -m bench.suites.many throughput --url URL --lib optuna   --workers 1 2 4 8 --trials 200
    python -m bench.suites.many dask       --url URL --workers 1 2 4 8 --trials 200 [--objective sleeping]
    python -m bench.suites.many overhead   --url URL --lib treefarm --history 10000 --batch 200
    python -m bench.suites.many load       --url URL --workers 64 --seconds 30
    python -m bench.suites.many report     # markdown tables of bench/results/many.jsonl

``throughput``: W worker processes (spawned, each opening its own storage,
started together at a barrier) share one study of ``--trials`` trials with
an empty objective (x**2 of one real); each times its ``ask`` and its
``tell`` (treefarm: ``ask_within(budget)`` / ``tell``, the optimize loop's
storage calls; Optuna: ``study.ask()`` + ``suggest_float`` / ``study.tell``,
``n_trials // W`` each, its n_trials being per process). Both use random
search, so the optimizer costs nothing and the storage is what is measured.
``dask``: one study process evaluating on a ``LocalCluster`` of W worker
processes (``study.optimize(..., executor=client)``), with the empty
objective or ``--objective sleeping`` (0.1-1 s, uniform). ``overhead``: one
process; the study is filled to ``--history`` trials, then ``--batch``
ask+tell pairs are timed. ``load``: W processes with a sleeping objective
(0.1-1 s, uniform) for ``--seconds``; reports trials/s, ask/tell p50/p99 and
checks that no trial number was handed out or recorded twice.

SQLite runs in WAL mode with synchronous=NORMAL for both libraries (Optuna's
engine gets the same PRAGMAs), so durability is equal. Every run appends one
JSON line per configuration to ``--out`` (default bench/results/many.jsonl).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ..harness.paths import RESULTS
from ..harness.suite import Finals, Suite, lines

OUT = RESULTS / "many.jsonl"


def _space() -> Any:
    import treefarm as tf

    return {"x": tf.Real(0.0, 1.0)}


def empty(p: dict[str, float]) -> float:
    return p["x"] ** 2


def sleeping(p: dict[str, float]) -> float:
    time.sleep(0.1 + 0.9 * p["x"])
    return p["x"] ** 2


OBJECTIVES = {"empty": empty, "sleeping": sleeping}


def _quantiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50_ms": float("nan"), "p99_ms": float("nan")}
    ordered = sorted(values)
    return {
        "p50_ms": 1e3 * statistics.median(ordered),
        "p99_ms": 1e3 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
    }


def _optuna_sqlite_pragmas() -> None:
    """WAL + synchronous=NORMAL on every SQLite connection of this process (Optuna's too)."""
    import sqlalchemy as sa

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        if type(dbapi_connection).__module__.startswith("sqlite3"):
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
            cursor.close()

    sa.event.listen(sa.engine.Engine, "connect", on_connect)


# ----------------------------------------------------------------- workers
def _treefarm_worker(
    url: str, name: str, budget: int, seconds: float | None, sleep: bool, barrier: Any, queue: Any
) -> None:
    from treefarm import Study
    from treefarm.storage import open_storage

    storage = open_storage(url, journal=None)
    study = Study.create(name, space=_space(), storage=storage, algo="random", seed=0, load_if_exists=True)
    asks: list[float] = []
    tells: list[float] = []
    numbers: list[int] = []
    barrier.wait()
    start = time.time()
    while seconds is None or time.time() - start < seconds:
        a = time.perf_counter()
        trial = study.ask_within(budget)
        b = time.perf_counter()
        if trial is None:
            break
        value = sleeping(trial.value) if sleep else empty(trial.value)
        c = time.perf_counter()
        study.tell(trial, value)
        d = time.perf_counter()
        asks.append(b - a)
        tells.append(d - c)
        numbers.append(trial.number)
    queue.put({"start": start, "end": time.time(), "asks": asks, "tells": tells, "numbers": numbers})
    storage.close()


def _optuna_worker(url: str, name: str, n: int, barrier: Any, queue: Any) -> None:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if url.startswith("sqlite"):
        _optuna_sqlite_pragmas()
    storage = optuna.storages.RDBStorage(url)
    study = optuna.load_study(
        study_name=name, storage=storage, sampler=optuna.samplers.RandomSampler(seed=os.getpid())
    )
    asks: list[float] = []
    tells: list[float] = []
    barrier.wait()
    start = time.time()
    for _ in range(n):
        a = time.perf_counter()
        trial = study.ask()
        x = trial.suggest_float("x", 0.0, 1.0)
        b = time.perf_counter()
        study.tell(trial, x * x)
        c = time.perf_counter()
        asks.append(b - a)
        tells.append(c - b)
    queue.put({"start": start, "end": time.time(), "asks": asks, "tells": tells, "numbers": []})


def _in_processes(target: Any, workers: int, *args: Any) -> list[dict[str, Any]]:
    ctx = multiprocessing.get_context("spawn")
    barrier, queue = ctx.Barrier(workers), ctx.Queue()
    processes = [ctx.Process(target=target, args=(*args, barrier, queue)) for _ in range(workers)]
    for process in processes:
        process.start()
    results = [queue.get(timeout=3600) for _ in processes]
    for process in processes:
        process.join()
    return results


def _summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    asks = [t for r in results for t in r["asks"]]
    tells = [t for r in results for t in r["tells"]]
    wall = max(r["end"] for r in results) - min(r["start"] for r in results)
    numbers = [n for r in results for n in r["numbers"]]
    return {
        "trials": len(asks),
        "wall_s": wall,
        "trials_per_s": len(asks) / wall,
        "ask": _quantiles(asks),
        "tell": _quantiles(tells),
        "duplicate_numbers": len(numbers) - len(set(numbers)),
    }


def _backend(url: str) -> str:
    """The backend, with the URL's query (e.g. ``options=-csynchronous_commit=off``) when it has one."""
    backend = "postgresql" if url.startswith("postgresql") else "sqlite"
    return f"{backend}?{url.split('?', 1)[1]}" if "?" in url else backend


def _context() -> dict[str, Any]:
    """What a row needs to be read later: the commit measured, when, and the machine's load."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    return {"commit": commit, "date": time.strftime("%Y-%m-%d"), "load_average_1min": os.getloadavg()[0]}


def _name(kind: str, workers: int) -> str:
    return f"{kind}-{workers}-{time.time_ns()}"


def _write(out: Path, row: dict[str, Any]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a") as handle:
        row = row | _context()
        handle.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


# ----------------------------------------------------------------- commands
def throughput(args: argparse.Namespace) -> None:
    for workers in args.workers:
        name = _name(args.lib, workers)
        if args.lib == "treefarm":
            from treefarm import Study
            from treefarm.storage import open_storage

            storage = open_storage(args.url, journal=None)
            Study.create(name, space=_space(), storage=storage, algo="random", seed=0)
            storage.close()
            results = _in_processes(_treefarm_worker, workers, args.url, name, args.trials, None, False)
        else:
            import optuna

            if args.url.startswith("sqlite"):
                _optuna_sqlite_pragmas()
            optuna.create_study(study_name=name, storage=optuna.storages.RDBStorage(args.url))
            results = _in_processes(_optuna_worker, workers, args.url, name, args.trials // workers)
        row = {"bench": "throughput", "lib": args.lib, "backend": _backend(args.url), "workers": workers}
        _write(args.out, row | _summary(results))


def dask(args: argparse.Namespace) -> None:
    from treefarm import Study
    from treefarm.execution.dask import connect
    from treefarm.storage import open_storage

    for workers in args.workers:
        storage = open_storage(args.url, journal=None)
        study = Study.create(_name("dask", workers), space=_space(), storage=storage, algo="random", seed=0)
        objective = OBJECTIVES[args.objective]
        with connect("local", n_workers=workers) as client:
            study.optimize(empty, 2)  # untimed: the cluster's first tasks import treefarm
            start = time.time()
            study.optimize(objective, args.trials + 2, executor=client)
            wall = time.time() - start
        row = {"bench": "dask", "lib": "treefarm", "backend": _backend(args.url), "workers": workers}
        row |= {"objective": args.objective, "tag": args.tag} if args.objective != "empty" or args.tag else {}
        _write(args.out, row | {"trials": args.trials, "wall_s": wall, "trials_per_s": args.trials / wall})
        storage.close()


def overhead(args: argparse.Namespace) -> None:
    name = _name(f"overhead-{args.lib}", 1)
    asks: list[float] = []
    tells: list[float] = []
    if args.lib == "treefarm":
        from treefarm import Study, TrialState
        from treefarm.storage import open_storage

        storage = open_storage(args.url, journal=None)
        study = Study.create(name, space=_space(), storage=storage, algo="random", seed=0)
        for i in range(args.history):
            number = storage.create_trial(study.study_id, params={"x": 0.5}).number
            storage.finish_trial(study.study_id, number, state=TrialState.COMPLETE, value=float(i))
        for _ in range(args.batch):
            a = time.perf_counter()
            trial = study.ask()
            b = time.perf_counter()
            study.tell(trial, empty(trial.value))
            asks.append(b - a)
            tells.append(time.perf_counter() - b)
    else:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        if args.url.startswith("sqlite"):
            _optuna_sqlite_pragmas()
        ostudy = optuna.create_study(
            study_name=name,
            storage=optuna.storages.RDBStorage(args.url),
            sampler=optuna.samplers.RandomSampler(0),
        )
        dist = {"x": optuna.distributions.FloatDistribution(0.0, 1.0)}
        ostudy.add_trials(
            [
                optuna.trial.create_trial(params={"x": 0.5}, distributions=dist, value=float(i))
                for i in range(args.history)
            ]
        )
        for _ in range(args.batch):
            a = time.perf_counter()
            otrial = ostudy.ask()
            x = otrial.suggest_float("x", 0.0, 1.0)
            b = time.perf_counter()
            ostudy.tell(otrial, x * x)
            asks.append(b - a)
            tells.append(time.perf_counter() - b)
    pairs = [a + t for a, t in zip(asks, tells)]
    row = {"bench": "overhead", "lib": args.lib, "backend": _backend(args.url), "history": args.history}
    _write(args.out, row | {"pair": _quantiles(pairs), "ask": _quantiles(asks), "tell": _quantiles(tells)})


def load(args: argparse.Namespace) -> None:
    from treefarm import Study, TrialState
    from treefarm.storage import open_storage

    name = _name("load", args.workers)
    storage = open_storage(args.url, journal=None)
    study = Study.create(name, space=_space(), storage=storage, algo="random", seed=0)
    results = _in_processes(_treefarm_worker, args.workers, args.url, name, None, args.seconds, True)
    records = storage.get_trials(study.study_id)
    complete = [r for r in records if r.state is TrialState.COMPLETE]
    row = {"bench": "load", "lib": "treefarm", "backend": _backend(args.url), "workers": args.workers}
    row |= _summary(results) | {
        "stored": len(records),
        "complete": len(complete),
        "stored_duplicates": len(records) - len({r.number for r in records}),
        "running_left": sum(r.state is TrialState.RUNNING for r in records),
    }
    _write(args.out, row)
    storage.close()


def report(args: argparse.Namespace) -> None:
    """Markdown tables of the last row of each configuration in ``--out``."""
    rows: dict[tuple[Any, ...], dict[str, Any]] = {}
    for line in args.out.read_text().splitlines():
        row = json.loads(line)
        key = (row["bench"], row["lib"], row["backend"], row.get("workers"), row.get("history"))
        rows[(*key, row.get("objective", "empty"), row.get("tag", ""))] = row
    print("| backend | library | workers | trials/s | ask p50 / p99 (ms) | tell p50 / p99 (ms) |")
    print("|---|---|---:|---:|---:|---:|")
    for key, r in sorted(rows.items(), key=lambda kv: (kv[0][2], kv[0][1], kv[0][3] or 0)):
        if key[0] == "throughput":
            ask, tell = r["ask"], r["tell"]
            print(
                f"| {r['backend']} | {r['lib']} | {r['workers']} | {r['trials_per_s']:.1f} | "
                f"{ask['p50_ms']:.1f} / {ask['p99_ms']:.0f} | {tell['p50_ms']:.1f} / {tell['p99_ms']:.0f} |"
            )
    print("\n| backend | objective | code | Dask workers | trials/s |\n|---|---|---|---:|---:|")
    for key, r in sorted(rows.items(), key=lambda kv: (kv[0][2], kv[0][5], kv[0][6], kv[0][3] or 0)):
        if key[0] == "dask":
            print(f"| {r['backend']} | {key[5]} | {key[6] or r.get('commit', '')} | {r['workers']} | {r['trials_per_s']:.1f} |")
    print("\n| backend | library | history | ask+tell p50 / p99 (ms) | ask p50 (ms) | tell p50 (ms) |")
    print("|---|---|---:|---:|---:|---:|")
    for key, r in sorted(rows.items(), key=lambda kv: (kv[0][2], kv[0][1])):
        if key[0] == "overhead":
            pair = r["pair"]
            print(
                f"| {r['backend']} | {r['lib']} | {r['history']} | {pair['p50_ms']:.1f} / {pair['p99_ms']:.0f} | "
                f"{r['ask']['p50_ms']:.1f} | {r['tell']['p50_ms']:.1f} |"
            )
    for key, r in rows.items():
        if key[0] == "load":
            print(
                f"\nload: {r['workers']} workers on {r['backend']}: {r['trials']} trials in {r['wall_s']:.1f} s "
                f"({r['trials_per_s']:.1f}/s), ask p50 {r['ask']['p50_ms']:.1f} ms p99 {r['ask']['p99_ms']:.0f} ms, "
                f"tell p50 {r['tell']['p50_ms']:.1f} ms p99 {r['tell']['p99_ms']:.0f} ms; duplicate numbers "
                f"{r['duplicate_numbers']} handed out, {r['stored_duplicates']} stored; {r['running_left']} left running"
            )


def finals() -> Finals:
    """Seconds per trial of the throughput runs (an empty objective: the library's own cost),
    per storage and number of workers; repeated runs count as seeds."""
    out: Finals = {}
    for r in lines(OUT):
        if r.get("bench") != "throughput":
            continue
        key = (f"{r['backend']} x {r['workers']}", r["lib"])
        seeds = out.setdefault(key, {})
        seeds[len(seeds)] = 1.0 / float(r["trials_per_s"])
    return out


SUITES = (
    Suite(
        "many", "Many workers sharing one storage",
        "Worker processes asking and telling trials of an empty objective through one SQLite file or "
        "PostgreSQL database (problem: storage x workers): what the library itself costs per trial. One run per cell, so no interval and no test.",
        "wall seconds per trial", "treefarm", ("treefarm", "optuna"), ("many.jsonl",),
        ("python -m bench.suites.many throughput --url sqlite:////tmp/many.db --lib treefarm --workers 1 2 4 8 --trials 200",
         "python -m bench.suites.many throughput --url sqlite:////tmp/many.db --lib optuna --workers 1 2 4 8 --trials 200"),
        finals),
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for command in ("throughput", "dask", "overhead", "load", "report"):
        p = sub.add_parser(command)
        p.add_argument("--url", required=command != "report")
        p.add_argument("--out", type=Path, default=OUT)
        p.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8])
        p.add_argument("--trials", type=int, default=200)
        p.add_argument("--lib", choices=["treefarm", "optuna"], default="treefarm")
        p.add_argument("--history", type=int, default=10_000)
        p.add_argument("--batch", type=int, default=200)
        p.add_argument("--seconds", type=float, default=30.0)
        p.add_argument("--objective", choices=list(OBJECTIVES), default="empty")
        p.add_argument("--tag", default="", help="a label kept in the rows (e.g. the code measured)")
    args = parser.parse_args(argv)
    if args.command == "load":
        args.workers = args.workers[0]
    commands = {"throughput": throughput, "dask": dask, "overhead": overhead, "load": load, "report": report}
    commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
