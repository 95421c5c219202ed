"""The library's log output when the user has not configured logging.

Everything treefarm says goes to the ``treefarm`` logger (a line per finished
trial at INFO on ``treefarm.trials``, warnings on ``treefarm``). Like Optuna,
treefarm talks by default: the ``treefarm`` logger is set to INFO (unless the
user set its level first) and carries one handler that prints on standard
error, but only while the root logger has no handler, so a program that
configures logging (``logging.basicConfig``, a framework, pytest) gets each
record once, through its own handlers. Silence it the usual way:
``logging.getLogger("treefarm").setLevel(logging.WARNING)``.

While a progress bar is drawn, lines go through ``tqdm.write`` so that the
bar is redrawn below them instead of torn.
"""

from __future__ import annotations

import logging
import sys

__all__ = ["DefaultHandler", "install"]

FORMAT = "[treefarm %(levelname)s %(asctime)s] %(message)s"


class DefaultHandler(logging.StreamHandler):  # type: ignore[type-arg,unused-ignore]
    """Prints on standard error (the current one) while the root logger has no handler."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter(FORMAT, datefmt="%H:%M:%S"))

    def emit(self, record: logging.LogRecord) -> None:
        if logging.getLogger().handlers:
            return
        self.stream = sys.stderr
        tqdm = sys.modules.get("tqdm.std")
        if tqdm is not None and getattr(tqdm.tqdm, "_instances", None):
            try:
                tqdm.tqdm.write(self.format(record), file=sys.stderr)
            except Exception:
                self.handleError(record)
            return
        super().emit(record)


def install() -> None:
    """Give the ``treefarm`` logger its default handler and level (once)."""
    logger = logging.getLogger("treefarm")
    if not any(isinstance(h, DefaultHandler) for h in logger.handlers):
        logger.addHandler(DefaultHandler())
    if logger.level == logging.NOTSET:
        logger.setLevel(logging.INFO)
