"""TPE's pooled columns on a recursive space: each decision node's values at
every position where the given configurations reached it.

A recursive space visits one node at many addresses; an address no good
trial reached takes its node's estimators pooled over every position (see
:mod:`treefarm.optimizers.tpe.proposal`). Building the pool walks every trial, so each
configuration's walk is kept (:data:`CACHE_SIZE` of them, keyed by the
space object itself, whose nodes' identities the columns hold): a suggestion
then costs one walk per new trial, not one per trial of the study.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from ...exceptions import ConfigError
from ...space import Config, Space, trace
from ...space.config import Scalar

__all__ = ["CACHE_SIZE", "node_columns"]

#: Configurations whose walks are kept (every trial of a study of up to this many).
CACHE_SIZE = 20_000


def node_columns(root: Space, configs: Sequence[Config]) -> dict[int, list[Scalar]]:
    """Each decision node's values across ``configs`` at every position where
    they reached it, keyed by the node's identity. A config the space no
    longer accepts adds nothing."""
    columns: dict[int, list[Scalar]] = {}
    for config in configs:
        for node, value in _positions(root, config):
            columns.setdefault(node, []).append(value)
    return columns


@functools.lru_cache(maxsize=CACHE_SIZE)
def _positions(root: Space, config: Config) -> tuple[tuple[int, Scalar], ...]:
    """``(id(node), value)`` of each decision of ``config``, in walk order (none if the space refuses it)."""
    try:
        decisions = trace(root, config)
    except ConfigError:
        return ()
    return tuple((id(node), config[address]) for address, node in decisions)
