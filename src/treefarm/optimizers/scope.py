"""Which spaces an optimizer searches: a recursive space is refused by the
optimizers that need a fixed set of decisions, naming the ones that search it.

The names come from the registry and each class's
:attr:`~treefarm.optimizers.base.Optimizer.searches_recursive`, so a new
optimizer is named here by saying so on its class, not by editing a list.
"""

from __future__ import annotations

from ..exceptions import SpaceError
from ..space import Space, addresses, analyze
from ..space.config import Decision
from .registry import recursive_algos

__all__ = ["fixed_addresses", "refuse_recursive"]


def refuse_recursive(root: Space, algo: str, needs: str) -> None:
    """Raise, for an optimizer that ``needs`` a kind of space a recursive ``root``
    is not, the error naming the algorithms that search it; nothing otherwise."""
    if analyze(root).recursive:
        raise SpaceError(
            f"algo={algo!r} needs {needs}, but got a recursive space={root!r}; search it with one of "
            f"algo={', '.join(map(repr, recursive_algos()))}"
        )


def fixed_addresses(root: Space, algo: str) -> list[tuple[str, Decision]]:
    """Every decision address of ``root`` (:func:`treefarm.space.addresses`), for
    an optimizer whose coordinates are that fixed list; a recursive space, which
    has unboundedly many, is refused (:func:`refuse_recursive`)."""
    refuse_recursive(root, algo, "a space with a fixed set of decisions (flat or conditional)")
    return addresses(root)
