"""Which schema a database holds, and upgrading it: Alembic, configured in code.

A database's schema revision is the row of ``treefarm_alembic_version``
(:data:`~treefarm.storage.schema.VERSION_TABLE`): ``0001`` is the 0.1.0
release's schema, each later revision one step in ``migrations/versions``
(linear history). Opening a storage for writing checks it inside the
transaction that holds the database's write lock (SQLite's ``BEGIN
IMMEDIATE``; PostgreSQL's advisory lock), so two processes opening one old
file at once upgrade it once: the second waits for the first, then finds it
current. Then:

* no treefarm tables: they are created at :data:`~treefarm.storage.schema.HEAD`
  and stamped with it (no step runs);
* treefarm tables without a version table: a 0.1.0 database (its
  ``treefarm_meta.schema_version`` must be ``"1"``); every step runs from
  ``0001``, which first adds what an early 0.1.0 build lacked;
* an older revision: the steps after it run, in the same transaction, so a
  failed upgrade leaves the file as it was;
* a revision newer than this treefarm knows: refused, naming both.

A read-only opening never writes: it refuses a database that is not at
:data:`~treefarm.storage.schema.HEAD` with an error that says to open it once
for writing. Steps only upgrade (there is no downgrade): keep a copy of a file
before opening it with a newer treefarm if an older one must read it again.

Alembic is configured here rather than from an ``alembic.ini`` on disk, so
that an installed wheel finds its migrations (package data beside this
module); it is imported only when a step runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlalchemy as sa

from ..exceptions import StorageError, format_values
from .schema import HEAD, REVISIONS, VERSION_TABLE, meta_table, metadata

__all__ = ["MIGRATIONS", "alembic_config", "current_revision", "ensure_schema", "upgrade"]

MIGRATIONS = Path(__file__).with_name("migrations")
"""The folder of Alembic's ``env.py`` and ``versions/``, shipped inside the package."""

_version = sa.Table(
    VERSION_TABLE,
    sa.MetaData(),
    sa.Column("version_num", sa.String(32), nullable=False),
    sa.PrimaryKeyConstraint("version_num", name=f"{VERSION_TABLE}_pkc"),
)


def alembic_config(connection: sa.Connection) -> Any:
    """An Alembic ``Config`` that runs ``migrations/`` on ``connection`` (no ini file)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    config.set_main_option("path_separator", "os")
    config.attributes["connection"] = connection
    config.attributes["version_table"] = VERSION_TABLE
    return config


def upgrade(connection: sa.Connection, target: str = "head") -> None:
    """Run the steps from the database's revision up to ``target``, on ``connection``
    and inside its transaction."""
    from alembic import command

    command.upgrade(alembic_config(connection), target)


def current_revision(connection: sa.Connection) -> str | None:
    """The database's schema revision; None when it has no version table (or no row)."""
    if not sa.inspect(connection).has_table(VERSION_TABLE):
        return None
    found = connection.execute(sa.select(_version.c.version_num)).scalars().all()
    return found[0] if len(found) == 1 else None if not found else ",".join(sorted(found))


def _newer(found: str) -> StorageError:
    if found.isdigit() and int(found) > int(HEAD):
        return StorageError(
            f"the database schema revision {found} is newer than this treefarm's {HEAD}; upgrade treefarm"
        )
    return StorageError(
        f"the database schema revision must be one this treefarm knows ({', '.join(REVISIONS)}), "
        f"but got {format_values(revision=found)} (this treefarm's is {HEAD}; a newer treefarm or "
        "another tool wrote it)"
    )


def ensure_schema(connection: sa.Connection, *, read_only: bool, shown: str) -> bool:
    """Make the database hold the schema at :data:`HEAD` (see the module docstring);
    whether anything was written. ``shown`` is the URL for error messages."""
    if not sa.inspect(connection).has_table(meta_table.name):
        if read_only:
            raise StorageError(
                "a storage opened for reading must hold treefarm's tables, but got "
                f"{format_values(url=shown)} (no treefarm_meta table)"
            )
        metadata.create_all(connection)
        connection.execute(sa.insert(meta_table).values(key="schema_version", value=str(int(HEAD))))
        _version.create(connection)
        connection.execute(sa.insert(_version).values(version_num=HEAD))
        return True
    found = current_revision(connection)
    if found == HEAD:
        return False
    if found is None:
        query = sa.select(meta_table.c.value).where(meta_table.c.key == "schema_version")
        version = connection.execute(query).scalar()
        if version != "1":
            raise StorageError(
                "a database without a schema revision must be treefarm 0.1.0's (schema_version 1); a "
                f"newer treefarm wrote it, or it is not a treefarm database, but got "
                f"{format_values(schema_version=version, url=shown)}"
            )
    elif found not in REVISIONS:
        raise _newer(found)
    if read_only:
        held = "none (treefarm 0.1.0)" if found is None else found
        raise StorageError(
            f"a database opened for reading must hold this treefarm's schema revision {HEAD}, but got "
            f"{format_values(revision=held, url=shown)}: open it once for writing (any treefarm "
            "command or Python call without read_only) to upgrade it"
        )
    upgrade(connection)
    return True
