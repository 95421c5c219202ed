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
  same 100,000 trials in an in-memory Optuna study, if Optuna is installed;
* with ``--optuna-dashboard`` (needs the ``optuna-dashboard`` package):
  ``optuna_rdb`` (the same trials written into an Optuna SQLite RDB file, see
  :func:`write_optuna_rdb`), ``optuna_dashboard_first_page`` (seconds from
  navigation to the study's page showing its trials, or the timeout and what
  the page showed instead) and ``optuna_dashboard_memory`` (its server's VmHWM).

    OMP_NUM_THREADS=1 nice -n 10 python bench/suites/dashboard.py --out bench/results/dashboard.jsonl
    OMP_NUM_THREADS=1 nice -n 10 python bench/suites/dashboard.py --optuna-dashboard --out bench/results/dashboard.jsonl
"""

from __future__ import annotations

import argparse
import datetime
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
from treefarm.storage import TrialRecord
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


def served(db: Path, repeats: int, *, first_page_only: bool = False) -> list[dict[str, Any]]:
    """Our dashboard as a user runs it: the first page in Chromium, the table's pages and the
    plots through HTTP, the server's peak memory; only the first page if ``first_page_only``
    (measured again right after optuna-dashboard, so both have the same machine)."""
    port = free_port()
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "treefarm.cli.main", "dashboard", str(db), "--port", str(port)]
    server = subprocess.Popen(cmd, env=env, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    rows: list[dict[str, Any]] = []
    try:
        wait_until_serving(url + "/api/studies", server, 60)
        for seconds in first_page_in_chromium(url, repeats):
            rows.append(
                {"measure": "first_page", "seconds": seconds, "load_now": round(os.getloadavg()[0], 1)}
                | ({"beside": "optuna-dashboard"} if first_page_only else {})
            )
            print(f"first page in chromium: {seconds:.2f} s", flush=True)
        if first_page_only:
            return rows
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
        rows.append({"measure": "memory", "peak_mb": peak_memory_mb(server.pid)})
        print(f"server peak memory: {rows[-1]['peak_mb']:.0f} MB", flush=True)
    finally:
        server.terminate()
        server.wait(10)
    return rows


def optuna_distributions() -> dict[str, Any]:
    """The Optuna distributions of ``treefarm.testing.large_study``'s four parameters."""
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    return {
        "lr": FloatDistribution(1e-5, 1e-1, log=True),
        "layers": IntDistribution(1, 8),
        "optimizer": CategoricalDistribution(["adam", "sgd", "rmsprop"]),
        "momentum": FloatDistribution(0.0, 0.99),
    }


def local_time(seconds: float | None) -> datetime.datetime | None:
    """A unix time as the naive local datetime Optuna's trials carry."""
    return None if seconds is None else datetime.datetime.fromtimestamp(seconds)


def optuna_trials(records: list[TrialRecord]) -> list[Any]:
    """The trials as Optuna ``FrozenTrial`` objects: parameters, value or failure, user and
    system attributes, learning curves and times, field for field."""
    import optuna

    dists = optuna_distributions()
    return [
        optuna.trial.FrozenTrial(
            number=r.number,
            state=optuna.trial.TrialState.COMPLETE if r.value is not None else optuna.trial.TrialState.FAIL,
            value=r.value,
            values=None,
            datetime_start=local_time(r.started),
            datetime_complete=local_time(r.finished),
            params=dict(r.params),
            distributions={k: dists[k] for k in r.params},
            user_attrs=dict(r.user_attrs),
            system_attrs=dict(r.system_attrs),
            intermediate_values=dict(r.intermediate),
            trial_id=r.number,
        )
        for r in records
    ]


def read_records(db: Path) -> list[TrialRecord]:
    storage = open_read_only(db)
    records = list(storage.get_trials(1))
    storage.close()
    return records


def optuna_plot(records: list[TrialRecord], tmp: Path) -> list[dict[str, Any]]:
    try:
        import optuna
    except ImportError:
        return []
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    start = time.perf_counter()
    study = optuna.create_study()
    study.add_trials(optuna_trials(records))
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


def write_optuna_rdb(records: list[TrialRecord], path: Path) -> None:
    """Write the trials as the Optuna study ``large`` into a new SQLite RDB file.

    ``optuna.create_study`` makes the schema, its version row and the study;
    the trials then go in with one bulk INSERT per table (SQLAlchemy Core,
    into Optuna's own table objects, with the conversions Optuna's storage
    applies: a parameter's internal representation and distribution JSON,
    attributes as JSON, values split into value and type, naive UTC times).
    ``Study.add_trials`` commits every trial on its own (8 to 20 ms each on
    this machine: 15 to 30 minutes for 100,000); this takes seconds.
    :func:`check_optuna_rdb` compares the result with ``add_trials``'s.
    """
    import optuna
    import sqlalchemy as sa
    from optuna.distributions import distribution_to_json
    from optuna.storages._rdb import models

    storage = optuna.storages.RDBStorage(f"sqlite:///{path}")
    study_id = optuna.create_study(storage=storage, study_name="large", direction="minimize")._study_id
    dists = optuna_distributions()
    dist_json = {name: distribution_to_json(d) for name, d in dists.items()}
    value_repr = models.TrialValueModel.value_to_stored_repr
    step_repr = models.TrialIntermediateValueModel.intermediate_value_to_stored_repr
    tables: dict[Any, list[dict[str, Any]]] = {
        models.TrialModel: [],
        models.TrialParamModel: [],
        models.TrialValueModel: [],
        models.TrialUserAttributeModel: [],
        models.TrialSystemAttributeModel: [],
        models.TrialIntermediateValueModel: [],
    }
    for trial_id, t in enumerate(optuna_trials(records), start=1):
        tables[models.TrialModel].append(
            {
                "trial_id": trial_id,
                "number": t.number,
                "study_id": study_id,
                "state": t.state,
                "datetime_start": utc_naive(t.datetime_start),
                "datetime_complete": utc_naive(t.datetime_complete),
            }
        )
        tables[models.TrialParamModel] += [
            {
                "trial_id": trial_id,
                "param_name": name,
                "param_value": dists[name].to_internal_repr(value),
                "distribution_json": dist_json[name],
            }
            for name, value in t.params.items()
        ]
        if t.value is not None:
            value, value_type = value_repr(t.value)
            tables[models.TrialValueModel].append(
                {"trial_id": trial_id, "objective": 0, "value": value, "value_type": value_type}
            )
        for model, attrs in (
            (models.TrialUserAttributeModel, t.user_attrs),
            (models.TrialSystemAttributeModel, t.system_attrs),
        ):
            tables[model] += [
                {"trial_id": trial_id, "key": k, "value_json": json.dumps(v)} for k, v in attrs.items()
            ]
        for step, v in t.intermediate_values.items():
            stored, stored_type = step_repr(v)
            tables[models.TrialIntermediateValueModel].append(
                {
                    "trial_id": trial_id,
                    "step": step,
                    "intermediate_value": stored,
                    "intermediate_value_type": stored_type,
                }
            )
    with storage.engine.begin() as connection:
        for model, rows in tables.items():
            if rows:
                connection.execute(sa.insert(model.__table__), rows)
    storage.engine.dispose()


def utc_naive(moment: datetime.datetime | None) -> datetime.datetime | None:
    """Optuna's RDB column form of a naive local datetime: naive UTC."""
    if moment is None:
        return None
    return moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)


