"""Failing the trials of dead workers, and re-queueing what they were running.

Recovery is an explicit step (the optimize loop runs it before it starts),
never a side effect of opening or reading a study. A RUNNING trial is taken
for dead when its worker shares this process's PID namespace and that
process is gone (a zombie included), or when its own worker's heartbeat
deadline has passed (each trial carries it, so a worker with a long
heartbeat interval is judged by its own setting) and its worker cannot be
seen alive from here: a worker this process sees running (same namespace,
same PID and start time) keeps its trial, however late its heartbeat (an
objective that holds the GIL stops the heartbeat thread), and recovery beats
that trial for it (see :mod:`treefarm.execution.liveness`).

With ``requeue`` the configuration of a failed trial is queued again, as the
optimize loop does for a lost evaluation, at most ``REQUEUE_LOST`` times
along its ``requeued_from`` chain: a configuration that kills its worker
(a segfault, an out-of-memory kill) is not run forever.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from ...exceptions import TrialStateError
from ...execution.liveness import worker_alive, worker_gone
from ...fidelity import recorded_fidelity
from ...storage import JSON, REQUEUED, NotFoundError, Storage, TrialRecord, TrialState
from ...storage.checks import STALE_REASON

__all__ = ["REQUEUE_LOST", "WORKER_LOST", "recover", "requeue_lost", "was_lost"]

log = logging.getLogger("treefarm")

REQUEUE_LOST = 1
"""How many times the configuration of a trial whose worker died is run again (the
default of ``optimize``'s ``requeue_lost``; recovery follows the same rule)."""


WORKER_LOST = "worker_lost"
"""The system attribute marking a trial failed because its worker died (not its objective)."""


def was_lost(record: TrialRecord) -> bool:
    """Whether ``record`` failed because its worker died (a dead process, a stale
    heartbeat, a lost executor future) rather than because its objective failed."""
    attrs = record.system_attrs
    return record.state is TrialState.FAILED and (attrs.get(WORKER_LOST) is True or attrs.get("fail_reason") == STALE_REASON)


def _died(params: object, worker: Mapping[str, JSON]) -> str:
    when = "while running the trial" if params else "before the trial's configuration was chosen"
    return f"worker process {worker.get('pid')} on {worker.get('host')} died {when}"


def _earlier_runs(storage: Storage, study_id: int, record: TrialRecord) -> list[int]:
    """The trials ``record`` re-runs, newest first, along its ``requeued_from`` links
    (stopping at a missing trial or a loop): its configuration's earlier runs."""
    chain: list[int] = []
    attrs = record.system_attrs
    while isinstance(origin := attrs.get(REQUEUED), int) and origin not in chain and origin != record.number:
        chain.append(origin)
        try:
            attrs = storage.get_trial(study_id, origin).system_attrs
        except NotFoundError:
            break
    return chain


def _history(storage: Storage, study_id: int, record: TrialRecord) -> tuple[int, int]:
    """How many times ``record``'s configuration had already been run again, and the
    trial that ran it first. The count is its ``requeues`` (written by the optimize
    loop and by recovery) or, for a re-queue that carries none (queued by hand, or by
    an older treefarm), the length of its ``requeued_from`` chain."""
    chain = _earlier_runs(storage, study_id, record)
    count = record.system_attrs.get("requeues")
    counted = count if isinstance(count, int) and not isinstance(count, bool) else 0
    return max(counted, len(chain)), chain[-1] if chain else record.number


def _refusal(first: int, reruns: int, limit: int) -> str:
    """Why a configuration first run by trial ``first`` is not queued again."""
    times = "time" if reruns == 1 else "times"
    return (
        f"not queued again: trial {first}'s configuration was already re-run {reruns} {times} "
        f"(requeue_lost={limit}: a configuration that kills its worker is not run forever)"
    )


def _not_requeued(storage: Storage, study_id: int, record: TrialRecord, limit: int) -> str | None:
    """Why ``record``'s configuration is not queued again, or None if it may be."""
    reruns, first = _history(storage, study_id, record)
    return _refusal(first, reruns, limit) if reruns >= limit else None


def _beat_live_workers(storage: Storage, study_id: int, running: Sequence[TrialRecord]) -> None:
    """Beat the trials whose worker this process sees alive, so a late heartbeat (its
    objective holds the GIL) does not fail them: the heartbeat is meant to stay alive
    while the worker's process lives. A trial finished meanwhile ignores the beat."""
    for record in running:
        if worker_alive(record.system_attrs.get("worker")):
            storage.heartbeat(study_id, record.number)


def _fail_dead_workers(
    storage: Storage, study_id: int, running: Sequence[TrialRecord], *, requeue: bool, limit: int
) -> list[int]:
    """Fail the trials whose worker is certainly gone, saying so (and, with ``requeue``,
    why a configuration is not queued again). Returns their numbers."""
    failed = []
    for record in running:
        worker = record.system_attrs.get("worker")
        if not (isinstance(worker, dict) and worker_gone(worker)):
            continue
        reason = _died(record.params, worker)
        refused = _not_requeued(storage, study_id, record, limit) if requeue and record.params else None
        try:
            storage.finish_trial(
                study_id,
                record.number,
                state=TrialState.FAILED,
                system_attrs={"fail_reason": f"{reason}; {refused}" if refused else reason, WORKER_LOST: True},
            )
        except TrialStateError:  # finished meanwhile: by its worker, or another recovery
            continue
        failed.append(record.number)
    return failed


def requeue_lost(storage: Storage, study_id: int, record: TrialRecord, limit: int) -> None:
    """Queue again the configuration of ``record``, a trial whose evaluation was lost (its
    worker died), unless it has none (the worker died while it was suggested) or it was
    re-run ``limit`` times already: the one rule of the optimize loop and of recovery.
    An evaluation at a fidelity is not queued: successive halving offers a lost promotion
    again itself, at its rung and from the same checkpoint (a queued configuration would
    be claimed at whatever rung comes next, and evaluated twice at one)."""
    if not record.params or recorded_fidelity(record.system_attrs) is not None:
        return
    reruns, first = _history(storage, study_id, record)
    if reruns >= limit:
        log.warning("trial %d is %s", record.number, _refusal(first, reruns, limit))
        return
    storage.create_trial(
        study_id,
        params=record.params,
        state=TrialState.WAITING,
        system_attrs={REQUEUED: record.number, "requeues": reruns + 1},
    )


def recover(
    storage: Storage, study_id: int, *, grace: float, requeue: bool, limit: int = REQUEUE_LOST
) -> list[int]:
    """Fail the study's RUNNING trials whose worker is gone; with ``requeue``, enqueue
    again the configurations they were running, each at most ``limit`` times along its
    ``requeued_from`` chain. A trial whose worker died while its configuration was
    being suggested has none: it is failed and not re-queued (nothing was evaluated).
    ``grace`` judges trials that carry no deadline of their own (written by an older
    treefarm). Returns the failed numbers."""
    running = storage.get_trials(study_id, states=[TrialState.RUNNING])
    _beat_live_workers(storage, study_id, running)
    failed = _fail_dead_workers(storage, study_id, running, requeue=requeue, limit=limit)
    failed += storage.fail_stale_trials(study_id, grace=grace)
    if requeue:
        for number in failed:
            requeue_lost(storage, study_id, storage.get_trial(study_id, number), limit)
    return sorted(failed)
