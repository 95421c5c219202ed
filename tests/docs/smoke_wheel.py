"""Smoke test of an installed treefarm (a wheel in a fresh virtual environment), not the checkout.

    python tests/docs/smoke_wheel.py SRC_PACKAGE_DIR GETTING_STARTED_PAGE

run from an empty directory by the venv's python (``.ci/release`` does). It checks what a user
of the wheel would hit first: the package imports from the environment, its version is one;
every file of the source package (dashboard assets, ``py.typed``, storage migrations, ...) was
installed; the getting-started page's blocks run in order (a study on SQLite, plots to PNG,
the dashboard's first page from a started server); the ``treefarm`` command runs, plots a study
to PNG, and the dashboard serves its static assets.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import matplotlib
from blocks import run_page  # beside this file: the script's folder is on sys.path

import treefarm

PNG = b"\x89PNG\r\n\x1a\n"


def check_installed_from_environment(source: Path) -> Path:
    installed = Path(treefarm.__file__).resolve().parent
    assert source.resolve() not in installed.parents and installed != source.resolve(), (
        f"treefarm should be imported from the installed wheel, but got {installed}"
    )
    return installed


def check_version() -> None:
    metadata = importlib.metadata.version("treefarm")
    command = Path(sys.executable).with_name("treefarm")
    printed = subprocess.run(
        [str(command), "--version"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert treefarm.__version__ == metadata == printed[-1], (
        f"the version should be one, but got __version__={treefarm.__version__!r}, metadata={metadata!r}, "
        f"treefarm --version={printed!r}"
    )


def check_every_file_installed(source: Path, installed: Path) -> None:
    def files(root: Path) -> set[str]:
        return {
            str(p.relative_to(root))
            for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix not in {".pyc", ".pyo"}
        }

    missing = sorted(files(source) - files(installed))
    assert not missing, f"every file of src/treefarm should be in the wheel, but got these missing: {missing}"


def check_getting_started(page: Path) -> None:
    for block, seconds in run_page(page):
        print(f"  {block.where}: {seconds:.2f} s")
    assert Path("first.db").stat().st_size > 0, "the getting-started study should be stored in first.db"
    for image in ("convergence.png", "importance.png"):
        assert Path(image).read_bytes()[:8] == PNG, (
            f"{image} should be a PNG drawn by the getting-started page"
        )


def check_command_line() -> None:
    command = str(Path(sys.executable).with_name("treefarm"))
    Path("tiny.py").write_text(
        "import treefarm as tf\nspace = {'x': tf.Real(-2, 2), 'k': tf.Choice('a', 'b')}\n"
        "def objective(p):\n    return (p['x'] - 0.5) ** 2 + (p['k'] == 'b')\n"
    )
    subprocess.run(
        [command, "run", "tiny.py", "--n-trials", "12", "--seed", "0", "--storage", "cli.db"], check=True
    )
    subprocess.run(
        [command, "plot", "cli.db", "--study", "tiny", "--kind", "convergence", "-o", "cli.png"], check=True
    )
    assert Path("cli.png").read_bytes()[:8] == PNG, "treefarm plot should write a PNG"


def check_dashboard_assets() -> None:
    import socket

    import uvicorn

    from treefarm.dashboard import create_app, open_read_only

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(create_app(open_read_only("cli.db")), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the dashboard should start within 30 s"
        time.sleep(0.05)
    try:
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/").read().decode()
        for asset in sorted(set(__import__("re").findall(r'(?:src|href)="(/static/[^"]+)"', page))):
            body = urllib.request.urlopen(f"http://127.0.0.1:{port}{asset}").read()
            assert body, f"the dashboard's asset {asset} should be served from the wheel"
        assert "/static/" in page, "the dashboard's first page should load its assets from /static/"
    finally:
        server.should_exit = True
        thread.join()


def main(source: Path, page: Path) -> None:
    matplotlib.use("Agg")
    installed = check_installed_from_environment(source)
    print(f"treefarm {treefarm.__version__} from {installed}")
    check_version()
    check_every_file_installed(source, installed)
    print("getting started:")
    check_getting_started(page)
    check_command_line()
    check_dashboard_assets()
    print("smoke test of the installed wheel: passed")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]).resolve())
