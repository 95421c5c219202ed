"""Draw the README's images: one per plot kind and screenshots of the dashboard.

    python docs/make_images.py            # writes docs/images/*.png

Runs small real studies (a conditional network-tuning space with learning
curves, five seeds of it for the median band, and the grammar of examples/symbolic_regression.py)
into a temporary SQLite file, draws every plot kind with ``treefarm.viz``,
then serves the file with the dashboard (writes on) and photographs it in
Debian's headless Chromium, acting from the page as a person would (a hint,
a note), skipped with a message where chromium or playwright is absent.
Deterministic: fixed seeds.
"""

from __future__ import annotations

import importlib.util
import math
import shutil
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import treefarm as tf
from treefarm import viz
from treefarm.storage import open_storage

OUT = Path(__file__).resolve().parent / "images"

NETWORK = {
    "lr": tf.Real(1e-5, 1e-1, log=True),
    "layers": tf.Int(1, 6),
    "optimizer": tf.Join(adam={"name": "adam"}, sgd={"name": "sgd", "momentum": tf.Real(0.0, 0.99)}),
}


def network_loss(p: dict[str, Any], trial: tf.Trial) -> float:
    """A made-up validation loss with a learning curve of 8 epochs."""
    final = 0.1 + (math.log10(p["lr"]) + 3) ** 2 / 4 + 0.05 * (p["layers"] - 3) ** 2
    if p["optimizer"]["name"] == "sgd":
        final += 2 * (p["optimizer"]["momentum"] - 0.9) ** 2 + 0.1
    for epoch in range(8):
        trial.report(epoch, final + 2.0 * math.exp(-0.5 * epoch))
    return final


def symbolic_regression() -> Any:
    """The example module ``examples/symbolic_regression.py`` (its grammar ``space`` and ``objective``)."""
    path = Path(__file__).resolve().parents[1] / "examples" / "symbolic_regression.py"
    spec = importlib.util.spec_from_file_location("symbolic_regression", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def run_studies(db: str) -> None:
    tf.Study.create("network", space=NETWORK, storage=db, algo="tpe", seed=0).optimize(network_loss, 150)
    for seed in range(5):
        study = tf.Study.create(f"network-seed{seed}", space=NETWORK, storage=db, algo="tpe", seed=seed + 1)
        study.optimize(network_loss, 60)
    example = symbolic_regression()
    grammar = tf.Study.create("symbolic_regression", space=example.space, storage=db, algo="anneal", seed=0)
    grammar.optimize(example.objective, 300)


def draw_plots(db: str) -> None:
    storage = open_storage(db)
    network = viz.StudyData.load(storage, "network")
    seeds = [viz.StudyData.load(storage, f"network-seed{s}") for s in range(5)]
    expressions = viz.StudyData.load(storage, "symbolic_regression")
    figures = {
        "convergence": viz.plot_convergence(network),
        "convergence_band": viz.plot_convergence(seeds),
        "slices": viz.plot_slices(network),
        "importance": viz.plot_importance(network),
        "parallel": viz.plot_parallel_coordinates(network),
        "intermediate": viz.plot_intermediate(network),
        "gp": viz.plot_gp_posterior(network, "lr"),
        "structures": viz.plot_structures(expressions),
    }
    for name, fig in figures.items():
        fig.savefig(OUT / f"plot_{name}.png", dpi=80)
        print(f"wrote {OUT / f'plot_{name}.png'}")
    storage.close()


def _serve(db: str) -> tuple[Any, Any, Any, str]:
    """The dashboard on ``db`` with writes on (token ``images``), in a thread: (server, thread, storage, url)."""
    import uvicorn

    from treefarm.dashboard import create_app
    from treefarm.dashboard.readonly import open_for_writes
    from treefarm.dashboard.security import WriteAccess, allowed_hosts
    from treefarm.dashboard.writes import Writer

    storage = open_for_writes(db)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    access = WriteAccess("images", allowed_hosts("127.0.0.1", port))
    app = create_app(storage, writer=Writer(storage, [NETWORK]), access=access)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    return server, thread, storage, f"http://127.0.0.1:{port}/"


def _note_is(page: Any, text: str) -> None:
    page.wait_for_function(f"document.querySelector('#plot-note').textContent.includes({text!r})", timeout=120_000)


def _plot_panel(page: Any, name: str) -> None:
    """The plot's controls, note and drawing (the panel itself is as tall as the table beside it)."""
    top, bottom = page.locator("#plot-controls").bounding_box(), page.locator("#plot").bounding_box()
    height = bottom["y"] + bottom["height"] - top["y"] + 8
    clip = {"x": top["x"], "y": top["y"], "width": top["width"], "height": height}
    page.screenshot(path=str(OUT / name), clip=clip, full_page=True)


def photograph(page: Any) -> None:
    """The study page, a trial page, acting (a hint drawn on its slice, a note), two
    parameters, and studies compared."""
    page.wait_for_selector("#plot canvas")
    page.click("th[data-sort=value]")
    page.wait_for_selector("th.sorted[data-sort=value]")
    page.screenshot(path=str(OUT / "dashboard.png"))
    page.select_option("#plot-kind", "gp")
    _note_is(page, "others at")
    page.click("#trials tbody tr")
    page.wait_for_selector("#detail-posterior .uplot", timeout=120_000)
    page.locator("#detail").screenshot(path=str(OUT / "dashboard_gp_trial.png"))
    page.click("#close-trial")
    page.select_option("#plot-kind", "slices")
    _note_is(page, "active")
    page.click("#act summary")
    page.fill("#config-inputs [data-address=lr]", "0.001")
    page.fill("#hint-credibility", "0.9")
    page.click("#add-hint")
    page.wait_for_selector("#hints tbody tr")
    _note_is(page, "1 hint drawn")
    page.fill("#note-text", "lr near 1e-3 looks best; hinted there")
    page.click("#note-form button")
    page.wait_for_selector("#notes .note-text")
    _note_is(page, "1 hint drawn")
    page.screenshot(path=str(OUT / "dashboard_act.png"))
    page.select_option("#plot-kind", "relationship")
    _note_is(page, "colour")
    _plot_panel(page, "dashboard_relationship.png")
    page.click("#studies li:has-text('network-seed0')")
    page.select_option("#plot-kind", "compare")
    _note_is(page, "best value so far")
    _plot_panel(page, "dashboard_compare.png")


def screenshots(db: str) -> None:
    chromium = shutil.which("chromium")
    try:
        import uvicorn  # noqa: F401
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        print(f"no dashboard screenshots: {error}", file=sys.stderr)
        return
    if chromium is None:
        print("no dashboard screenshots: Debian's chromium is not installed", file=sys.stderr)
        return
    server, thread, storage, url = _serve(db)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        # bypass_csp: the waits below evaluate their own predicates in the page
        page = browser.new_page(viewport={"width": 1400, "height": 860}, bypass_csp=True)
        page.goto(f"{url}?token=images")
        photograph(page)
        browser.close()
    server.should_exit = True
    thread.join(10)
    storage.close()
    print(f"wrote the dashboard screenshots in {OUT}")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "demo.db")
        run_studies(db)
        draw_plots(db)
        screenshots(db)


if __name__ == "__main__":
    main()
