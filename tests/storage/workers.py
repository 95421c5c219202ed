"""Worker functions run in separate OS processes (spawned) by the concurrency tests.

Each opens its own storage, waits at a file barrier so that all workers hit
the database at the same moment, then works and returns what it saw.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from treefarm.storage import SQLStorage, TrialState


def _barrier(folder: str, me: int, parties: int) -> None:
    Path(folder, f"ready-{me}").touch()
    deadline = time.time() + 60
    while len(list(Path(folder).glob("ready-*"))) < parties and time.time() < deadline:
        time.sleep(0.005)


def create_and_finish(url: str, name: str, n: int, folder: str, me: int, parties: int) -> list[int]:
    """Create, report on and finish ``n`` trials; the numbers this worker got."""
    storage = SQLStorage(url)
    study_id = storage.get_study(name).study_id
    _barrier(folder, me, parties)
    numbers = []
    for i in range(n):
        number = storage.create_trial(study_id, params={"worker": me, "i": i}).number
        storage.report_intermediate(study_id, number, 0, float(i))
        storage.finish_trial(
            study_id, number, state=TrialState.COMPLETE, value=float(i), user_attrs={"pid": os.getpid()}
        )
        numbers.append(number)
    storage.close()
    return numbers


def claim_all(url: str, name: str, folder: str, me: int, parties: int) -> list[int]:
    """Claim waiting trials until none is left, finishing each; the numbers this worker claimed."""
    storage = SQLStorage(url)
    study_id = storage.get_study(name).study_id
    _barrier(folder, me, parties)
    claimed = []
    while (record := storage.claim_waiting_trial(study_id, system_attrs={"worker": me})) is not None:
        storage.finish_trial(study_id, record.number, state=TrialState.COMPLETE, value=float(me))
        claimed.append(record.number)
    storage.close()
    return claimed


def set_user_attrs(url: str, name: str, n: int, folder: str, me: int, parties: int) -> None:
    """Set ``n`` distinct user attributes on trial 0 (a read-modify-write each)."""
    storage = SQLStorage(url)
    study_id = storage.get_study(name).study_id
    _barrier(folder, me, parties)
    for i in range(n):
        storage.set_trial_user_attr(study_id, 0, f"w{me}-{i}", i)
    storage.close()


def open_fresh(url: str, n: int, folder: str, me: int, parties: int) -> list[int]:
    """Open a storage nobody has created yet, all workers at once, then create
    (or load) one study and add ``n`` trials; the study id and numbers seen."""
    _barrier(folder, me, parties)
    storage = SQLStorage(url)
    study = storage.create_study("fresh", direction="minimize", seed=0, attrs={}, load_if_exists=True)
    numbers = [storage.create_trial(study.study_id, params={}).number for _ in range(n)]
    storage.close()
    return [study.study_id, *numbers]


def optimize_with_budget(url: str, name: str, budget: int, folder: str, me: int, parties: int) -> list[int]:
    """Run the study's optimize loop with the study-wide budget; the numbers this worker ran."""
    import treefarm as tf

    space = {"x": tf.Real(-5.0, 5.0), "k": tf.Choice("a", "b")}
    study = tf.Study.load(name, space=space, storage=url, heartbeat_interval=0.5)
    ran: list[int] = []
    _barrier(folder, me, parties)
    study.optimize(lambda p: (p["x"] - 1.0) ** 2, budget, callbacks=[lambda s, r: ran.append(r.number)])
    return ran


def claim_with_budget(url: str, name: str, budget: int, folder: str, me: int, parties: int) -> list[int]:
    """Claim (queued trials first, then new ones) until the study-wide budget refuses,
    finishing each; the numbers this worker claimed."""
    storage = SQLStorage(url)
    study_id = storage.get_study(name).study_id
    _barrier(folder, me, parties)
    claimed = []
    while (record := storage.claim_trial(study_id, system_attrs={"worker": me}, budget=budget)) is not None:
        storage.finish_trial(study_id, record.number, state=TrialState.COMPLETE, value=float(me))
        claimed.append(record.number)
    storage.close()
    return claimed
