"""The schema of the 0.1.0 release.

On an empty database it creates the tables as 0.1.0 did. On a database
written by a 0.1.0 build (``treefarm_meta.schema_version`` "1", no Alembic
version table) it adds what an earlier build may lack (the hints table came
later than the others; any missing column is added as nullable), so that
every 0.1.0 file ends at the same schema.

Revision ID: 0001
Revises: (none)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _tables(metadata: sa.MetaData) -> list[sa.Table]:
    """The 0.1.0 tables, frozen here (later revisions change them only through steps)."""
    return [
        sa.Table(
            "treefarm_meta",
            metadata,
            sa.Column("key", sa.String(64), primary_key=True),
            sa.Column("value", sa.Text, nullable=False),
        ),
        sa.Table(
            "treefarm_studies",
            metadata,
            sa.Column("study_id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("name", sa.String(512), nullable=False, unique=True),
            sa.Column("direction", sa.String(16), nullable=False),
            sa.Column("seed", sa.BigInteger, nullable=True),
            sa.Column("attrs", sa.Text, nullable=False),
            sa.Column("created", sa.Double, nullable=False),
        ),
        sa.Table(
            "treefarm_trials",
            metadata,
            sa.Column("trial_id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("study_id", sa.Integer, sa.ForeignKey("treefarm_studies.study_id"), nullable=False),
            sa.Column("number", sa.Integer, nullable=False),
            sa.Column("state", sa.String(16), nullable=False),
            sa.Column("params", sa.Text, nullable=False),
            sa.Column("value", sa.Double, nullable=True),
            sa.Column("user_attrs", sa.Text, nullable=False),
            sa.Column("system_attrs", sa.Text, nullable=False),
            sa.Column("started", sa.Double, nullable=True),
            sa.Column("finished", sa.Double, nullable=True),
            sa.Column("heartbeat", sa.Double, nullable=True),
            sa.UniqueConstraint("study_id", "number", name="treefarm_trials_study_number"),
            sa.Index("treefarm_trials_study_state", "study_id", "state", "number"),
        ),
        sa.Table(
            "treefarm_hints",
            metadata,
            sa.Column("hint_id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column(
                "study_id", sa.Integer, sa.ForeignKey("treefarm_studies.study_id"), nullable=False, index=True
            ),
            sa.Column("config", sa.Text, nullable=False),
            sa.Column("credibility", sa.Double, nullable=False),
            sa.Column("weight", sa.Integer, nullable=False),
            sa.Column("spread", sa.Double, nullable=False),
            sa.Column("author", sa.String(256), nullable=True),
            sa.Column("created", sa.Double, nullable=False),
            sqlite_autoincrement=True,
        ),
        sa.Table(
            "treefarm_intermediate",
            metadata,
            sa.Column("study_id", sa.Integer, sa.ForeignKey("treefarm_studies.study_id"), primary_key=True),
            sa.Column("number", sa.Integer, primary_key=True),
            sa.Column("step", sa.BigInteger, primary_key=True),
            sa.Column("value", sa.Double, nullable=True),
        ),
    ]


def upgrade() -> None:
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    existing = set(inspector.get_table_names())
    fresh = "treefarm_meta" not in existing
    for table in _tables(sa.MetaData()):
        if table.name not in existing:
            table.create(bind)
            continue
        present = {column["name"] for column in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name not in present:
                op.add_column(table.name, sa.Column(column.name, column.type, nullable=True))
        indexes = {index["name"] for index in inspector.get_indexes(table.name)}
        for index in table.indexes:
            if index.name not in indexes:
                index.create(bind)
    if fresh:
        op.execute("INSERT INTO treefarm_meta (key, value) VALUES ('schema_version', '1')")

