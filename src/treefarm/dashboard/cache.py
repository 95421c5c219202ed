"""What the dashboard keeps between requests: each study's trials, read incrementally.

A study's trials are read incrementally, as :class:`~treefarm.Study` reads
them (:mod:`treefarm.storage.incremental`): after the first read of a large
study, keeping up with a running one costs one indexed query of what changed.

Whether anything changed is asked cheaply: the number of trials, and of
RUNNING and WAITING ones (index-only counts). Any trial created, claimed or
finished changes that triple, its :attr:`StudyCache.version`. Plot data is
computed once per version and kind.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..storage import Storage, StudyRecord, TrialRecord, TrialState
from ..storage.incremental import TrialReader

__all__ = ["StudyCache", "marker", "version_of"]

Version = tuple[int, int, int]
MAX_COMPUTED = 64
"""How many computed views a study keeps (the least recently used go first): a bound on
memory that no sequence of requests (a posterior at every trial, say) can raise."""


def version_of(storage: Storage, study_id: int) -> Version:
    """(trials, running, waiting): changes whenever a trial is created, claimed or finished."""
    return (
        storage.count_trials(study_id),
        storage.count_trials(study_id, states=[TrialState.RUNNING]),
        storage.count_trials(study_id, states=[TrialState.WAITING]),
    )


def marker(storage: Storage, record: StudyRecord) -> list[int]:
    """What the page polls: :func:`version_of` and the study's notes and hints (their
    count and newest id), so a note or hint added anywhere shows in every open page."""
    notes = record.attrs.get("notes")
    hints = [h.hint_id for h in storage.get_hints(record.study_id)]
    return [
        *version_of(storage, record.study_id),
        len(notes) if isinstance(notes, list) else 0,
        len(hints),
        max(hints, default=0),
    ]


class StudyCache:
    """One study's trials and computed plot data, refreshed when its version changes."""

    def __init__(self, storage: Storage, record: StudyRecord) -> None:
        self.storage = storage
        self.record = record
        self._lock = threading.Lock()
        self._reader = TrialReader(storage, record.study_id)
        self._version: Version | None = None
        self._every: list[TrialRecord] = []
        self._computed: OrderedDict[tuple[str, str], tuple[Version, Any]] = OrderedDict()

    def _sync(self, version: Version) -> None:
        unfinished = self._reader.read()
        self._every = sorted([*self._reader.finished.values(), *unfinished], key=lambda t: t.number)
        self._version = version

    def trials(self) -> tuple[Version, list[TrialRecord]]:
        """The current version and every trial, by number (read only what changed)."""
        version = version_of(self.storage, self.record.study_id)
        with self._lock:
            if version != self._version:
                self._sync(version)
            return version, self._every

    def computed(self, kind: str, key: str, compute: Callable[[list[TrialRecord]], Any]) -> Any:
        """``compute(trials)`` for the current version, computed once per version and (kind, key):
        a repeated request costs the three counts of the version, nothing more (for the
        :data:`MAX_COMPUTED` most recently used keys)."""
        found = self._computed.get((kind, key))
        if found is not None and found[0] == version_of(self.storage, self.record.study_id):
            self._computed.move_to_end((kind, key))
            return found[1]
        version, trials = self.trials()
        value = compute(trials)
        self._computed[(kind, key)] = (version, value)
        while len(self._computed) > MAX_COMPUTED:
            self._computed.popitem(last=False)
        return value
