"""The ```python blocks of a Markdown page, and running a page's blocks in order.

Shared by the test that runs every page of the documentation against the checkout and by
the release smoke test that runs the getting-started page against an installed wheel
(``python tests/docs/blocks.py docs/getting-started.md`` in a fresh virtual environment),
so it imports nothing but the standard library.
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^(?P<indent>[ ]{0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")


@dataclass(frozen=True)
class Block:
    """One fenced block: its page, the line its code starts on (1-based) and its code."""

    page: Path
    line: int
    code: str

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def python_blocks(page: Path) -> list[Block]:
    """The blocks fenced as ```python (the info string's first word), in page order.

    Blocks of other languages (```console, ```text, ```bash) are shown, never run; a fence
    inside a longer fence (a block quoting Markdown) belongs to the outer block."""
    blocks: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group("fence"), m.group("info").strip()
        start = i + 1
        j = start
        while j < len(lines):
            close = FENCE.match(lines[j])
            if (
                close
                and close.group("fence")[0] == fence[0]
                and len(close.group("fence")) >= len(fence)
                and not close.group("info").strip()
            ):
                break
            j += 1
        if info.split(" ")[0:1] == ["python"]:
            blocks.append(Block(page, start + 1, "\n".join(lines[start:j]) + "\n"))
        i = j + 1
    return blocks


def run_page(page: Path, *, limit: float | None = None) -> list[tuple[Block, float]]:
    """Run the page's python blocks in order in one fresh namespace (as a reader pasting
    them into one session would) in the current directory; return each block's seconds.

    A block that raises fails naming its page and line; with ``limit``, so does a block
    that takes longer than ``limit`` seconds (the pages promise quick examples)."""
    namespace: dict[str, object] = {"__name__": "__docs__"}
    timings = []
    for block in python_blocks(page):
        started = time.perf_counter()
        try:
            exec(compile(block.code, block.where, "exec"), namespace)
        except Exception as exc:
            raise AssertionError(f"the python block at {block.where} raised {exc!r}") from exc
        seconds = time.perf_counter() - started
        if limit is not None and seconds > limit:
            raise AssertionError(
                f"the python block at {block.where} took {seconds:.1f} s, but a documentation "
                f"block must run within {limit} s"
            )
        timings.append((block, seconds))
    return timings


if __name__ == "__main__":
    import matplotlib

    matplotlib.use("Agg")
    for block, seconds in run_page(Path(sys.argv[1]).resolve()):
        print(f"{block.where}: {seconds:.2f} s")
