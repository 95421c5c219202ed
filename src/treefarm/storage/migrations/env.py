"""Alembic's environment for treefarm's schema: runs on the connection it is given.

treefarm never runs Alembic from an ``alembic.ini``: :mod:`treefarm.storage.migrate`
builds the configuration in code (so an installed wheel finds this folder) and
hands over, in ``config.attributes``, the open ``connection`` (inside the
transaction that holds the database's write lock) and the ``version_table``.
"""

from __future__ import annotations

from alembic import context

config = context.config
connection = config.attributes["connection"]
context.configure(
    connection=connection,
    version_table=config.attributes["version_table"],
    transaction_per_migration=False,
)
with context.begin_transaction():
    context.run_migrations()