FROZEN_FIELDS = [
    "number",
    "state",
    "value",
    "params",
    "distributions",
    "user_attrs",
    "system_attrs",
    "intermediate_values",
    "datetime_start",
    "datetime_complete",
]


def check_optuna_rdb(records: list[TrialRecord], path: Path, tmp: Path, n: int = 200) -> float:
    """Write the first ``n`` trials through ``Study.add_trials`` into another file and check
    that Optuna reads every field of them back from ``path`` the same; returns
    ``add_trials``'s seconds per trial."""
    import optuna

    reference = optuna.create_study(
        storage=f"sqlite:///{tmp / 'reference.db'}", study_name="large", direction="minimize"
    )
    start = time.perf_counter()
    reference.add_trials(optuna_trials(records[:n]))
    per_trial = (time.perf_counter() - start) / n
    storage = optuna.storages.RDBStorage(f"sqlite:///{path}")
    for expected in reference.get_trials():
        got = storage.get_trial(expected.number + 1)
        for field in FROZEN_FIELDS:
            if getattr(got, field) != getattr(expected, field):
                raise AssertionError(
                    f"the bulk copy must match add_trials, but got ({field}={getattr(got, field)!r},"
                    f" expected={getattr(expected, field)!r}, number={expected.number})"
                )
    storage.engine.dispose()
    return per_trial


OPTUNA_STUDY_SEEN = """() => document.body.innerText.includes('Best Trial (number=')
    && document.querySelectorAll('.js-plotly-plot .scatterlayer .points path').length > 0"""


def peak_memory_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))) / 1024


def wait_until_serving(url: str, server: subprocess.Popen[bytes], seconds: float) -> None:
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline and server.poll() is None:
        try:
            fetch(url)
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(
        f"the server must answer within {seconds} s, but got (url={url}, exit={server.poll()})"
    )


