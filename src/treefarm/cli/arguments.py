"""Argument types of the commands: values checked as argparse parses them, so a bad
one is a usage error naming it (status 2), never a traceback from deeper down."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TypeVar

from ..exceptions import ConfigError
from ..objectives import DIRECTIONS, Objectives
from ..optimizers import available

__all__ = [
    "MAX_DPI",
    "PRUNER_HELP",
    "RETRY_DEADLINE_HELP",
    "algo_option",
    "deadline_option",
    "direction_options",
    "directions_list",
    "dpi",
    "positive_float",
    "positive_int",
    "storage_argument",
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


def directions_list(text: str) -> list[str] | dict[str, str]:
    """``--directions``: comma-separated ``minimize``/``maximize``, one per objective,
    each named or none (``minimize,maximize`` or ``error=minimize,size=maximize``)."""
    parts = [p.strip() for p in text.split(",")]
    named = [p.partition("=") for p in parts]
    given: list[str] | dict[str, str] = parts
    if all(eq for _, eq, _ in named):
        given = {name.strip(): direction.strip() for name, _, direction in named}
    try:
        if len(given) != len(parts) or not text.strip():
            raise ConfigError("the objectives' names must differ")
        Objectives.parse(directions=given)
    except ConfigError:
        raise argparse.ArgumentTypeError(
            "expected comma-separated minimize or maximize, each named or none (e.g. minimize,maximize "
            f"or error=minimize,size=maximize), but got {text!r}"
        ) from None
    return given


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
MAX_COST_HELP = (
    "the study's cost budget, shared by every process: the steps its learning curves report, or its "
    "fidelity's cost (default: no limit)"
)
FIDELITY_HELP = (
    "name of a Fidelity in the file: each trial is evaluated at one fidelity, read as trial.fidelity "
    "(default: the file's `fidelity` if it is one)"
)
PRUNER_HELP = (
    "name of a Pruner in the file, or of a function making one, to stop unpromising trials early "
    "(the objective takes (params, trial) and reports; default: no pruning)"
)


class _Given(argparse.Action):
    """Store a value only when one is given: an empty ``STORAGE`` positional leaves ``--storage``'s."""

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option_string: str | None = None
    ) -> None:
        if values is not None:
            setattr(namespace, self.dest, values)


def storage_argument(parser: argparse.ArgumentParser, help: str = "path or URL of the storage") -> None:
    """The storage as the positional ``STORAGE`` or as ``--storage`` (as ``run`` takes it):
    exactly one of them, else a usage error naming both (``args.storage`` either way)."""
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("storage", nargs="?", metavar="STORAGE", action=_Given, help=help)
    group.add_argument("--storage", dest="storage", metavar="STORAGE", action=_Given, help="the storage, as an option")


def direction_options(parser: argparse.ArgumentParser, *, default: str, several: str, metavar: str) -> None:
    """``--direction`` (one objective; ``default`` says what is taken without it) and
    ``--directions`` (one per objective, :func:`directions_list`; ``several`` is its help)."""
    parser.add_argument("--direction", default=None, choices=DIRECTIONS, help=f"(default: {default})")
    parser.add_argument("--directions", type=directions_list, default=None, metavar=metavar, help=several)


def algo_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--algo``: a registered optimizer name, checked as ``run`` checks it."""
    parser.add_argument("--algo", default=None, choices=available(), help=help)
