"""Notes as rows.

The dashboard kept a study's notes as one study attribute, ``notes``, a list
rewritten by every new note under a lock of its own process: two dashboards
adding a note at the same instant could each write the list without the
other's. ``treefarm_notes`` keeps one row per note (study, trial or NULL,
text, author, created), inserted in a transaction of its own. The notes of the
attribute move to rows, oldest first, and the attribute is removed; an entry
that is no note (no text) stays in the attribute, untouched.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import json
import time
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    notes = op.create_table(
        "treefarm_notes",
        sa.Column("note_id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("study_id", sa.Integer, sa.ForeignKey("treefarm_studies.study_id"), nullable=False, index=True),
        sa.Column("trial", sa.Integer, nullable=True),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("author", sa.String(256), nullable=True),
        sa.Column("created", sa.Double, nullable=False),
    )
    bind = op.get_bind()
    studies = sa.table("treefarm_studies", sa.column("study_id", sa.Integer), sa.column("attrs", sa.Text))
    for study_id, text in bind.execute(sa.select(studies.c.study_id, studies.c.attrs)).all():
        attrs = json.loads(text)
        listed = attrs.get("notes") if isinstance(attrs, dict) else None
        if not isinstance(listed, list):
            continue
        rows = [_row(study_id, item) for item in listed]
        if any(row is not None for row in rows):
            bind.execute(sa.insert(notes), [row for row in rows if row is not None])
        kept = [item for item, row in zip(listed, rows) if row is None]
        attrs = {k: v for k, v in attrs.items() if k != "notes"} | ({"notes": kept} if kept else {})
        bind.execute(sa.update(studies).where(studies.c.study_id == study_id).values(attrs=json.dumps(attrs)))
    op.execute("UPDATE treefarm_meta SET value = '8' WHERE key = 'schema_version'")


def _row(study_id: int, item: Any) -> dict[str, Any] | None:
    """A stored note as a row, or None for an entry that is no note."""
    if not isinstance(item, dict) or not isinstance(item.get("text"), str):
        return None
    author, created, trial = item.get("author"), item.get("time"), item.get("trial")
    return {
        "study_id": study_id,
        "trial": trial if isinstance(trial, int) and not isinstance(trial, bool) else None,
        "text": item["text"],
        "author": author[:256] if isinstance(author, str) else None,
        "created": float(created) if isinstance(created, (int, float)) and not isinstance(created, bool) else time.time(),
    }
