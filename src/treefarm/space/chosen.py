"""The value a join's option builds, when it is a dict, knows which option it came from.

``Join(adam={"lr": Real(...)}, sgd={"lr": ..., "momentum": ...})`` builds a
:class:`Chosen`: a ``dict`` (equal to, and serialized as, the plain dict of
its members) whose ``option`` is the label of the chosen option, so the
objective tells the branches apart without a marker key::

    opt = params["optimizer"]
    if opt.option == "sgd":
        use(opt["momentum"])

An option with no members (``adam={}``) in a join of dicts builds an empty
``Chosen`` that still knows its label. Options building anything else (a number, a tuple, an op's
result) are returned as built: the value itself then says what it is.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Chosen"]


class Chosen(dict[str, Any]):
    """A dict built by the join option labelled ``option`` (see the module docstring)."""

    __slots__ = ("option",)

    def __init__(self, option: str, members: Any = ()) -> None:
        super().__init__(members)
        self.option = option

    def __reduce__(self) -> tuple[Any, ...]:
        return (Chosen, (self.option, dict(self)))

    def __repr__(self) -> str:
        return f"Chosen({self.option!r}, {dict.__repr__(self)})"

    def __copy__(self) -> Chosen:
        return Chosen(self.option, self)

    def __deepcopy__(self, memo: dict[int, Any]) -> Chosen:
        import copy

        return Chosen(self.option, copy.deepcopy(dict(self), memo))
