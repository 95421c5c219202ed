"""The flags the storage looked for in ``system_attrs`` JSON text become columns.

``request`` holds the id of the claim or creation call that wrote a trial
(it was ``system_attrs["_request"]``, found with ``LIKE``): a retry after a
lost acknowledgement looks it up. ``requeued`` is True for a trial whose
system attributes hold ``"requeued_from"`` (a re-queued interrupted trial,
which a claim takes even past the budget; found with ``LIKE`` before).
Both are filled from the JSON of every existing trial.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

REQUEST = "_request"
REQUEUED = "requeued_from"


def upgrade() -> None:
    op.add_column("treefarm_trials", sa.Column("request", sa.String(32), nullable=True))
    op.add_column(
        "treefarm_trials", sa.Column("requeued", sa.Boolean, nullable=False, server_default=sa.false())
    )
    trials = sa.table(
        "treefarm_trials",
        sa.column("trial_id", sa.Integer),
        sa.column("system_attrs", sa.Text),
        sa.column("request", sa.String),
        sa.column("requeued", sa.Boolean),
    )
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(trials.c.trial_id, trials.c.system_attrs).where(
            sa.or_(trials.c.system_attrs.contains(REQUEST), trials.c.system_attrs.contains(REQUEUED))
        )
    ).all()
    changes = []
    for trial_id, text in rows:
        attrs = json.loads(text)
        request = attrs.get(REQUEST)
        changes.append(
            {
                "id": trial_id,
                "request": request if isinstance(request, str) else None,
                "requeued": REQUEUED in attrs,
            }
        )
    if changes:
        update = (
            sa.update(trials)
            .where(trials.c.trial_id == sa.bindparam("id"))
            .values(request=sa.bindparam("request"), requeued=sa.bindparam("requeued"))
        )
        bind.execute(update, changes)
    op.execute("UPDATE treefarm_meta SET value = '2' WHERE key = 'schema_version'")
