"""Argument types of the commands: values checked as argparse parses them, so a bad
one is a usage error naming it (status 2), never a traceback from deeper down."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = [
    "MAX_DPI",
    "PRUNER_HELP",
    "RETRY_DEADLINE_HELP",
    "deadline_option",
    "directions_list",
    "dpi",
    "positive_float",
    "positive_int",
    "unit",
]

_N = TypeVar("_N", int, float)


def _checked(parse: Callable[[str], _N], ok: Callable[[_N], bool], expected: str) -> Callable[[str], _N]:
    """An argparse type: ``parse(text)``, refused with ``expected`` unless ``ok``."""

    def check(text: str) -> _N:
        try:
            value = parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, but got {text!r}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"expected {expected}, but got {text!r}")
        return value

    return check


positive_int = _checked(int, lambda v: v >= 1, "an integer >= 1")
positive_float = _checked(float, lambda v: v > 0, "a number > 0")
unit = _checked(float, lambda v: 0 <= v <= 1, "a number in [0, 1]")

MAX_DPI = 1200
"""The finest ``--dpi`` of ``plot``: print quality. A 10 by 6 inch figure at 20000 dpi would
take 24 billion pixels (about 100 GB of memory) before anything is written."""
dpi = _checked(
    int, lambda v: 1 <= v <= MAX_DPI, f"an integer in [1, {MAX_DPI}] (finer makes images of gigabytes)"
)


def directions_list(text: str) -> list[str]:
    """``--directions``: comma-separated ``minimize``/``maximize``, one per objective."""
    parts = [p.strip() for p in text.split(",")]
    bad = [p for p in parts if p not in ("minimize", "maximize")]
    if bad or not text.strip():
        raise argparse.ArgumentTypeError(
            f"expected comma-separated minimize or maximize (e.g. minimize,maximize), but got {text!r}"
        )
    return parts


#: The ``--retry-deadline`` option of ``run`` and ``show``.
RETRY_DEADLINE_HELP = (
    "seconds to ride out an outage of a database server that has answered once "
    "(default: 60; a server that never answers fails within 5 s)"
)


def deadline_option(args: argparse.Namespace) -> dict[str, Any]:
    """``--retry-deadline`` as the storage's option, when given."""
    return {} if args.retry_deadline is None else {"retry_deadline": args.retry_deadline}


#: The ``--allow-space-change`` option of ``run`` and ``worker``.
ALLOW_SPACE_CHANGE_HELP = (
    "go on with a study whose file's space changed since it was created (a widened range, a new "
    "option): its trials stay, the change is recorded in the study"
)

#: The ``--pruner`` option of ``run`` and ``worker``.
PRUNER_HELP = (
    "name of a Pruner in the file, or of a function making one, to stop unpromising trials early "
    "(the objective takes (params, trial) and reports; default: no pruning)"
)
