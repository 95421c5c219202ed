"""The tables of the SQL storage, as the newest schema revision has them.

Tables are prefixed ``treefarm_`` so that a database shared with other tools
(an Optuna file, say) never collides; the Alembic version table is
``treefarm_alembic_version`` for the same reason (Optuna's is
``alembic_version``). The revision a database holds is the truth about its
tables; :mod:`treefarm.storage.migrate` upgrades older ones step by step
(``migrations/versions``), and a new database is made from these tables at
:data:`HEAD` directly.

* ``treefarm_meta`` (key, value): ``schema_version``, the number of the
  revision (``"6"`` at revision ``0006``). Only the 0.1.0 release reads it
  (it refuses anything but ``"1"``, so it never writes into a database it
  does not know).
* ``treefarm_studies``: a unique ``name``; ``direction`` (the first of
  ``directions``, a JSON list of ``"minimize"``/``"maximize"``, one per
  objective); ``names``, a JSON list of the objectives' names (NULL when the
  user named none); ``seed``; ``attrs`` (JSON text); ``created``; ``n_claimed``,
  how many of its trials are claimed (not WAITING), kept in the transaction
  of every claim and creation so that a budget check reads one row.
* ``treefarm_trials``: unique per study and ``number``; ``state``;
  ``params``, ``user_attrs`` and ``system_attrs`` as JSON text; ``value`` (the
  first objective) and ``values`` (JSON list, one float per objective; NULL
  without a value); ``constraints`` (JSON list, NULL without) and
  ``feasible`` (every constraint ``<= 0``; NULL without constraints), so that
  queries filter on it; ``started``/``finished``/``heartbeat`` (unix
  seconds); ``request``, the id of the claim or creation call that wrote the
  row (a retry after a lost acknowledgement looks it up); ``requeued``, True
  for a WAITING trial that re-queues an interrupted one
  (:data:`~treefarm.storage.REQUEUED` in its system attributes); ``version``,
  incremented by every write to the trial or its reports (heartbeats
  included), so a reader holding the trials asks only for those that changed.
* ``treefarm_intermediate``: study, number, step -> ``value`` (NULL for
  NaN) and ``values`` (JSON list when a vector was reported, else NULL).
* ``treefarm_hints``: a study's search hints (config as JSON text,
  credibility, weight, spread, author, created).
* ``treefarm_notes``: notes people left on a study or on one of its trials
  (``trial``, NULL for the study), one row each: text, author, created.
"""

from __future__ import annotations

import sqlalchemy as sa

__all__ = [
    "HEAD",
    "REVISIONS",
    "VERSION_TABLE",
    "hints_table",
    "intermediate",
    "meta_table",
    "metadata",
    "notes_table",
    "studies",
    "trials",
]

REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008")
"""Every schema revision this treefarm knows, oldest first (Alembic's linear history)."""
HEAD = REVISIONS[-1]
"""The revision of the tables below; a new database is created at it."""
VERSION_TABLE = "treefarm_alembic_version"
"""Alembic's version table, named apart from other tools' ``alembic_version``."""

metadata = sa.MetaData()
meta_table = sa.Table(
    "treefarm_meta",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)
studies = sa.Table(
    "treefarm_studies",
    metadata,
    sa.Column("study_id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(512), nullable=False, unique=True),
    sa.Column("direction", sa.String(16), nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=True),
    sa.Column("attrs", sa.Text, nullable=False),
    sa.Column("created", sa.Double, nullable=False),
    sa.Column("n_claimed", sa.Integer, nullable=False, server_default="0"),
    sa.Column("directions", sa.Text, nullable=True),
    sa.Column("names", sa.Text, nullable=True),
)
trials = sa.Table(
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
    sa.Column("request", sa.String(32), nullable=True),
    sa.Column("requeued", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("values", sa.Text, nullable=True),
    sa.Column("constraints", sa.Text, nullable=True),
    sa.Column("feasible", sa.Boolean, nullable=True),
    sa.Column("version", sa.Integer, nullable=False, server_default="0"),
    sa.Column("cost", sa.Double, nullable=False, server_default="0"),
    sa.UniqueConstraint("study_id", "number", name="treefarm_trials_study_number"),
    sa.Index("treefarm_trials_study_state", "study_id", "state", "number"),
)
hints_table = sa.Table(
    "treefarm_hints",
    metadata,
    sa.Column("hint_id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("study_id", sa.Integer, sa.ForeignKey("treefarm_studies.study_id"), nullable=False, index=True),
    sa.Column("config", sa.Text, nullable=False),
    sa.Column("credibility", sa.Double, nullable=False),
    sa.Column("weight", sa.Integer, nullable=False),
    sa.Column("spread", sa.Double, nullable=False),
    sa.Column("author", sa.String(256), nullable=True),
    sa.Column("created", sa.Double, nullable=False),
    sqlite_autoincrement=True,  # a removed hint's id is never given to a new one
)
notes_table = sa.Table(
    "treefarm_notes",
    metadata,
    sa.Column("note_id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("study_id", sa.Integer, sa.ForeignKey("treefarm_studies.study_id"), nullable=False, index=True),
    sa.Column("trial", sa.Integer, nullable=True),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("author", sa.String(256), nullable=True),
    sa.Column("created", sa.Double, nullable=False),
)
intermediate = sa.Table(
    "treefarm_intermediate",
    metadata,
    sa.Column("study_id", sa.Integer, sa.ForeignKey("treefarm_studies.study_id"), primary_key=True),
    sa.Column("number", sa.Integer, primary_key=True),
    sa.Column("step", sa.BigInteger, primary_key=True),
    sa.Column("value", sa.Double, nullable=True),
    sa.Column("values", sa.Text, nullable=True),
)
