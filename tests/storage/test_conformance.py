"""Every storage passes the conformance suite: in memory, SQLite file, PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from treefarm.storage import InMemoryStorage, SQLStorage, Storage
from treefarm.testing.storage_suite import StorageSuite


class TestInMemory(StorageSuite):
    @pytest.fixture
    def storage_factory(self) -> Iterator[Callable[[], Storage]]:
        yield InMemoryStorage


class TestSQLite(StorageSuite):
    keeps_versions = True

    @pytest.fixture
    def storage_factory(self, sqlite_path: Path) -> Iterator[Callable[[], Storage]]:
        yield lambda: SQLStorage(f"sqlite:///{sqlite_path}")


@pytest.mark.postgres
class TestPostgres(StorageSuite):
    keeps_versions = True

    @pytest.fixture
    def storage_factory(self, postgres_factory: Callable[[], Storage]) -> Iterator[Callable[[], Storage]]:
        yield postgres_factory
