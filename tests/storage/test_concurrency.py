"""Several OS processes on one storage: dense distinct numbers, single claims,
no lost update, and never a "database is locked" reaching the caller."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from treefarm.storage import SQLStorage, TrialState

from . import workers

PROCESSES = 3


def _n_claimed(url: str, name: str) -> int:
    """The study row's claimed-trials counter, as stored (kept by every claim and creation)."""
    import sqlalchemy as sa

    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as connection:
        query = sa.text("SELECT n_claimed FROM treefarm_studies WHERE name = :name")
        found = int(connection.execute(query, {"name": name}).scalar_one())
    engine.dispose()
    return found


def _in_processes(task: Callable[..., Any], *args: Any, folder: Path) -> list[Any]:
    """Run ``task(*args, folder, me, PROCESSES)`` in PROCESSES spawned processes at once."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(PROCESSES, mp_context=context) as pool:
        futures = [pool.submit(task, *args, str(folder), me, PROCESSES) for me in range(PROCESSES)]
        return [future.result(timeout=240) for future in futures]


def test_processes_creating_trials_get_dense_distinct_numbers(url: str, tmp_path: Path) -> None:
    storage = SQLStorage(url)
    study = storage.create_study("shared", direction="minimize", seed=0, attrs={})
    results = _in_processes(workers.create_and_finish, url, "shared", 100, folder=tmp_path)
    numbers = [n for result in results for n in result]
    assert sorted(numbers) == list(range(100 * PROCESSES))
    trials = storage.get_trials(study.study_id)
    assert [t.number for t in trials] == list(range(100 * PROCESSES))
    assert all(t.state is TrialState.COMPLETE for t in trials)
    assert all(t.value == t.params["i"] and t.intermediate == {0: t.value} for t in trials)
    assert all(numbers == sorted(numbers) for numbers in results)
    assert _n_claimed(url, "shared") == 100 * PROCESSES
    storage.close()


def test_processes_never_claim_one_waiting_trial_twice(url: str, tmp_path: Path) -> None:
    storage = SQLStorage(url)
    study = storage.create_study("queue", direction="minimize", seed=0, attrs={})
    for i in range(150):
        storage.create_trial(study.study_id, params={"i": i}, state=TrialState.WAITING)
    results = _in_processes(workers.claim_all, url, "queue", folder=tmp_path)
    claimed = [n for result in results for n in result]
    assert sorted(claimed) == list(range(150))
    trials = storage.get_trials(study.study_id)
    assert all(t.state is TrialState.COMPLETE for t in trials)
    assert all(t.value == t.system_attrs["worker"] and t.number in results[int(t.value or 0)] for t in trials)
    assert _n_claimed(url, "queue") == 150
    storage.close()


def test_concurrent_attribute_writes_lose_nothing(url: str, tmp_path: Path) -> None:
    storage = SQLStorage(url)
    study = storage.create_study("attrs", direction="minimize", seed=0, attrs={})
    storage.create_trial(study.study_id, params={})
    _in_processes(workers.set_user_attrs, url, "attrs", 40, folder=tmp_path)
    attrs = storage.get_trial(study.study_id, 0).user_attrs
    assert attrs == {f"w{me}-{i}": i for me in range(PROCESSES) for i in range(40)}
    storage.close()


def test_processes_opening_a_new_database_at_once_share_one_schema_and_study(
    url: str, tmp_path: Path
) -> None:
    results = _in_processes(workers.open_fresh, url, 20, folder=tmp_path)
    assert len({result[0] for result in results}) == 1
    assert sorted(n for result in results for n in result[1:]) == list(range(20 * PROCESSES))
    assert _n_claimed(url, "fresh") == 20 * PROCESSES


def test_a_held_write_lock_is_waited_for_not_reported(sqlite_path: Path) -> None:
    storage = SQLStorage(f"sqlite:///{sqlite_path}")
    study = storage.create_study("s", direction="minimize", seed=0, attrs={})
    other = sqlite3.connect(sqlite_path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.3, other.execute, args=("COMMIT",))
    release.start()
    start = time.perf_counter()
    assert storage.create_trial(study.study_id, params={}).number == 0
    assert time.perf_counter() - start >= 0.25
    release.join()
    other.close()
    storage.close()


def test_processes_sharing_a_budget_make_exactly_that_many_trials(url: str, tmp_path: Path) -> None:
    """Every process is given the study's total; the claims are counted in the storage."""
    import treefarm as tf

    space = {"x": tf.Real(-5.0, 5.0), "k": tf.Choice("a", "b")}
    study = tf.Study.create("budget", space=space, storage=url, seed=0)
    budget = 45
    results = _in_processes(workers.optimize_with_budget, url, "budget", budget, folder=tmp_path)
    ran = sorted(n for result in results for n in result)
    assert ran == list(range(budget))
    trials = study.trials
    assert len(trials) == budget and all(t.state is TrialState.COMPLETE for t in trials)
    assert _n_claimed(url, "budget") == budget
    study.storage.close()


def test_processes_claiming_past_a_queue_stop_at_the_budget_and_keep_the_count(url: str, tmp_path: Path) -> None:
    """Queued trials are claimed first, then new ones, and the counter the budget check
    reads stays the number of claimed trials however the claims interleave."""
    storage = SQLStorage(url)
    study = storage.create_study("counted", direction="minimize", seed=0, attrs={})
    for i in range(20):
        storage.create_trial(study.study_id, params={"i": i}, state=TrialState.WAITING)
    budget = 60
    results = _in_processes(workers.claim_with_budget, url, "counted", budget, folder=tmp_path)
    assert sorted(n for result in results for n in result) == list(range(budget))
    assert storage.count_trials(study.study_id, states=[TrialState.COMPLETE]) == budget
    assert _n_claimed(url, "counted") == budget
    storage.close()
