"""Configurations back to values: validation and building.

``build(space, config)`` replays a configuration through the space and calls
the ops, returning the user's Python value (a choice's value, never its
index). ``validate`` checks the same without calling anything. Both reject a
missing decision, a value of the wrong type or out of bounds, an unknown
address, and a decision on a branch the configuration did not take, each
with the address and value in the message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..exceptions import ConfigError
from .analysis import analyze
from .config import Config, Decision, Scalar
from .convert import convert
from .extension import addresses
from .nodes import Apply, Op, Space
from .walk import Args, Call, walk

__all__ = ["Expression", "build", "params", "trace", "validate"]


def _replay(
    space: Space, config: Mapping[str, Any], *, build: bool, call: Call | None = None
) -> tuple[Config, Any]:
    if not isinstance(config, Mapping):
        raise ConfigError(f"a config must be a mapping of address to decision, but got config={config!r}")
    used: set[str] = set()

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        if address not in config:
            unknown = _unknown_keys(space, config)
            raise ConfigError(
                f"the decision at {address} is missing, expected one for {node!r}"
                + (f" (the config has keys that are no address of the space: {unknown})" if unknown else "")
            )
        used.add(address)
        return config[address]

    result = walk(convert(space), decide, build=build, call=call)
    extra = [k for k in config if k not in used]
    if extra:
        raise ConfigError(
            "every decision must belong to an active address of the space, but got "
            f"{extra[0]}={config[extra[0]]!r} (an unknown address, or a branch this config did not take)"
        )
    return result


def _unknown_keys(space: Space, config: Mapping[str, Any]) -> list[str]:
    """The keys of ``config`` that are no address of a non-recursive ``space`` (a
    misspelt name); none for a recursive space, whose addresses are unbounded."""
    root = convert(space)
    if analyze(root).recursive:
        return []
    known = {address for address, _ in addresses(root)}
    return [key for key in config if key not in known]


def validate(space: Any, config: Mapping[str, Any]) -> Config:
    """The config, normalized, if it fits the space; else a :class:`ConfigError`."""
    return _replay(space, config, build=False)[0]


def build(space: Any, config: Mapping[str, Any]) -> Any:
    """The Python value the config selects from the space (the ops are called)."""
    return _replay(space, config, build=True)[1]


def trace(space: Any, config: Mapping[str, Any]) -> list[tuple[str, Decision]]:
    """The ``(address, node)`` of each decision of ``config``, in walk order:
    for a recursive space, the decisions this instance actually has."""
    nodes: list[tuple[str, Decision]] = []

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        if address not in config:
            raise ConfigError(f"the decision at {address} is missing, expected one for {node!r}")
        nodes.append((address, node))
        return config[address]

    walk(convert(space), decide)
    return nodes


class Expression:
    """An op's application left uncalled: the op's name and its built arguments,
    shown as the code that would call it (``add(1, mul(2, 3))``)."""

    __slots__ = ("arguments", "name")

    def __init__(self, name: str, arguments: Any) -> None:
        self.name = name
        self.arguments = arguments

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Expression) and (self.name, self.arguments) == (other.name, other.arguments)

    def __hash__(self) -> int:
        return hash((self.name, repr(self.arguments)))

    def __repr__(self) -> str:
        a = self.arguments
        if isinstance(a, Args):
            parts = [*map(repr, a.args), *(f"{k}={v!r}" for k, v in a.kwargs.items())]
        elif isinstance(a, dict):
            parts = [f"{k}={v!r}" for k, v in a.items()]
        else:
            parts = [repr(v) for v in a]
        return f"{self.name}({', '.join(parts)})"


def _uncalled(op: Op, arguments: Any) -> Expression:
    return Expression(op.name, arguments)


def params(space: Any, config: Mapping[str, Any]) -> Any:
    """The configuration's values arranged as the space arranges them, without
    calling any op (no user code runs): choices as their values, families as
    lists, tuples and dicts, applications as :class:`Expression`. For a space
    that applies a function to its parameters (``op(f)(params)``), the
    arguments of that application: the value ``f`` would receive."""
    root = convert(space)
    if isinstance(root, Apply):
        built = _replay(root.args, config, build=True, call=_uncalled)[1]
        if isinstance(built, (tuple, list)) and len(built) == 1:
            return built[0]
        return built
    return _replay(root, config, build=True, call=_uncalled)[1]