def optuna_dashboard(optuna_db: Path, repeats: int, timeout_s: float) -> list[dict[str, Any]]:
    """optuna-dashboard on the same study: seconds from navigation to ``/dashboard/studies/1``
    until the user sees the study, that is its history page shows the best trial's card
    and the optimization-history plot has drawn its markers (every trial's data is on the
    page then); or, after ``timeout_s``, the timeout and the start of what the page showed.
    Each visit also records when the page's request for the study's trials
    (``/api/studies/1?after=0``, all of them as JSON) finished, if it did.
    The first visit reads the study (optuna-dashboard then caches the trials for 10 s);
    a timed-out visit is not repeated. Then the server's peak memory (VmHWM)."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import Request, sync_playwright

    port = free_port()
    executable = Path(sys.executable).with_name("optuna-dashboard")
    cmd = [str(executable), f"sqlite:///{optuna_db}", "--port", str(port), "--quiet"]
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    rows: list[dict[str, Any]] = []
    try:
        wait_until_serving(url + "/api/meta", server, 60)
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=shutil.which("chromium"), args=["--no-sandbox", "--disable-gpu"]
            )
            for attempt in range(repeats):
                context = browser.new_context()
                page = context.new_page()
                arrived: dict[str, float] = {}
                start = time.perf_counter()

                def finished(
                    request: Request, start: float = start, arrived: dict[str, float] = arrived
                ) -> None:
                    if "/api/studies/1?" in request.url:
                        arrived.setdefault("trials_json_s", time.perf_counter() - start)

                page.on("requestfinished", finished)
                row: dict[str, Any] = {"measure": "optuna_dashboard_first_page", "attempt": attempt}
                try:
                    page.goto(f"{url}/dashboard/studies/1", timeout=timeout_s * 1e3)
                    page.wait_for_function(OPTUNA_STUDY_SEEN, timeout=timeout_s * 1e3, polling=100)
                    row["seconds"] = time.perf_counter() - start
                    row["markers"] = page.evaluate(
                        "document.querySelectorAll('.js-plotly-plot .scatterlayer .points path').length"
                    )
                    print(f"optuna-dashboard first page: {row['seconds']:.2f} s {arrived}", flush=True)
                except PlaywrightError as error:
                    row |= {"timeout_s": timeout_s, "error": str(error).splitlines()[0]}
                    try:
                        row["page_showed"] = page.inner_text("body", timeout=10_000)[:300]
                    except PlaywrightError:
                        row["page_showed"] = "nothing: the page's renderer did not answer within 10 s"
                    print(f"optuna-dashboard first page: not within {timeout_s:.0f} s; {row}", flush=True)
                rows.append(row | arrived | {"load_now": round(os.getloadavg()[0], 1)})
                context.close()
                if "seconds" not in row:
                    break
            browser.close()
        rows.append({"measure": "optuna_dashboard_memory", "peak_mb": peak_memory_mb(server.pid)})
        print(f"optuna-dashboard peak memory: {rows[-1]['peak_mb']:.0f} MB", flush=True)
    finally:
        server.terminate()
        server.wait(10)
    return rows


def optuna_rdb(records: list[TrialRecord], tmp: Path) -> tuple[Path, list[dict[str, Any]]]:
    """The trials in an Optuna SQLite file, checked against ``add_trials``; also how long
    Optuna takes to read them all back (what optuna-dashboard does on a study's first visit)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    path = tmp / "optuna.db"
    start = time.perf_counter()
    write_optuna_rdb(records, path)
    write_s = time.perf_counter() - start
    per_trial = check_optuna_rdb(records, path, tmp)
    storage = optuna.storages.RDBStorage(f"sqlite:///{path}")
    start = time.perf_counter()
    n = len(storage.get_all_trials(1, deepcopy=False))
    read_s = time.perf_counter() - start
    storage.engine.dispose()
    print(
        f"optuna RDB: written in {write_s:.1f} s (add_trials: {1e3 * per_trial:.1f} ms a trial),"
        f" {n} trials read back in {read_s:.1f} s",
        flush=True,
    )
    row = {
        "measure": "optuna_rdb",
        "write_s": write_s,
        "add_trials_ms_per_trial": 1e3 * per_trial,
        "get_all_trials_s": read_s,
        "trials_read": n,
    }
    return path, [row]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default="bench/results/dashboard.jsonl")
    parser.add_argument("--skip-optuna", action="store_true")
    parser.add_argument(
        "--optuna-dashboard",
        action="store_true",
        help="also optuna-dashboard on the same trials in an Optuna SQLite file (needs optuna-dashboard)",
    )
    parser.add_argument("--optuna-dashboard-timeout", type=float, default=120.0)
    parser.add_argument(
        "--first-pages-only",
        action="store_true",
        help="of ours, only the first page in Chromium (before and after optuna-dashboard's)",
    )
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
        if args.first_pages_only:
            rows = served(db, args.repeats, first_page_only=True)
        else:
            rows = static_plots(db, args.repeats, tmp) + pages(db, args.repeats) + served(db, args.repeats)
        records = read_records(db)
        if args.optuna_dashboard:
            optuna_db, written = optuna_rdb(records, tmp)
            rows += written + optuna_dashboard(optuna_db, args.repeats, args.optuna_dashboard_timeout)
            rows += served(db, args.repeats, first_page_only=True)
        if not args.skip_optuna:
            rows += optuna_plot(records, tmp)
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
