"""Several objectives and constraints.

``treefarm_studies.directions``: a JSON list, one ``"minimize"``/``"maximize"``
per objective (``direction`` stays its first). ``treefarm_trials.values``: a
JSON list, one float per objective, NULL for a trial without a value
(``value`` stays its first); ``constraints``: a JSON list of floats or NULL;
``feasible``: every constraint ``<= 0``, NULL without constraints (a column,
so that queries filter on it). ``treefarm_intermediate.values``: the vector
reported at a step, NULL when one float was. Existing studies get
``[direction]``, existing trials with a value ``[value]``.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("treefarm_studies", sa.Column("directions", sa.Text, nullable=True))
    op.add_column("treefarm_trials", sa.Column("values", sa.Text, nullable=True))
    op.add_column("treefarm_trials", sa.Column("constraints", sa.Text, nullable=True))
    op.add_column("treefarm_trials", sa.Column("feasible", sa.Boolean, nullable=True))
    op.add_column("treefarm_intermediate", sa.Column("values", sa.Text, nullable=True))
    bind = op.get_bind()
    studies = sa.table(
        "treefarm_studies",
        sa.column("study_id", sa.Integer),
        sa.column("direction", sa.String),
        sa.column("directions", sa.Text),
    )
    bind.execute(sa.update(studies).values(directions="[\"" + studies.c.direction + "\"]"))
    trials = sa.table(
        "treefarm_trials",
        sa.column("trial_id", sa.Integer),
        sa.column("value", sa.Double),
        sa.column("values", sa.Text),
    )
    rows = bind.execute(sa.select(trials.c.trial_id, trials.c.value).where(trials.c.value.is_not(None))).all()
    if rows:
        update = sa.update(trials).where(trials.c.trial_id == sa.bindparam("id")).values(values=sa.bindparam("text"))
        bind.execute(update, [{"id": trial_id, "text": f"[{value!r}]"} for trial_id, value in rows])
    op.execute("UPDATE treefarm_meta SET value = '4' WHERE key = 'schema_version'")
