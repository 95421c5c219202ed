"""Reading a large study a page at a time: sorted, filtered, counted where the data is.

A person browsing 100,000 trials needs one page of them and a few numbers
(how many in each state, the best value, when the last one finished), not
every record: :meth:`Storage.trial_page` and :meth:`Storage.trial_summary`
answer exactly that. The base implementations here read every trial (right
for memory); the SQL storage answers with ``ORDER BY ... LIMIT ... OFFSET``
and one ``GROUP BY``, reading only the page's rows.

Sorting by ``value`` puts trials without a value (failed, running) last in
either direction; ties are broken by the trial number. ``feasible`` keeps the
trials whose constraints all hold (True: a trial without constraints counts as
feasible) or those with one that does not (False).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..exceptions import StorageError, format_values
from .records import TrialRecord, TrialState

__all__ = ["ORDER_COLUMNS", "PageQuery", "TrialSummary", "page_of", "summary_of"]

ORDER_COLUMNS = ("number", "value", "state", "started", "finished", "duration")
"""What a page can be sorted by; ``duration`` is ``finished - started``."""
MAX_PAGE = 1000
"""The largest page a storage hands out at once."""
MAX_OFFSET = 2**62
"""The largest offset a page may start at (SQLite and PostgreSQL take 64-bit offsets)."""


@dataclass(frozen=True)
class TrialSummary:
    """A study at a glance: trials per state, the lowest and highest value of
    the complete ones, and the latest ``finished`` time (None when none)."""

    counts: dict[str, int]
    min_value: float | None
    max_value: float | None
    last_finished: float | None

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass(frozen=True)
class PageQuery:
    """One page of trials: ``limit`` rows from ``offset`` in the order asked, of the
    trials in ``states`` (all if None) whose value lies in ``[value_min, value_max]``
    (a bound given excludes trials without a value) and, when ``feasible`` is given,
    whose :attr:`~.records.TrialRecord.feasible` is that."""

    offset: int = 0
    limit: int = 50
    order_by: str = "number"
    descending: bool = False
    states: tuple[TrialState, ...] | None = None
    value_min: float | None = None
    value_max: float | None = None
    feasible: bool | None = None

    @classmethod
    def checked(
        cls,
        *,
        offset: int,
        limit: int,
        order_by: str,
        descending: bool,
        states: Collection[TrialState | str] | None,
        value_min: float | None,
        value_max: float | None,
        feasible: bool | None = None,
    ) -> PageQuery:
        """The query, or StorageError naming the argument that is out of range."""
        if order_by not in ORDER_COLUMNS:
            raise StorageError(
                f"order_by must be one of {list(ORDER_COLUMNS)}, but got {format_values(order_by=order_by)}"
            )
        if not 0 <= offset <= MAX_OFFSET:
            raise StorageError(f"offset must lie in [0, {MAX_OFFSET}], but got {format_values(offset=offset)}")
        if not 1 <= limit <= MAX_PAGE:
            raise StorageError(f"limit must lie in [1, {MAX_PAGE}], but got {format_values(limit=limit)}")
        for name, bound in (("value_min", value_min), ("value_max", value_max)):
            if bound is not None and math.isnan(bound):
                raise StorageError(f"{name} must be a number, but got {format_values(**{name: bound})}")
        names = [state.value for state in TrialState]
        bad = [s for s in states or () if s not in names]
        if bad:
            raise StorageError(f"state must be among {names}, but got {format_values(state=bad[0])}")
        if feasible is not None and not isinstance(feasible, bool):
            raise StorageError(f"feasible must be True, False or None, but got {format_values(feasible=feasible)}")
        wanted = None if states is None else tuple(TrialState(s) for s in states)
        return cls(offset, limit, order_by, bool(descending), wanted, value_min, value_max, feasible)

    def keeps(self, t: TrialRecord) -> bool:
        """Whether the filter keeps ``t``."""
        if self.states is not None and t.state not in self.states:
            return False
        if self.feasible is not None and t.feasible is not self.feasible:
            return False
        if self.value_min is None and self.value_max is None:
            return True
        lo = -math.inf if self.value_min is None else self.value_min
        hi = math.inf if self.value_max is None else self.value_max
        return t.value is not None and lo <= t.value <= hi


def _key(t: TrialRecord, column: str) -> float | str | None:
    if column == "duration":
        return None if t.finished is None or t.started is None else t.finished - t.started
    if column == "state":
        return t.state.value
    value: float | None = getattr(t, column)
    return value


def page_of(trials: Sequence[TrialRecord], query: PageQuery) -> tuple[int, list[TrialRecord]]:
    """The matching count and the page, computed from every trial (the reference semantics)."""
    kept = [t for t in trials if query.keeps(t)]
    kept.sort(key=lambda t: t.number, reverse=query.descending)
    present = [t for t in kept if _key(t, query.order_by) is not None]
    missing = [t for t in kept if _key(t, query.order_by) is None]
    present.sort(key=lambda t: _key(t, query.order_by), reverse=query.descending)  # type: ignore[arg-type, return-value]
    ordered = present + missing
    return len(kept), ordered[query.offset : query.offset + query.limit]


def summary_of(trials: Sequence[TrialRecord]) -> TrialSummary:
    """The summary computed from every trial."""
    counts: dict[str, int] = {}
    for t in trials:
        counts[t.state.value] = counts.get(t.state.value, 0) + 1
    values = [t.value for t in trials if t.state is TrialState.COMPLETE and t.value is not None]
    finished = [t.finished for t in trials if t.finished is not None]
    return TrialSummary(
        counts,
        min(values) if values else None,
        max(values) if values else None,
        max(finished) if finished else None,
    )
