"""Proposals new to the history: the optimizers' one rule against repeats.

An optimizer proposes from its model; a proposal equal to a configuration
already evaluated, failed, pending, or earlier in the same batch is drawn
again, a few times. When the proposals keep repeating, the space may be
nearly exhausted: a finite space small enough to list then gives a uniform
draw among its unseen points, so the last few points of a small grid are
found rather than repeats; in a larger space, ``explore`` (a draw from the
prior, which a model that has narrowed onto a few points no longer offers)
is tried as often. Only when none is left is a repeat returned (the
study then evaluates it: a finished study of a finite space repeats rather
than stops). The study adds the one check this cannot make, equality of the
built expressions under the ops' algebraic rules (:mod:`treefarm.study.state.dedupe`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import numpy as np

from ..space import Config, Space, enumerate_configs, size

__all__ = ["ENUMERATION_LIMIT", "unseen"]

ENUMERATION_LIMIT = 4096
"""The largest finite space whose points are listed to find an unseen one."""


def unseen(
    space: Space,
    propose: Callable[[], Config],
    seen: Collection[Config],
    rng: np.random.Generator,
    *,
    tries: int = 10,
    explore: Callable[[], Config] | None = None,
) -> Config:
    """A proposal not in ``seen`` (see the module docstring). ``propose`` is tried
    ``tries + 1`` times; then a small finite space's unseen points are drawn
    from, or ``explore`` is tried ``tries`` times in a larger one."""
    config = propose()
    for _ in range(tries):
        if config not in seen:
            return config
        config = propose()
    if config not in seen:
        return config
    if size(space) > ENUMERATION_LIMIT:
        draws = (explore() for _ in range(tries)) if explore is not None else iter(())
        return next((c for c in draws if c not in seen), config)
    left = [c for c in enumerate_configs(space) if c not in seen]
    return left[int(rng.integers(len(left)))] if left else config
