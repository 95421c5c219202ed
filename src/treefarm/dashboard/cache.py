"""What the dashboard keeps between requests: each study's trials, read incrementally.

A study's trials are read incrementally, as :class:`~treefarm.Study` reads
them (:mod:`treefarm.storage.incremental`): after the first read of a large
study, keeping up with a running one costs one indexed query of what changed.

Each read gives the study's :data:`Version`: its number of trials, of RUNNING
and of WAITING ones, and a digest of what a page shows of the unfinished trials
(their params, intermediate values and user attributes; heartbeats left out).
So a trial created, claimed or finished, and a new report of a running trial,
all change it, and a page showing learning curves follows a study whose
trials run for hours. Plot data is computed once per version and kind.
"""

from __future__ import annotations

import json
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from ..storage import Storage, StudyRecord, TrialRecord, TrialState
from ..storage.incremental import TrialReader

__all__ = ["StudyCache", "marker"]

Version = tuple[int, int, int, int]
MAX_COMPUTED = 64
"""How many computed views a study keeps (the least recently used go first): a bound on
memory that no sequence of requests (a posterior at every trial, say) can raise."""


def _digest(t: TrialRecord) -> int:
    """What a page shows of an unfinished trial, as a number that changes when any of it does."""
    shown = [t.state.value, t.params, t.intermediate, t.intermediate_vectors, t.user_attrs]
    return zlib.crc32(json.dumps(shown, sort_keys=True, default=str).encode())


def marker(cache: StudyCache, record: StudyRecord) -> list[int]:
    """What the page polls: the study's :data:`Version` and its notes and hints (their
    count and newest id), so a note or hint added anywhere shows in every open page."""
    notes = cache.storage.get_notes(record.study_id)
    hints = [h.hint_id for h in cache.storage.get_hints(record.study_id)]
    return [
        *cache.version(),
        len(notes),
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
        self._digests: dict[int, tuple[TrialRecord, int]] = {}
        self._computed: OrderedDict[tuple[str, str], tuple[Version, Any]] = OrderedDict()

    def _stamp(self, unfinished: Sequence[TrialRecord]) -> int:
        """The digest of the unfinished trials; a record the reader kept (unchanged since
        the last read) keeps its digest, so a poll of a quiet study hashes nothing."""
        digests = {}
        for t in unfinished:
            held = self._digests.get(t.number)
            digests[t.number] = held if held is not None and held[0] is t else (t, _digest(t))
        self._digests = digests
        return zlib.crc32(json.dumps(sorted((n, d) for n, (_, d) in digests.items())).encode())

    def _refresh(self) -> Version:
        """Read what changed (the caller holds the lock); rebuild the trial list if anything did."""
        unfinished = self._reader.read()
        version = (
            len(self._reader.finished) + len(unfinished),
            sum(t.state is TrialState.RUNNING for t in unfinished),
            sum(t.state is TrialState.WAITING for t in unfinished),
            self._stamp(unfinished),
        )
        if version != self._version:
            self._every = sorted([*self._reader.finished.values(), *unfinished], key=lambda t: t.number)
            self._version = version
        return version

    def version(self) -> Version:
        """The study's version now (reads only what changed since the last call)."""
        with self._lock:
            return self._refresh()

    def trials(self) -> tuple[Version, list[TrialRecord]]:
        """The current version and every trial, by number (read only what changed)."""
        with self._lock:
            return self._refresh(), self._every

    def computed(self, kind: str, key: str, compute: Callable[[list[TrialRecord]], Any]) -> Any:
        """``compute(trials)`` for the current version, computed once per version and (kind, key):
        a repeated request costs one incremental read, nothing more (for the
        :data:`MAX_COMPUTED` most recently used keys)."""
        version, trials = self.trials()
        found = self._computed.get((kind, key))
        if found is not None and found[0] == version:
            self._computed.move_to_end((kind, key))
            return found[1]
        value = compute(trials)
        self._computed[(kind, key)] = (version, value)
        while len(self._computed) > MAX_COMPUTED:
            self._computed.popitem(last=False)
        return value
