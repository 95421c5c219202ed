"""A cost on every trial row.

``treefarm_trials.cost`` is what the trial has spent (the steps of its learning
curve) or reserved when it was claimed (the declared cost of its fidelity). A
study's cost budget sums the column in the claim's own transaction, so workers
on many machines stop at one budget. Existing trials start at 0: a study
stored before has spent nothing against a budget set from now on.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("treefarm_trials", sa.Column("cost", sa.Double, nullable=False, server_default="0"))
    op.execute("UPDATE treefarm_meta SET value = '6' WHERE key = 'schema_version'")
