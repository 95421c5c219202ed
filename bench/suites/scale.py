"""How many workers one study keeps busy: N workers (8 … 256), objectives of a given
duration, random search, TPE and ``auto``, a SQLite file and PostgreSQL.

    python -m bench.suites.scale sim --workers 8,16,32,64,128,256 --durations 10 \\
        --algos random,tpe,auto --storages postgres,sqlite --policies serial,ahead2
    python -m bench.suites.scale shared --workers 8,64,256 --durations 10 --algos tpe --storages postgres
    python -m bench.suites.scale real --workers 8 --durations 1 --algos random,tpe --storages sqlite \\
        --policies serial,ahead2 --executor dask
    python -m bench.suites.scale report

``sim`` runs the real optimize loop, optimizer and storage with a central driver
(as with Dask) on a virtual clock; ``shared`` simulates workers that each ask
through the storage; ``real`` runs real workers with sleeping objectives (see
:mod:`bench.suites.scale_sim`). A policy is ``serial`` (a trial is asked when a
worker is free: the loop without preparation) or ``aheadK`` (K trials prepared
while the workers run, the loop's default being ``ahead.AHEAD``).

Each run appends one JSON line to ``bench/results/scale.jsonl`` (skipped when the
file already holds its key): the fraction of worker time spent waiting on the study
(``wait``: from time 0 or the end of a worker's evaluation until its next trial;
``wait_steady``: without each worker's first wait, the start-up), trials per second
(and the ideal, workers / duration), the storage's busy fraction, claim, tell and
history-read latency percentiles, and the checks that every trial number is there once, the
budget exact, every trial complete and every configuration sent once. A PostgreSQL
15 cluster is started in a temporary folder for the runs that need it.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from bench.harness.paths import RESULTS

ROWS = RESULTS / "scale.jsonl"
KEY = ("mode", "executor", "policy", "workers", "duration", "algo", "storage", "trials", "seed")


def trials_for(workers: int) -> int:
    """A few hundred trials, and at least three per worker: start-up is not the whole run."""
    return max(240, 3 * workers)


def _done(path: Path) -> set[tuple[Any, ...]]:
    if not path.exists():
        return set()
    return {tuple(row[k] for k in KEY) for row in map(json.loads, path.read_text().splitlines()) if row}


@contextmanager
def _urls(storages: list[str], folder: Path) -> Iterator[dict[str, str]]:
    urls = {}
    with ExitStack() as stack:
        for storage in storages:
            if storage == "sqlite":
                urls[storage] = f"sqlite:///{folder / 'scale.db'}"
            elif storage == "postgres":
                from tests.storage.postgres import pg_binaries, postgres_cluster

                bindir = pg_binaries()
                if bindir is None:
                    raise SystemExit("PostgreSQL's initdb and pg_ctl are not installed")
                urls[storage] = stack.enter_context(postgres_cluster(bindir))
            else:
                raise SystemExit(f"storage must be sqlite or postgres, but got storage={storage!r}")
        yield urls


def _prepared(policy: str) -> int:
    if policy == "serial":
        return 0
    if policy.startswith("ahead") and policy[5:].isdigit():
        return int(policy[5:])
    raise SystemExit(f"policy must be serial or aheadK (K an integer), but got policy={policy!r}")


def run(args: argparse.Namespace) -> None:
    from bench.suites import scale_sim

    logging.getLogger("treefarm").setLevel(logging.WARNING)  # a line per trial would drown the table

    done = _done(args.out)
    policies = ["none"] if args.mode == "shared" else args.policies.split(",")
    executor = args.executor if args.mode == "real" else "virtual"
    with tempfile.TemporaryDirectory() as tmp, _urls(args.storages.split(","), Path(tmp)) as urls:
        for storage, url in urls.items():
            for duration in map(float, args.durations.split(",")):
                for workers in map(int, args.workers.split(",")):
                    for algo in args.algos.split(","):
                        for policy in policies:
                            trials = args.trials or trials_for(workers)
                            key = (args.mode, executor, policy, workers, duration, algo, storage, trials, args.seed)
                            if key in done:
                                continue
                            common: dict[str, Any] = {
                                "workers": workers, "duration": duration, "algo": algo, "url": url,
                                "trials": trials, "seed": args.seed, "name": f"scale-{uuid.uuid4().hex[:8]}",
                            }
                            if args.mode == "sim":
                                measured = scale_sim.simulate(**common, prepared=_prepared(policy))
                            elif args.mode == "shared":
                                measured = scale_sim.simulate_shared(**common)
                            else:
                                measured = scale_sim.run_real(**common, prepared=_prepared(policy), executor=executor)
                            row = {**dict(zip(KEY, key)), **measured}
                            with args.out.open("a") as out:
                                out.write(json.dumps(row) + "\n")
                            print(_line(row), flush=True)


COLUMNS = (
    ("mode", "{}"), ("executor", "{}"), ("storage", "{}"), ("algo", "{}"), ("duration", "{:g}"),
    ("workers", "{}"), ("policy", "{}"), ("trials", "{}"), ("wait", "{:.1%}"), ("wait_steady", "{:.1%}"),
    ("trials_per_s", "{:.2f}"), ("ideal_per_s", "{:.2f}"), ("storage_busy", "{:.1%}"),
    ("claim_p50_ms", "{:.1f}"), ("claim_p95_ms", "{:.1f}"), ("claim_p99_ms", "{:.1f}"),
    ("tell_p50_ms", "{:.1f}"), ("tell_p95_ms", "{:.1f}"), ("tell_p99_ms", "{:.1f}"),
    ("read_p50_ms", "{:.1f}"), ("read_p95_ms", "{:.1f}"),
)


def _ok(row: dict[str, Any]) -> str:
    return "yes" if row["numbers_once"] and row["all_complete"] and row["sent_once"] else "NO"


def _line(row: dict[str, Any]) -> str:
    return "| " + " | ".join([*(fmt.format(row.get(k, math.nan)) for k, fmt in COLUMNS), _ok(row)]) + " |"


def report(path: Path) -> str:
    """The rows as a Markdown table, sorted by mode, storage, algorithm, duration, workers."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line]
    rows.sort(key=lambda r: (r["mode"], r["executor"], r["storage"], r["algo"], -r["duration"], r["workers"], r["policy"]))
    names = [k.replace("_", " ") for k, _ in COLUMNS] + ["nothing lost or twice"]
    head = "| " + " | ".join(names) + " |\n|" + "---|" * len(names)
    return "\n".join([head, *map(_line, rows)])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.suites.scale", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["sim", "shared", "real", "report"])
    parser.add_argument("--workers", default="8,16,32,64,128,256")
    parser.add_argument("--durations", default="10", help="seconds per objective, comma-separated")
    parser.add_argument("--algos", default="random,tpe,auto")
    parser.add_argument("--storages", default="postgres,sqlite")
    parser.add_argument("--policies", default="serial,ahead2", help="serial, aheadK (K prepared trials)")
    parser.add_argument("--executor", default="dask", choices=["dask", "threads"], help="real mode only")
    parser.add_argument("--trials", type=int, default=None, help="per run (default: max(240, 3 x workers))")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROWS)
    args = parser.parse_args(argv)
    if args.mode == "report":
        print(report(args.out))
    else:
        run(args)


if __name__ == "__main__":
    main()
