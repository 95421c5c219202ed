"""A version on every trial row.

``treefarm_trials.version`` starts at 0 and is incremented by every write to
the trial (its row or its intermediate reports, heartbeats included), in that
write's transaction. A reader that keeps the trials it has read asks for the
ones whose version differs from the one it holds, so a study with hundreds of
running trials re-reads two integers per trial instead of every row and
every report. Existing trials start at 0.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("treefarm_trials", sa.Column("version", sa.Integer, nullable=False, server_default="0"))
    op.execute("UPDATE treefarm_meta SET value = '5' WHERE key = 'schema_version'")
