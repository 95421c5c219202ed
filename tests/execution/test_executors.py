"""What a caller passes as an executor is used through one interface."""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

from treefarm.exceptions import StudyError
from treefarm.execution.base import Executor, Pending
from treefarm.execution.executors import as_executor
from treefarm.execution.futures import FuturesExecutor


def test_a_thread_pool_runs_as_many_as_its_workers_and_reports_the_first_done() -> None:
    with ThreadPoolExecutor(max_workers=3) as pool:
        executor = as_executor(pool)
        assert isinstance(executor, FuturesExecutor) and executor.capacity() == 3
        gate = threading.Event()
        slow = executor.submit(gate.wait, 10)
        fast = executor.submit(pow, 2, 5)
        assert executor.first_completed([slow, fast]) == {fast}
        assert fast.result() == 32
        gate.set()
        assert slow.result() is True


def test_an_object_with_submit_but_no_worker_count_runs_one_at_a_time() -> None:
    class Inline:
        def submit(self, function: Callable[..., Any], /, *args: Any) -> Future[Any]:
            future: Future[Any] = Future()
            future.set_result(function(*args))
            return future

    executor = as_executor(Inline())
    assert executor.capacity() == 1
    assert executor.submit(abs, -4).result() == 4


def test_an_executor_of_the_interface_is_used_as_it_is() -> None:
    class Own:
        def capacity(self) -> int:
            return 7

        def submit(self, function: Callable[..., Any], /, *args: Any) -> Pending:
            raise AssertionError("not called here")

        def first_completed(self, pending: Collection[Pending]) -> set[Pending]:
            return set(pending)

    own = Own()
    assert isinstance(own, Executor)
    assert as_executor(own) is own


def test_an_object_without_submit_is_refused_naming_it() -> None:
    with pytest.raises(StudyError, match=r"executor must have a concurrent.futures-like submit .* executor=42"):
        as_executor(42)
