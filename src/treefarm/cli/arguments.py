"""Argument types of the commands: values checked as argparse parses them, so a bad
one is a usage error naming it (status 2), never a traceback from deeper down."""

from __future__ import annotations

import argparse

__all__ = ["positive_float", "positive_int"]


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, but got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, but got {text!r}")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number > 0, but got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number > 0, but got {text!r}")
    return value
