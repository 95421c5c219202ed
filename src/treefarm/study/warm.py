"""Warm starts: what related studies found, given to a new study as hints.

The best finished trials of a related study (the same problem on another
dataset, a shifted version, a narrower space) are evidence about where this
study's optimum lies, but not observations of this study's objective. So
they enter as good hints (:mod:`treefarm.optimizers.hints`), never as trials:
they are not counted in the budget, they steer suggestions with the
credibility the caller gives, and their influence decays as this study's own
evidence accumulates. Only the addresses the two spaces share carry over: a
configuration is projected on this space (decisions whose address this space
does not have are dropped) and kept if the rest fits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..exceptions import ConfigError
from ..space import Space
from ..space.partial import check_partial
from ..storage import TrialRecord, TrialState

if TYPE_CHECKING:
    from .study import Study

__all__ = ["TOP_FRACTION", "warm_start_hints"]

TOP_FRACTION = 0.1
"""The share of a related study's completed trials (at least 1, at most 10) that become hints."""


def _projected(space: Space, record: TrialRecord) -> dict[str, object] | None:
    params = dict(record.params)
    while params:
        try:
            return dict(check_partial(space, params))
        except ConfigError as exc:
            bad = next((a for a in params if f"{a}=" in str(exc)), None)
            if bad is None:
                return None
            del params[bad]
    return None


def warm_start_hints(space: Space, sources: Sequence[Study]) -> list[tuple[dict[str, object], str]]:
    """The configurations a warm start gives as hints, each with its source's name."""
    out: list[tuple[dict[str, object], str]] = []
    for source in sources:
        sign = 1.0 if source.direction == "minimize" else -1.0
        done = [t for t in source.trials if t.state is TrialState.COMPLETE and t.value is not None]
        done.sort(key=lambda t: (sign * (t.value or 0.0), t.number))
        k = min(10, max(1, round(TOP_FRACTION * len(done))))
        for record in done[:k]:
            config = _projected(space, record)
            if config:
                out.append((config, source.name))
    return out
