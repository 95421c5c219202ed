"""A study's incremental read stays exact while other writers change its trials:
after writers stop, what the study holds equals a fresh read of everything."""

from __future__ import annotations

import threading

import treefarm as tf
from treefarm.objectives import Objectives
from treefarm.space import convert
from treefarm.storage import SQLStorage, TrialState
from treefarm.study.state.cache import TrialCache


def _writer(url: str, study_id: int, seed: int, trials: int) -> None:
    """Trials as a worker writes them: claim, params, a heartbeat, a note, reports, the
    finish; the last one is left running after its reports (the last writes it gets)."""
    storage = SQLStorage(url)
    for i in range(trials):
        number = storage.create_trial(study_id, params={}).number
        storage.set_trial_params(study_id, number, {"x": (seed + i) / 100})
        storage.heartbeat(study_id, number)
        storage.set_trial_user_attr(study_id, number, "worker", seed)
        for step in range(3):
            storage.report_intermediate(study_id, number, step, float(step + seed))
        if i == trials - 1:
            break
        state = TrialState.COMPLETE if i % 3 else TrialState.PRUNED
        storage.finish_trial(study_id, number, state=state, value=float(seed + i))
    storage.close()


def test_a_study_reading_while_four_writers_write_ends_with_what_a_fresh_read_sees(url: str) -> None:
    storage = SQLStorage(url)
    study_id = storage.create_study("s", direction="minimize", seed=0, attrs={}).study_id
    cache = TrialCache(storage, study_id, convert({"x": tf.Real(0.0, 1.0)}), name="s", objectives=Objectives.single())
    writers = [threading.Thread(target=_writer, args=(url, study_id, seed, 12)) for seed in range(4)]
    for w in writers:
        w.start()
    reads = 0
    while any(w.is_alive() for w in writers) or reads == 0:
        cache.finished_and_unfinished()
        reads += 1
    for w in writers:
        w.join()
    held = sorted(cache.finished_and_unfinished(), key=lambda r: r.number)
    fresh = storage.get_trials(study_id)
    assert reads > 1
    assert held == fresh
    assert [(r.intermediate, r.user_attrs, r.state) for r in held] == [
        (r.intermediate, r.user_attrs, r.state) for r in fresh
    ]
    assert len(cache.history().complete) == 44
    assert len(cache.history().pending) == 4
    storage.close()
