"""The dashboard's views on a study of 100,000 trials (SQLite): the first page, a trial page,
parameter importance and the relationship of two parameters, as a user meets them.

Each repeat starts a fresh server (``treefarm dashboard DB``, read-only, as a user runs
it), so nothing is cached from the previous repeat, and measures in this order:

* ``first_page``: seconds from navigation to the rendered table in Debian's headless
  Chromium (Playwright), and ``first_page_http``: the requests the page makes before
  it draws the table (the page, its script, config, studies, first 50 trials, notes, hints);
* ``trial_page``: one trial in full through HTTP (a different trial each repeat), and
  ``trial_page_browser``: from a click on a table row to the trial's parameters shown;
* ``importance_cold``: the importance view's data, the first view the fresh server
  computes (it reads the 100,000 trials first);
* ``relationship``: the two-parameter view's data (a different pair each repeat), and
  ``importance``: the importance computed again (a key the cache has not seen), both on
  the trials the server has read;
* ``trial_posterior``: the GP's posterior along each parameter at a trial.

Each measure is appended as one JSON line to ``--out`` with the commit, date, repeat and
the machine's 1-minute load average; the medians are printed.

    OMP_NUM_THREADS=1 python -m bench.dashboard_views --out bench/results/dashboard_views.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from treefarm.testing.large_study import write_large_study

from .dashboard import fetch, free_port, wait_until_serving

PAIRS = [("lr", "layers"), ("layers", "optimizer"), ("lr", "optimizer"), ("lr", "momentum"), ("optimizer", "lr")]
FIRST_REQUESTS = ["/", "/static/app.js", "/api/config", "/api/studies", "/api/studies/1/trials?offset=0&limit=50",
                  "/api/studies/1/notes", "/api/studies/1/hints"]


def timed(url: str) -> float:
    start = time.perf_counter()
    fetch(url)
    return time.perf_counter() - start


def in_browser(url: str, number: int) -> tuple[float, float] | None:
    """Seconds to the rendered table, and from a click on trial ``number``'s row to its parameters."""
    chromium = shutil.which("chromium")
    if chromium is None:
        return None
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
        start = time.perf_counter()
        page.goto(url)
        page.wait_for_selector("#trials tbody tr", timeout=60_000)
        first = time.perf_counter() - start
        row = page.locator(f"#trials tbody tr[data-number='{number}']")
        start = time.perf_counter()
        row.click()
        page.wait_for_selector(f"#detail h3:has-text('trial {number} ')", timeout=60_000)
        page.wait_for_selector("#detail-params")
        trial = time.perf_counter() - start
        browser.close()
    return first, trial


def one_repeat(db: Path, repeat: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    port = free_port()
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "treefarm.cli.main", "dashboard", str(db), "--port", str(port)]
    server = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    rows: list[dict[str, Any]] = []
    try:
        wait_until_serving(url + "/api/config", server, 60)
        number = int(rng.integers(0, 50))
        seen = in_browser(url + "/", number)
        if seen is not None:
            rows += [{"measure": "first_page", "seconds": seen[0]}, {"measure": "trial_page_browser", "seconds": seen[1]}]
        rows.append({"measure": "first_page_http", "seconds": sum(timed(url + path) for path in FIRST_REQUESTS)})
        trial = int(rng.integers(0, 100_000))
        rows.append({"measure": "trial_page", "seconds": timed(f"{url}/api/studies/1/trials/{trial}")})
        rows.append({"measure": "importance_cold", "seconds": timed(f"{url}/api/studies/1/plots/importance")})
        x, y = PAIRS[repeat % len(PAIRS)]
        rows.append({"measure": "relationship", "seconds": timed(f"{url}/api/studies/1/plots/relationship?param={x},{y}")})
        rows.append({"measure": "importance", "seconds": timed(f"{url}/api/studies/1/plots/importance?param=r{repeat}")})
        at = json.loads(fetch(f"{url}/api/studies/1/trials?state=complete&offset={trial}&limit=1"))["rows"][0]["number"]
        rows.append({"measure": "trial_posterior", "seconds": timed(f"{url}/api/studies/1/trials/{at}/posterior")})
    finally:
        server.terminate()
        server.wait(10)
    return [{**row, "repeat": repeat, "load_now": round(os.getloadavg()[0], 1)} for row in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None, help="append the rows here (JSON lines)")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    stamp = {"commit": commit, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "trials": args.trials}
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "large.db"
        write_large_study(db, n_trials=args.trials)
        rows = []
        for repeat in range(args.repeats):
            found = one_repeat(db, repeat, rng)
            print(", ".join(f"{r['measure']} {r['seconds']:.3f} s" for r in found), flush=True)
            rows += found
    if args.out is not None:
        with args.out.open("a") as out:
            for row in rows:
                out.write(json.dumps({**stamp, **row}) + "\n")
    by: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        by[row["measure"]].append(row["seconds"])
    for measure, seconds in by.items():
        print(f"{measure}: median {statistics.median(seconds):.3f} s over {len(seconds)} ({min(seconds):.3f} to {max(seconds):.3f})")


if __name__ == "__main__":
    main()
