"""The one traversal every space operation shares.

``walk(space, decide)`` visits an instance top-down, asking ``decide`` for each
decision it meets: a value for a :class:`Real`, :class:`Int` or
:class:`Choice`, the label of an option for a :class:`Join`. Sampling,
validation, building, enumeration, and later the optimizers' proposals (TPE
per address, annealing's mutations) are each just a different ``decide``.

Only the join options whose recursion can finish within the depth bound are
offered (see :mod:`treefarm.space.analysis`); a join with a single option
makes no decision. A shared sub-space is walked once, at its first
occurrence, and its value reused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ..exceptions import ConfigError, SpaceError
from .analysis import Analysis, analyze
from .chosen import Chosen
from .config import ROOT_ADDRESS, Config, Decision, Scalar, check_decision, child_address
from .nodes import Apply, Const, Family, Join, Op, Shared, Space
from .primitives import Choice, Int, Real
from .recursion import Var
from .variables import Loop

__all__ = ["Args", "Decide", "walk"]


class Decide(Protocol):
    """Returns the decision at ``address``; for a join, ``allowed`` lists the
    indices of the options that may be taken (never empty)."""

    def __call__(self, address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar: ...


#: Replaces calling an op while building: ``call(op, built_arguments) -> value``.
Call = Callable[[Op, Any], Any]


class Args:
    """The built value of a family with both positional and keyword members."""

    __slots__ = ("args", "kwargs")

    def __init__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.args = args
        self.kwargs = kwargs

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Args) and (self.args, self.kwargs) == (other.args, other.kwargs)

    def __hash__(self) -> int:
        return hash((self.args, tuple(sorted(self.kwargs.items()))))

    def __repr__(self) -> str:
        parts = [*map(repr, self.args), *(f"{k}={v!r}" for k, v in self.kwargs.items())]
        return f"Args({', '.join(parts)})"


class _Walk:
    def __init__(
        self, analysis: Analysis, decide: Decide, build: bool, check: bool, call: Call | None
    ) -> None:
        self.analysis = analysis
        self.decide = decide
        self.build = build
        self.check = check
        self.call = call
        self.decisions: dict[str, Scalar] = {}
        self.shared: dict[str, Any] = {}

    def record(self, address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        key = address or ROOT_ADDRESS
        value = self.decide(key, node, allowed)
        if self.check:
            value = check_decision(key, node, value)
        self.decisions[key] = value
        return value

    def visit(self, node: Space, address: str, depth: int) -> Any:
        handler = _HANDLERS.get(type(node))
        if handler is None:
            raise SpaceError(f"unknown space node type, but got node={node!r}")
        return handler(self, node, address, depth)

    def numeric(self, node: Any, address: str, depth: int) -> Any:
        return self.record(address, node, ())

    def choice(self, node: Choice, address: str, depth: int) -> Any:
        decision = self.record(address, node, ())
        return node.values[node.index_of(decision) or 0] if self.build else None

    def const(self, node: Const, address: str, depth: int) -> Any:
        return node.value

    def op(self, node: Op, address: str, depth: int) -> Any:
        return node.func

    def family(self, node: Family, address: str, depth: int) -> Any:
        args = [self.visit(a, child_address(address, str(i)), depth) for i, a in enumerate(node.args)]
        kwargs = {k: self.visit(v, child_address(address, k), depth) for k, v in node.kwargs.items()}
        if not self.build:
            return None
        if not node.kwargs:
            return list(args) if node.kind == "list" else tuple(args)
        return Args(tuple(args), kwargs) if node.args else kwargs

    def apply(self, node: Apply, address: str, depth: int) -> Any:
        built = self.family(node.args, address, depth)
        if not self.build:
            return None
        if self.call is not None:
            return self.call(node.op, built)
        if isinstance(built, Args):
            return node.op.func(*built.args, **built.kwargs)
        if isinstance(built, dict):
            return node.op.func(**built)
        return node.op.func(*built)

    def join(self, node: Join, address: str, depth: int) -> Any:
        limit, need = self.analysis.depth_limit, self.analysis.need_of
        allowed = tuple(i for i, o in enumerate(node.options) if depth + need(o) <= limit)
        if len(node.options) == 1:
            index = 0
        else:
            label = self.record(address, node, allowed)
            index = node.labels.index(label)
            if index not in allowed:
                raise ConfigError(
                    f"option {label!r} at {address or ROOT_ADDRESS} cannot finish within the "
                    f"recursion bound max_depth={limit}, but got {address or ROOT_ADDRESS}={label!r}"
                )
        built = self.visit(node.options[index], child_address(address, node.labels[index]), depth)
        if type(built) is dict or (built == () and _joins_dicts(node)):
            return Chosen(node.labels[index], built)
        return built

    def var(self, node: Var, address: str, depth: int) -> Any:
        return self.visit(node.body, address or node.name, depth + 1)

    def loop(self, node: Loop, address: str, depth: int) -> Any:
        value = self.visit(node.init, child_address(address, "init"), depth)
        times = self.visit(node.times, child_address(address, "times"), depth)
        update: Space = node.update
        if isinstance(update, Join):
            at = child_address(address, "update")
            label = (
                self.record(at, update, tuple(range(len(update.options))))
                if len(update.options) > 1
                else None
            )
            update = update.options[0 if label is None else update.labels.index(label)]
        assert isinstance(update, Op)
        if not self.build:
            return None
        for _ in range(int(times)):
            value = self.call(update, (value,)) if self.call is not None else update.func(value)
        return value

    def shared_node(self, node: Shared, address: str, depth: int) -> Any:
        if node.key not in self.shared:
            self.shared[node.key] = self.visit(node.space, "@" + node.key, depth)
        return self.shared[node.key]


def _joins_dicts(node: Join) -> bool:
    """Whether a join's options are keyword families (dicts), where an empty one (``{}``,
    which converts like ``()``) builds an empty dict that knows its option."""
    return any(isinstance(o, Family) and o.kwargs and not o.args for o in node.options)


_HANDLERS: dict[type, Callable[[_Walk, Any, str, int], Any]] = {
    Real: _Walk.numeric,
    Int: _Walk.numeric,
    Choice: _Walk.choice,
    Const: _Walk.const,
    Op: _Walk.op,
    Family: _Walk.family,
    Apply: _Walk.apply,
    Join: _Walk.join,
    Var: _Walk.var,
    Shared: _Walk.shared_node,
    Loop: _Walk.loop,
}


def walk(
    space: Space, decide: Decide, *, build: bool = False, check: bool = True, call: Call | None = None
) -> tuple[Config, Any]:
    """Walk one instance of ``space``; return its config and, if ``build``, its value.

    ``check=False`` skips validating each decision, for deciders that can only
    return valid ones (sampling from the prior); everything else keeps it.
    ``call(op, arguments)`` replaces calling the ops while building (the
    arguments are the built family: a tuple, list, dict or :class:`Args`),
    e.g. to build a symbolic term instead of the user's value.
    """
    state = _Walk(analyze(space), decide, build, check, call)
    value = state.visit(space, "", 0)
    return (Config(state.decisions) if check else Config.trusted(state.decisions)), value
