"""Shared helpers of the space tests: extensions as sets of hashable values."""

from __future__ import annotations

from typing import Any

from treefarm.space import Args, Space, build, enumerate_configs


def freeze(value: Any) -> Any:
    """A hashable stand-in for a built value (lists, dicts, Args)."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(freeze(v) for v in value))
    if isinstance(value, dict):
        return ("dict", frozenset((k, freeze(v)) for k, v in value.items()))
    if isinstance(value, Args):
        return ("Args", freeze(value.args), freeze(value.kwargs))
    return value


def extension(space: Space, limit: int = 20_000) -> frozenset[Any]:
    """The set of values a finite space builds."""
    return frozenset(freeze(build(space, c)) for c in enumerate_configs(space, limit=limit))
