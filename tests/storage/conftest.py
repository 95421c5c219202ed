"""Fixtures for the storage tests: a PostgreSQL cluster for the session, and
factories of fresh storages of each kind."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from treefarm.storage import SQLStorage, Storage

TABLES = (
    "treefarm_notes",
    "treefarm_hints",
    "treefarm_intermediate",
    "treefarm_trials",
    "treefarm_studies",
    "treefarm_meta",
    "treefarm_alembic_version",
)


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


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """One database several processes or threads share: a SQLite file, then PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'shared.db'}"
    else:
        request.getfixturevalue("postgres_factory")
        yield request.getfixturevalue("postgres_url")
