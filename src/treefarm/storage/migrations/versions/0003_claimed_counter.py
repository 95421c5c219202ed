"""A counter of claimed trials on the study row.

``treefarm_studies.n_claimed`` is how many of the study's trials are claimed
(in any state but WAITING). Every claim and creation updates it in its own
transaction, under the study row's lock, so a budget check reads one row
instead of counting trials. Filled by counting the existing trials.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("treefarm_studies", sa.Column("n_claimed", sa.Integer, nullable=False, server_default="0"))
    op.execute(
        "UPDATE treefarm_studies SET n_claimed = (SELECT count(*) FROM treefarm_trials "
        "WHERE treefarm_trials.study_id = treefarm_studies.study_id AND treefarm_trials.state <> 'waiting')"
    )
    op.execute("UPDATE treefarm_meta SET value = '3' WHERE key = 'schema_version'")
