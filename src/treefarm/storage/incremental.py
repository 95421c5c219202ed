"""One study's trials, read incrementally: what the study and the dashboard keep between reads.

Finished trials never change (the storage contract), so they are kept once
read, and each read asks only for the trials at or after the oldest one last
seen unfinished; of those, a storage that keeps :attr:`TrialRecord.version`
returns only the ones written since they were read. Keeping up with a running
study therefore costs one indexed query of two integers per unsettled trial,
plus the rows of the trials that changed, whatever the study's length and
however many trials run.
"""

from __future__ import annotations

import threading

from .base import Storage
from .records import TrialRecord

__all__ = ["TrialReader"]


class TrialReader:
    """The trials of study ``study_id`` in ``storage``, read incrementally (see the module docstring).

    Safe under threads: one read at a time, and :attr:`finished` only grows."""

    def __init__(self, storage: Storage, study_id: int) -> None:
        self._storage = storage
        self._study_id = study_id
        self.finished: dict[int, TrialRecord] = {}
        """Every finished trial read so far, by number."""
        self._scan_from = 0
        self._unsettled: dict[int, TrialRecord] = {}
        self._lock = threading.Lock()

    @property
    def unsettled_from(self) -> int:
        """The number of the oldest trial unfinished at the last read (or the next
        number): every trial below it was finished, with its params, when read."""
        return self._scan_from

    def read(self) -> list[TrialRecord]:
        """Read the trials changed since the last read; return the unfinished ones, by number."""
        with self._lock:
            known = {n: r.version for n, r in self._unsettled.items()}
            for r in self._storage.get_trials(self._study_id, min_number=self._scan_from, known=known):
                self._unsettled[r.number] = r
                if r.state.is_finished:
                    self.finished[r.number] = r
            held = self._unsettled
            unfinished = [held[n] for n in sorted(held) if not held[n].state.is_finished]
            if held:
                self._scan_from = unfinished[0].number if unfinished else max(held) + 1
                self._unsettled = {n: r for n, r in held.items() if n >= self._scan_from}
            return unfinished
