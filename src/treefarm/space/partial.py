"""Partial configurations: some decisions of an instance, as a person states them.

A hint names a region by a few decisions (``{"lr": 1e-3}``, ``{"kernel":
"poly", "kernel.poly.degree": 3}``, a grammar sub-expression's decisions).
It is checked by walking the space with the hint's own decisions: a join the
hint does not state takes the option that a stated address below it names
(``{"model.tree.depth": 3}`` implies ``model = "tree"``, and the normalized
hint says so), every hinted address must be reached, and every value must
fit its node. Walked to the end, the same decisions make a whole
configuration (:func:`complete_partial`): every unstated decision at the
median of its prior, so that a configuration from a related space can be
evaluated here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..exceptions import ConfigError
from .config import ROOT_ADDRESS, Config, Decision, Scalar, check_decision
from .convert import convert
from .nodes import Join
from .sample import decision_at, unsupported
from .walk import walk

__all__ = ["check_partial", "complete_partial", "zero_weight"]


def _implied_option(
    address: str, node: Decision, allowed: tuple[int, ...], partial: Mapping[str, Any]
) -> Scalar | None:
    """The option of an unstated join that a stated address below it names
    (``model.tree.depth`` names ``model = "tree"``), if any."""
    if not isinstance(node, Join):
        return None
    # The root join's decision is stored at ROOT_ADDRESS; the addresses below it carry no prefix.
    prefix = "" if address in ("", ROOT_ADDRESS) else f"{address}."
    for key in partial:
        if key.startswith(prefix) and key != address:
            label = key[len(prefix) :].split(".", 1)[0]
            index = node.index_of(label)
            if index is not None and index in allowed:
                return node.labels[index]
    return None


def _walk_partial(space: Any, partial: Mapping[str, Any]) -> tuple[Config, dict[str, Scalar]]:
    """The whole configuration the partial's decisions make (the rest at the
    prior's median) and the decisions the partial states or implies; a
    ConfigError as :func:`check_partial` says."""
    if not isinstance(partial, Mapping) or not partial:
        raise ConfigError(
            f"a partial configuration must be a non-empty mapping of address to decision, but got config={partial!r}"
        )
    reached: dict[str, Scalar] = {}

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        if address not in partial:
            implied = _implied_option(address, node, allowed, partial)
            if implied is not None:
                reached[address] = implied
                return implied
            return decision_at(node, allowed, 0.5)
        value = check_decision(address, node, partial[address])
        if isinstance(node, Join) and node.index_of(value) not in allowed:
            raise ConfigError(
                f"{address} must be an option allowed at this depth, one of "
                f"{[node.labels[i] for i in allowed]!r}, but got {address}={value!r}",
                address=address,
            )
        reached[address] = value
        return value

    config, _ = walk(convert(space), decide)
    for address, value in partial.items():
        if address not in reached:
            raise ConfigError(
                "every address of a partial configuration must be a decision of the space reached "
                "through the configuration's own choices (name the options of the joins above it), "
                f"but got {address}={value!r}",
                address=address,
            )
    return config, reached


def check_partial(space: Any, partial: Mapping[str, Any]) -> dict[str, Scalar]:
    """The partial configuration, normalized; a ConfigError naming the first
    address that is unknown, unreachable through the hint's own choices, or
    whose value does not fit."""
    return _walk_partial(space, partial)[1]


def complete_partial(space: Any, partial: Mapping[str, Any]) -> Config:
    """A whole configuration of ``space``: the partial's decisions (checked as
    :func:`check_partial` checks them), every other decision at the median of
    its prior (:func:`treefarm.space.sample.decision_at` at 1/2)."""
    return _walk_partial(space, partial)[0]


def zero_weight(space: Any, partial: Mapping[str, Any]) -> list[str]:
    """The addresses of the (checked) partial configuration whose choice value or
    join option has prior weight 0: a good hint there could not act, since no
    optimizer proposes such an option."""
    return [a for a in unsupported(space, complete_partial(space, partial)) if a in partial]
