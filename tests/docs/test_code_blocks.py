"""Every ```python block of the documentation runs, so the pages cannot drift from the code.

Each page's blocks run in order in one fresh namespace, in a temporary working directory (a
reader pasting a page into one session); a block that raises or takes longer than
``BLOCK_SECONDS`` fails naming its page and line. Pages: ``README.md`` and every
``docs/**/*.md`` (other languages, ```console or ```text, are shown and never run).
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from .blocks import python_blocks, run_page

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "docs" / "_build"
BLOCK_SECONDS = 30.0
"""Generous for a loaded 2-core machine: the pages' blocks take well under 5 s on a quiet one."""


def pages() -> list[Path]:
    found = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [p for p in found if BUILD not in p.parents and python_blocks(p)]


@pytest.fixture(autouse=True)
def _logging_restored() -> Iterator[None]:
    """A page may change the library's logging (how to silence it): put it back after the page,
    so the tests that run later see the library's own defaults."""
    loggers = [logging.getLogger(name) for name in ("treefarm", "treefarm.trials")]
    saved = [(lg, lg.level, list(lg.handlers), lg.propagate) for lg in loggers]
    yield
    for lg, level, handlers, propagate in saved:
        lg.setLevel(level)
        lg.handlers[:] = handlers
        lg.propagate = propagate


@pytest.fixture(autouse=True)
def _agg() -> None:
    matplotlib = pytest.importorskip(
        "matplotlib", reason="the pages draw plots (pip install 'treefarm[plot]')"
    )
    matplotlib.use("Agg")


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_page_blocks_run_in_order(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    try:
        run_page(page, limit=BLOCK_SECONDS)
    finally:
        import matplotlib.pyplot as plt

        plt.close("all")
        gc.collect()


def test_the_getting_started_page_has_blocks() -> None:
    page = ROOT / "docs" / "getting-started.md"
    assert len(python_blocks(page)) >= 3, f"{page} should walk a newcomer through runnable blocks"


def test_blocks_are_extracted_by_language(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text(
        "text\n```python\nx = 1\n```\n```console\n$ treefarm\n```\n"
        "````markdown\n```python\nnot run\n```\n````\n```python\ny = x + 1\n```\n"
    )
    assert [b.code for b in python_blocks(page)] == ["x = 1\n", "y = x + 1\n"]
    assert [b.line for b in python_blocks(page)] == [3, 14]


NOT_RUN = {
    "docs/guide/parallel-and-dask.md": "starts a Dask cluster whose worker processes import the objective from a script",
    "docs/guide/integrations.md": "starts Ray, Ray Tune and Keras's torch backend, each slower to start than a block "
    "may take; tests/execution/test_ray.py, tests/integration/test_ray_tune.py (Ray's own example) and "
    "tests/integration/test_keras_pruning.py run them",
    "docs/guide/fidelities.md": "sketches around a user's own training loop and data; the runnable versions are "
    "examples/boosting_rounds.py, examples/data_subset.py and examples/epochs_resume.py, which "
    "tests/test_examples.py runs",
}
"""Pages allowed a ```{code-block} python directive, which is shown and not run, and why."""


def test_python_shown_but_not_run_only_where_allowed() -> None:
    shown = {
        str(p.relative_to(ROOT))
        for p in (ROOT / "docs").rglob("*.md")
        if BUILD not in p.parents and "{code-block} python" in p.read_text(encoding="utf-8")
    }
    assert shown <= set(NOT_RUN), (
        f"a python example in the docs should be a ```python block, which the tests run; pages showing "
        f"python that never runs ({{code-block}} python) must be listed in NOT_RUN with the reason, but got "
        f"{sorted(shown - set(NOT_RUN))}"
    )
