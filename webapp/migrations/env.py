"""Alembic's environment for meldcam: run by ``webapp.schema`` (``meldcam db ...`` and the
app's start-up), which passes an open connection in ``config.attributes["connection"]``.

SQLite gets batch mode (its ALTER TABLE cannot drop or change a column: Alembic copies the
table instead), so the same migration runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

from alembic import context

from webapp.db import Base

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations with `meldcam db upgrade`, not the alembic command")
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
