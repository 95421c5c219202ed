"""The dashboard and the static plots on a study of 100,000 trials (SQLite): how fast, how big.

Measures, each appended as one JSON line to ``--out`` (with the commit and the date):

* ``static_plot``: reading the study once (``StudyData.load``), then each
  plot kind drawn and saved as PNG (median of ``--repeats``);
* ``page``: :meth:`Storage.trial_page` server time for a first page, a last
  page, sorted by value both ways, by duration, and filtered (median ms);
* ``http``: the same pages through the running dashboard (median ms), and
  each plot's data, the first request (reads the study) and the next (cached);
* ``first_page``: seconds from navigation to the rendered table in Debian's
  headless Chromium (Playwright), if installed;
* ``memory``: the dashboard process's peak resident memory (VmHWM) after all that;
* ``optuna_plot``: Optuna's ``plot_optimization_history`` (matplotlib) on the
  same 100,000 trials in an in-memory Optuna study, if Optuna is installed.

    OMP_NUM_THREADS=1 nice -n 10 python bench/dashboard.py --out bench/results/dashboard.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from treefarm import viz
from treefarm.dashboard import open_read_only
from treefarm.testing.large_study import write_large_study

PAGES: dict[str, dict[str, Any]] = {
    "first": {},
    "last": {"offset": 99_950},
    "value_asc": {"order_by": "value"},
    "value_desc": {"order_by": "value", "descending": True},
    "duration_mid": {"order_by": "duration", "offset": 50_000},
    "failed_by_value": {"states": ["failed"], "order_by": "value"},
    "value_window": {"value_min": 0.0, "value_max": 0.5, "order_by": "finished", "descending": True},
}


def median_seconds(f: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def static_plots(db: Path, repeats: int, tmp: Path) -> list[dict[str, Any]]:
    storage = open_read_only(db)
    start = time.perf_counter()
    data = viz.StudyData.load(storage, "large")
    rows = [{"measure": "load_trials", "seconds": time.perf_counter() - start}]
    storage.close()
    for kind, plot in viz.KINDS.items():
        seconds = median_seconds(
            lambda plot=plot, kind=kind: plot(data).savefig(tmp / f"{kind}.png", dpi=80), repeats
        )
        rows.append({"measure": "static_plot", "kind": kind, "seconds": seconds})
        print(f"static {kind}: {seconds:.2f} s", flush=True)
    return rows


def pages(db: Path, repeats: int) -> list[dict[str, Any]]:
    storage = open_read_only(db)
    rows = []
    for name, kwargs in PAGES.items():
        ms = 1e3 * median_seconds(lambda kwargs=kwargs: storage.trial_page(1, **kwargs), repeats)
        rows.append({"measure": "page", "page": name, "ms": ms})
        print(f"page {name}: {ms:.0f} ms", flush=True)
    storage.close()
    return rows


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=300) as response:
        return bytes(response.read())


def query(kwargs: dict[str, Any]) -> str:
    parts = []
    for k, v in kwargs.items():
        text = ",".join(v) if isinstance(v, list) else str(v).lower() if isinstance(v, bool) else str(v)
        parts.append(f"{k}={text}")
    return "&".join(parts)


def first_page_in_chromium(url: str, repeats: int) -> list[float]:
    chromium = shutil.which("chromium")
    if chromium is None:
        return []
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        for _ in range(repeats):
            context = browser.new_context()
            page = context.new_page()
            start = time.perf_counter()
            page.goto(url)
            page.wait_for_selector("#trials tbody tr", timeout=60_000)
            out.append(time.perf_counter() - start)
            context.close()
        browser.close()
    return out


def served(db: Path, repeats: int) -> list[dict[str, Any]]:
    port = free_port()
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "treefarm.cli.main", "dashboard", str(db), "--port", str(port)]
    server = subprocess.Popen(cmd, env=env, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    rows: list[dict[str, Any]] = []
    try:
        for _ in range(200):
            try:
                fetch(url + "/api/studies")
                break
            except OSError:
                time.sleep(0.1)
        for seconds in first_page_in_chromium(url, repeats):
            rows.append({"measure": "first_page", "seconds": seconds})
            print(f"first page in chromium: {seconds:.2f} s", flush=True)
        for name, kwargs in PAGES.items():
            ms = 1e3 * median_seconds(
                lambda kwargs=kwargs: fetch(f"{url}/api/studies/1/trials?{query(kwargs)}"), repeats
            )
            rows.append({"measure": "http", "what": f"page {name}", "ms": ms})
            print(f"http page {name}: {ms:.0f} ms", flush=True)
        for kind in viz.KINDS:
            first = median_seconds(lambda kind=kind: fetch(f"{url}/api/studies/1/plots/{kind}"), 1)
            cached = median_seconds(lambda kind=kind: fetch(f"{url}/api/studies/1/plots/{kind}"), repeats)
            rows.append(
                {"measure": "http", "what": f"plot {kind}", "first_s": first, "cached_ms": 1e3 * cached}
            )
            print(f"http plot {kind}: first {first:.2f} s, cached {1e3 * cached:.0f} ms", flush=True)
        status = Path(f"/proc/{server.pid}/status").read_text()
        peak_kb = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")))
        rows.append({"measure": "memory", "peak_mb": peak_kb / 1024})
        print(f"server peak memory: {peak_kb / 1024:.0f} MB", flush=True)
    finally:
        server.terminate()
        server.wait(10)
    return rows


def optuna_plot(db: Path, tmp: Path) -> list[dict[str, Any]]:
    try:
        import optuna
    except ImportError:
        return []
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = open_read_only(db)
    records = storage.get_trials(1)
    storage.close()
    dists = {
        "lr": FloatDistribution(1e-5, 1e-1, log=True),
        "layers": IntDistribution(1, 8),
        "optimizer": CategoricalDistribution(["adam", "sgd", "rmsprop"]),
        "momentum": FloatDistribution(0.0, 0.99),
    }
    start = time.perf_counter()
    study = optuna.create_study()
    study.add_trials(
        [
            optuna.trial.create_trial(
                params=dict(r.params),
                distributions={k: dists[k] for k in r.params},
                value=r.value,
                state=optuna.trial.TrialState.COMPLETE
                if r.value is not None
                else optuna.trial.TrialState.FAIL,
            )
            for r in records
        ]
    )
    build = time.perf_counter() - start
    from optuna.visualization.matplotlib import plot_optimization_history

    start = time.perf_counter()
    ax = plot_optimization_history(study)
    ax.figure.savefig(tmp / "optuna_history.png", dpi=80)
    seconds = time.perf_counter() - start
    print(
        f"optuna plot_optimization_history: {seconds:.2f} s (building its study: {build:.1f} s)", flush=True
    )
    return [{"measure": "optuna_plot", "what": "plot_optimization_history (matplotlib)", "seconds": seconds}]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default="bench/results/dashboard.jsonl")
    parser.add_argument("--skip-optuna", action="store_true")
    args = parser.parse_args()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        db = tmp / "large.db"
        start = time.perf_counter()
        write_large_study(db, n_trials=args.trials)
        print(f"wrote {args.trials} trials in {time.perf_counter() - start:.1f} s", flush=True)
        rows = static_plots(db, args.repeats, tmp) + pages(db, args.repeats) + served(db, args.repeats)
        if not args.skip_optuna:
            rows += optuna_plot(db, tmp)
    stamp = {
        "commit": commit,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "trials": args.trials,
        "load_average_1min": round(os.getloadavg()[0], 1),
        "cpus": os.cpu_count(),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "a") as out:
        for row in rows:
            out.write(json.dumps({**stamp, **row}) + "\n")


if __name__ == "__main__":
    main()
