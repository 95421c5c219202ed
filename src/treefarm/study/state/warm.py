"""Warm starts: what related studies found, given to a new study.

Each related study (the same problem on another dataset, a shifted version,
a narrower space) gives the new study two things, both projected on this
space (decisions whose address this space does not have are dropped):

* its **best configuration, enqueued**: evaluated as this study's first
  trials (a point hint, which the thesis puts straight into the evaluation
  queue), completed where this space has decisions the source did not
  make (at the prior's median, :func:`treefarm.space.partial.complete_partial`).
  Its loss is an observation of this study's objective like any other: if
  the source is related it is an incumbent at once, if not it is one trial
  among the others.
* its **best tenth as region hints** (:mod:`treefarm.optimizers.hints`),
  only when the caller gives them a credibility above 0: evidence about
  where this study's optimum lies, not trials; they steer the suggestions
  and fade as this study's own evidence accumulates. They are **gated by
  the enqueued best** (:func:`gate_open`): a source's hints count only once
  :data:`GATE_TRIALS` trials are complete and while its best configuration,
  evaluated here, is among the better half of them, so a source whose best
  is mediocre here steers nothing.

Why regions are off by default (design notes, ``docs/design/hints.md``,
"Warm starts: the source's best evaluated first"): ungated, a source's
best region steers the first suggestions before this study can judge it,
and where it lies beside a local minimum of this study the search settles
there.
Hartmann-6 from its mirror image: 25 of 30 seeds ended in the local minimum
with region hints of credibility 0.5, 11 of 30 cold, 8 of 30 with the best
configuration enqueued alone. Enqueued alone, a related source reaches the
no-warm-start median in 42 evaluations instead of 97 (Styblinski-Tang-8
shifted) and 12 instead of 23 (the SVC on neighbouring data), and an
unrelated one cost nothing measurable on any of four problems. Gated, hints
of credibility 0.5 beside it take 33 and 8 there and keep the unrelated
Hartmann-6 out of its local minimum, but cost the last digits of Branin's
refinement from a mirrored source whose best is good here (2.9e-6 against
7.8e-7, p = 0.045): hence regions only on request.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from ...exceptions import ConfigError
from ...objectives import Objectives
from ...space import Config, Space
from ...space.partial import check_partial, complete_partial, zero_weight
from ...storage import TrialRecord, TrialState

__all__ = [
    "GATE_TRIALS",
    "TOP_FRACTION",
    "Source",
    "gate_open",
    "give_warm_start",
    "warm_author",
    "warm_source",
    "warm_start_hints",
    "warm_start_points",
]

TOP_FRACTION = 0.1
"""The share of a related study's completed trials (at least 1, at most 10) that become hints."""
GATE_TRIALS = 5
"""Completed trials before a warm start's region hints may count (:func:`gate_open`)."""
_PREFIX = "warm start from "


class Source(Protocol):
    """What a warm start reads of a related study (a :class:`~treefarm.Study`)."""

    @property
    def name(self) -> str: ...

    @property
    def objectives(self) -> Objectives: ...

    @property
    def trials(self) -> list[TrialRecord]: ...


def warm_author(source: str) -> str:
    """The author recorded on a warm start's hints: names the source."""
    return f"{_PREFIX}{source!r}"


def warm_source(author: str | None) -> str | None:
    """The source a hint's author names if the hint is a warm start's, else None."""
    if author is None or not author.startswith(_PREFIX):
        return None
    try:
        name = ast.literal_eval(author[len(_PREFIX) :])
    except (ValueError, SyntaxError):
        return None
    return name if isinstance(name, str) else None


def gate_open(source: str, finished: Iterable[TrialRecord], sign: float) -> bool:
    """Whether the region hints of warm-start ``source`` count: at least
    :data:`GATE_TRIALS` trials complete and the best of those enqueued from
    ``source`` (``user_attrs["warm_start"]``) no worse than their median loss
    (``sign`` is +1 to minimize, -1 to maximize)."""
    losses, own = [], []
    for record in finished:
        if record.state is TrialState.COMPLETE and record.value is not None:
            losses.append(sign * record.value)
            if record.user_attrs.get("warm_start") == source:
                own.append(losses[-1])
    return len(losses) >= GATE_TRIALS and bool(own) and min(own) <= float(np.median(losses))


def _projected(space: Space, record: TrialRecord) -> dict[str, object] | None:
    params = dict(record.params)
    while params:
        try:
            return dict(check_partial(space, params))
        except ConfigError as exc:
            if exc.address not in params:
                return None
            del params[exc.address]
    return None


def _ranked(source: Source) -> list[TrialRecord]:
    """The source's completed trials, best first (ties by trial number)."""
    sign = source.objectives.sign(0)
    done = [t for t in source.trials if t.state is TrialState.COMPLETE and t.value is not None]
    return sorted(done, key=lambda t: (sign * (t.value or 0.0), t.number))


def warm_start_hints(space: Space, sources: Sequence[Source]) -> list[tuple[dict[str, object], str]]:
    """The configurations a warm start gives as region hints, each with its source's
    name (none holding an option of prior weight 0 here)."""
    out: list[tuple[dict[str, object], str]] = []
    for source in sources:
        done = _ranked(source)
        k = min(10, max(1, round(TOP_FRACTION * len(done))))
        for record in done[:k]:
            config = _projected(space, record)
            if config and not zero_weight(space, config):
                out.append((config, source.name))
    return out


def warm_start_points(space: Space, sources: Sequence[Source]) -> list[tuple[Config, str]]:
    """The configurations a warm start enqueues, each with its source's name: per
    source its best trial that fits this space (projected, then completed; an
    option of prior weight 0 here does not fit), the same configuration once."""
    out: list[tuple[Config, str]] = []
    for source in sources:
        for record in _ranked(source):
            config = _projected(space, record)
            if config and not zero_weight(space, config):
                point = complete_partial(space, config)
                if all(point != seen for seen, _ in out):
                    out.append((point, source.name))
                break
    return out


class Receiver(Protocol):
    """What a warm start gives to: a new study's space, queue and hints."""

    space: Space

    def enqueue(self, config: Mapping[str, Any], *, user_attrs: Mapping[str, Any] | None = None) -> int: ...

    def hint(self, config: Mapping[str, Any], *, credibility: float = 1.0, author: str | None = None) -> int: ...


def give_warm_start(study: Receiver, sources: Sequence[Source], credibility: float) -> None:
    """Enqueue each source's best configuration in ``study`` and, with ``credibility`` > 0,
    add its best tenth as hints of that credibility (see the module docstring)."""
    for point, source in warm_start_points(study.space, sources):
        study.enqueue(point, user_attrs={"warm_start": source})
    if credibility > 0:
        for config, source in warm_start_hints(study.space, sources):
            study.hint(config, credibility=credibility, author=warm_author(source))
