"""Fixtures for the storage tests: a PostgreSQL cluster for the session, and
factories of fresh storages of each kind."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from treefarm.storage import SQLStorage, Storage

from .postgres import pg_binaries, postgres_cluster

TABLES = ("treefarm_intermediate", "treefarm_trials", "treefarm_studies", "treefarm_meta")


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of a database on a throwaway cluster, skipped only where PostgreSQL is absent."""
    pytest.importorskip("psycopg", reason="the postgres extra (psycopg 3) is not installed")
    bindir = pg_binaries()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    with postgres_cluster(bindir) as url:
        yield url


def _drop_tables(url: str) -> None:
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql(f"DROP TABLE IF EXISTS {', '.join(TABLES)} CASCADE")
    engine.dispose()


@pytest.fixture
def postgres_factory(postgres_url: str) -> Iterator[Callable[[], Storage]]:
    """Opens storages on the session database, emptied before the test."""
    _drop_tables(postgres_url)
    yield lambda: SQLStorage(postgres_url)


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    return tmp_path / "study.db"
