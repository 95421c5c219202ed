"""The objectives' names.

``treefarm_studies.names``: a JSON list, one name per objective, beside
``directions`` (one direction per objective), so that every reading of a study
shows its values under the names the user gave
(``directions={"error": "minimize", "size": "minimize"}``). NULL for a study
whose objectives have no names, which every existing study gets.

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
    op.add_column("treefarm_studies", sa.Column("names", sa.Text, nullable=True))
    op.execute("UPDATE treefarm_meta SET value = '6' WHERE key = 'schema_version'")
