"""Failing the trials of dead workers, and re-queueing what they were running.

Recovery is an explicit step (the optimize loop runs it before it starts),
never a side effect of opening or reading a study. A RUNNING trial is taken
for dead when its own worker's heartbeat deadline has passed (each trial
carries it, so a worker with a long heartbeat interval is judged by its own
setting), or when its worker shares this process's PID namespace and that
process is gone (see :mod:`treefarm.study.worker`).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..exceptions import TrialStateError
from ..storage import JSON, REQUEUED, Storage, TrialState
from .worker import worker_gone

__all__ = ["recover"]


def _reason(record_params: object, worker: Mapping[str, JSON]) -> str:
    when = "while running the trial" if record_params else "before the trial's configuration was chosen"
    return f"worker process {worker.get('pid')} on {worker.get('host')} died {when}"


def recover(storage: Storage, study_id: int, *, grace: float, requeue: bool) -> list[int]:
    """Fail the study's RUNNING trials whose worker is gone; with ``requeue``, enqueue
    again the configurations they were running. A trial whose worker died while its
    configuration was being suggested has none: it is failed and not re-queued
    (nothing was evaluated). ``grace`` judges trials that carry no deadline of their
    own (written by an older treefarm). Returns the failed numbers."""
    failed = list(storage.fail_stale_trials(study_id, grace=grace))
    for record in storage.get_trials(study_id, states=[TrialState.RUNNING]):
        worker = record.system_attrs.get("worker")
        if isinstance(worker, dict) and worker_gone(worker):
            try:
                storage.finish_trial(
                    study_id,
                    record.number,
                    state=TrialState.FAILED,
                    system_attrs={"fail_reason": _reason(record.params, worker)},
                )
            except TrialStateError:
                continue
            failed.append(record.number)
    if requeue:
        for number in failed:
            params = storage.get_trial(study_id, number).params
            if params:
                storage.create_trial(
                    study_id, params=params, state=TrialState.WAITING, system_attrs={REQUEUED: number}
                )
    return sorted(failed)
