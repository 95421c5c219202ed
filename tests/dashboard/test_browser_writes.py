"""Steering a running study from the page, in a real browser (Debian's headless Chromium).

A worker runs in another process on the same SQLite study while a person adds a
hint in the page: the worker's next suggestions go to the hinted region. A page
without the token cannot write; a note added in one page shows in another within
two seconds, as text. Skipped, with the reason, where ``chromium`` or
``playwright`` is absent; never downloads a browser.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import treefarm as tf
from treefarm.dashboard import create_app
from treefarm.dashboard.readonly import open_for_writes
from treefarm.dashboard.security import WriteAccess, allowed_hosts, new_token
from treefarm.dashboard.writes import Writer
from treefarm.storage import TrialState, open_storage

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)"
)
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
uvicorn = pytest.importorskip("uvicorn")

SPACE = {"x": tf.Real(0.0, 1.0), "y": tf.Real(0.0, 1.0)}
WORKER_FILE = """
import time
import treefarm as tf

space = {"x": tf.Real(0.0, 1.0), "y": tf.Real(0.0, 1.0)}


def objective(p):
    time.sleep(0.4)  # a slow evaluation: the person acts while the worker runs
    return (p["x"] - 0.9) ** 2 + (p["y"] - 0.9) ** 2
"""
HOSTILE = "<img src=x onerror=\"window.pwned=1\"> '; DROP TABLE trials; --"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("steer") / "steer.db"
    study = tf.Study.create("steer", space=SPACE, storage=str(path), algo="tpe", seed=0)
    study.optimize(lambda p: (p["x"] - 0.9) ** 2 + (p["y"] - 0.9) ** 2, 2)
    study.storage.close()
    two = tf.Study.create("two", space=SPACE, storage=str(path), directions=["minimize", "minimize"], algo="random", seed=0)
    two.optimize(lambda p: {"loss": [p["x"], 1 - p["x"] * p["y"]], "constraints": [p["y"] - 0.9]}, 40)
    two.storage.close()
    rungs = tf.Study.create("rungs", space=SPACE, storage=str(path), fidelity=tf.Fidelity(1, 27, integer=True), seed=0)
    rungs.storage.close()
    return path


@pytest.fixture(scope="module")
def server(db: Path) -> Iterator[tuple[str, str]]:
    storage = open_for_writes(db)
    port, token = free_port(), new_token()
    writer = Writer(storage, [SPACE])
    app = create_app(storage, writer=writer, access=WriteAccess(token, allowed_hosts("127.0.0.1", port)))
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", token
    srv.should_exit = True
    thread.join(10)
    writer.close()
    storage.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def open_page(browser: Any, url: str) -> Any:
    # bypass_csp lets the test harness evaluate its own predicates; the page's policy is tested in test_writes
    context = browser.new_context(viewport={"width": 1400, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(url)
    page.wait_for_selector("#studies li.active")
    return page


def trials(db: Path) -> list[Any]:
    with open_storage(str(db), read_only=True) as s:
        return s.get_trials(s.get_study("steer").study_id)


def study_notes(db: Path) -> Any:
    with open_storage(str(db), read_only=True) as s:
        return [{"author": n.author, "text": n.text, "trial": n.trial} for n in s.get_notes(s.get_study("steer").study_id)]


def in_region(t: Any) -> bool:
    return abs(t.params["x"] - 0.9) < 0.15 and abs(t.params["y"] - 0.9) < 0.15


@pytest.fixture
def worker(db: Path, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    source = tmp_path / "steer_objective.py"
    source.write_text(textwrap.dedent(WORKER_FILE))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = [sys.executable, "-m", "treefarm.cli.main", "worker", str(db), "--study", "steer"]
    process = subprocess.Popen(
        [*command, "--file", str(source), "--n-trials", "60"], env=env, stderr=subprocess.DEVNULL
    )
    yield process
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        process.wait(20)


def test_a_hint_added_in_the_page_steers_the_running_worker(
    browser: Any, server: tuple[str, str], db: Path, worker: subprocess.Popen[bytes]
) -> None:
    url, token = server
    page = open_page(browser, f"{url}/?token={token}")
    assert "token" not in page.url, "the token must leave the address bar"
    page.click("#act summary")
    page.select_option("#plot-kind", "slices")
    page.wait_for_selector("#config-inputs [data-address=y]")
    page.fill("#config-inputs [data-address=x]", "0.9")
    page.fill("#config-inputs [data-address=y]", "0.9")
    page.fill("#hint-credibility", "1")
    page.fill("#hint-spread", "0.05")
    page.click("#add-hint")
    page.wait_for_selector("#hints tbody tr")
    assert "hint: done" in page.text_content("#message")
    hinted_at = max(t.number for t in trials(db))
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        after = [t for t in trials(db) if t.number > hinted_at + 1 and t.state is TrialState.COMPLETE]
        if len(after) >= 16:
            break
        assert worker.poll() is None, "the worker stopped early"
        time.sleep(0.5)
    share = sum(map(in_region, after[:16])) / 16
    assert share >= 0.3, f"{share:.0%} of the worker's next 16 trials in the hinted region (6% by chance)"
    page.wait_for_function("document.querySelector('#plot-note').textContent.includes('1 hint drawn')")
    page.context.close()


def test_a_page_without_the_token_cannot_write(browser: Any, server: tuple[str, str], db: Path) -> None:
    url, _ = server
    page = open_page(browser, url)
    assert page.text_content("#mode").startswith("writes on: open the URL with ?token=")
    notes_before = study_notes(db)
    page.fill("#note-text", "written without the token")
    page.click("#note-form button")
    page.wait_for_selector("#message.error")
    assert "note refused: a write needs the token" in page.text_content("#message")
    # a page of another origin cannot send the header (no CORS), and a plain form post has no token
    status = page.evaluate(
        """async (target) => {
            const r = await fetch(target, {method: "POST", mode: "no-cors", body: '{"text": "x", "author": "x"}'});
            return r.type;
        }""",
        f"{url}/api/studies/1/notes",
    )
    assert status in ("opaque", "basic")
    assert study_notes(db) == notes_before
    page.context.close()


def test_a_note_shows_in_a_second_open_page_within_two_seconds_as_text(
    browser: Any, server: tuple[str, str], db: Path
) -> None:
    url, token = server
    writer_page = open_page(browser, f"{url}/?token={token}")
    reader = open_page(browser, url)
    time.sleep(1.5)  # both pages settled on the study's current version
    writer_page.fill("#note-text", HOSTILE)
    writer_page.click("#note-form button")
    writer_page.wait_for_selector("#message.ok")
    written = time.monotonic()
    reader.wait_for_function(
        "[...document.querySelectorAll('#notes .note-text')].some(n => n.textContent.includes('DROP TABLE'))",
        timeout=5_000,
    )
    assert time.monotonic() - written < 2.0
    shown = reader.eval_on_selector_all("#notes .note-text", "ns => ns.map(n => [n.textContent, n.innerHTML])")
    assert [HOSTILE, HOSTILE.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")] in [list(s) for s in shown]
    assert reader.evaluate("window.pwned") is None and reader.locator("#notes img").count() == 0
    assert len(trials(db)) >= 2  # the quotes were data, not SQL
    writer_page.context.close()
    reader.context.close()


def test_a_point_of_the_pareto_front_opens_its_trial(browser: Any, server: tuple[str, str], db: Path) -> None:
    import json
    import urllib.request

    url, _ = server
    page = open_page(browser, url)
    page.click("#studies li:has-text('two')")
    page.wait_for_selector("#pareto-option:not([hidden])", state="attached")
    page.select_option("#plot-kind", "pareto")
    page.wait_for_selector("#pareto")
    # the study's own first plot may still be on its way and redraw it: wait for the drawn front's note
    page.wait_for_selector("#plot-note:has-text('trials on the feasible front')")
    with urllib.request.urlopen(f"{url}/api/studies/2/plots/pareto") as response:
        d = json.loads(response.read())
    k = d["on_front"].index(True)
    pareto = page.locator("#pareto")  # a locator waits for the canvas again if a live update redraws it
    w, h, pad = pareto.evaluate("c => c.width"), 440, 60
    x = pad + (d["x"][k] - min(d["x"])) / (max(d["x"]) - min(d["x"])) * (w - 2 * pad)
    y = h - pad - (d["y"][k] - min(d["y"])) / (max(d["y"]) - min(d["y"])) * (h - 2 * pad)
    pareto.click(position={"x": x, "y": y})
    page.wait_for_selector(f"#detail h3:has-text('trial {d['numbers'][k]} ')")
    page.context.close()


def test_a_slow_answer_for_the_plot_left_behind_does_not_replace_the_chosen_one(
    browser: Any, server: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from treefarm.dashboard import payloads

    convergence = payloads.PLOTS["convergence"]

    def slow(*args: Any) -> Any:
        time.sleep(2.0)
        return convergence(*args)

    monkeypatch.setitem(payloads.PLOTS, "convergence", slow)
    url, _ = server
    page = open_page(browser, url)  # the first study's convergence plot is on its way, slowly
    page.click("#studies li:has-text('two')")
    page.wait_for_selector("#pareto-option:not([hidden])", state="attached")
    page.select_option("#plot-kind", "pareto")
    page.wait_for_selector("#plot-note:has-text('trials on the feasible front')")
    page.wait_for_timeout(3000)  # every convergence answer has arrived by now
    assert page.locator("#pareto").count() == 1
    assert "trials on the feasible front" in page.text_content("#plot-note")
    assert page.eval_on_selector("#plot", "p => p.dataset.kind") == "pareto"
    page.context.close()


def test_a_trial_asked_in_the_page_of_a_study_with_a_fidelity_shows_at_which(
    browser: Any, server: tuple[str, str]
) -> None:
    url, token = server
    page = open_page(browser, f"{url}/?token={token}")
    page.click("#studies li:has-text('rungs')")
    page.wait_for_selector("#studies li.active:has-text('rungs')")
    page.click("#act summary")
    page.click("#ask")
    page.wait_for_selector("#asked .asked")
    assert "at fidelity 1:" in page.text_content("#asked .asked")
    page.context.close()
