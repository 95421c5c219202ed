"""A progress display for ``treefarm run``: trials done, best so far, elapsed and ETA.

On a terminal one line is redrawn in place; otherwise (a log file, CI) each
finished trial prints one plain line, so the output stays readable.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from collections.abc import Iterator
from typing import TextIO

from ..storage import TrialRecord, TrialState
from ..study import Study

__all__ = ["CLAIMED", "Progress", "own_lines"]

CLAIMED = (TrialState.RUNNING, TrialState.COMPLETE, TrialState.FAILED, TrialState.PRUNED)
"""The states a study-wide budget counts: the trials done when a run or a worker starts."""


@contextlib.contextmanager
def own_lines() -> Iterator[None]:
    """While the command prints its own line per trial, the library's per-trial log
    lines (logger ``treefarm.trials``) are held back, so no trial is told twice;
    its warnings (every trial failed, a rule stopped the run) still show."""
    logger = logging.getLogger("treefarm.trials")
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def _clock(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Progress:
    """A study callback printing progress towards ``total`` trials (None: unknown)."""

    def __init__(self, total: int | None, *, stream: TextIO | None = None, done: int = 0) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        self.done = done
        self.new = 0
        self.failed = 0

    def line(self, study: Study, record: TrialRecord) -> str:
        """The text shown after ``record`` finished."""
        elapsed = time.monotonic() - self.started
        count = f"{self.done}/{self.total}" if self.total else str(self.done)
        try:
            best = f"{study.best_value:.6g} (trial {study.best_trial.number})"
        except Exception:
            best = "-"
        eta = ""
        if self.total and self.new:
            eta = f" eta {_clock(elapsed / self.new * max(self.total - self.done, 0))}"
        state = f"{record.value:.6g}" if record.state is TrialState.COMPLETE else record.state.value
        reason = record.system_attrs.get("fail_reason")
        if isinstance(reason, str) and reason.strip():
            first = reason.strip().splitlines()[0]
            state += f" ({first[:77] + '…' if len(first) > 78 else first})"
        fails = f" failed {self.failed}" if self.failed else ""
        return f"trial {record.number}: {state} | done {count}{fails} | best {best} | {_clock(elapsed)}{eta}"

    def __call__(self, study: Study, record: TrialRecord) -> None:
        self.done += 1
        self.new += 1
        self.failed += record.state is TrialState.FAILED
        text = self.line(study, record)
        if self.tty:
            self.stream.write("\r\033[K" + text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
