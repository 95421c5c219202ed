"""Recording outcomes: the trials this process runs, and how each is finished.

A trial this process claimed is finished with its worker token, so the
storage refuses the finish if the trial is no longer this process's (a
recovery elsewhere presumed it dead) and answers a repeated finish with the
stored record. Expressions of a space whose ops declare rules are stored with
their canonical form, so equal expressions are recognised across processes.
"""

from __future__ import annotations

from ...exceptions import StudyError
from ...execution.liveness import identity
from ...storage import Storage, TrialRecord, TrialState
from ...storage.checks import owner_of
from ..state.cache import TrialCache
from ..state.dedupe import Deduplicator
from ..state.outcome import Outcome, failure
from .pruning import with_last_report

__all__ = ["Recorder"]


class Recorder:
    """Finishes trials of one study and keeps the set this process is running."""

    def __init__(self, storage: Storage, study_id: int, cache: TrialCache, dedupe: Deduplicator) -> None:
        self._storage = storage
        self._study_id = study_id
        self._cache = cache
        self._dedupe = dedupe
        self.running: set[int] = set()

    def finish(self, number: int, outcome: Outcome) -> TrialRecord:
        """Record ``outcome`` for trial ``number`` (see the module docstring); a pruned
        trial keeps the value and step it last reported."""
        if outcome.state is TrialState.PRUNED:
            record = self._storage.get_trial(self._study_id, number)
            outcome = with_last_report(outcome, record, several=self._cache.objectives.several)
        system_attrs = dict(outcome.system_attrs)
        config = self._cache.known_config(number) if self._dedupe.rules else None
        if config is not None:
            system_attrs["canonical"] = self._dedupe.key(config)
        token = identity()["token"]
        owner = token if number in self.running and isinstance(token, str) else None
        several = outcome.values is not None and len(outcome.values) > 1
        vectors = {"values": outcome.values} if several else {}
        if outcome.constraints is not None:
            vectors["constraints"] = outcome.constraints
        try:
            return self._storage.finish_trial(
                self._study_id,
                number,
                state=outcome.state,
                value=outcome.value,
                user_attrs=outcome.user_attrs,
                system_attrs=system_attrs,
                owner=owner,
                **vectors,
            )
        finally:
            self.running.discard(number)

    def fail_running(self, reason: str) -> None:
        """Fail every trial this process still runs in the study: those it claimed
        through this object, and any other RUNNING trial carrying this process's token."""
        token = identity()["token"]
        running = self._storage.get_trials(self._study_id, states=[TrialState.RUNNING])
        mine = {r.number for r in running if owner_of(r.system_attrs) == token}
        for number in sorted(self.running | mine):
            self.running.add(number)
            try:
                self.finish(number, failure(reason))
            except StudyError:
                continue
