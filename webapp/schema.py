"""The database schema's migrations (Alembic, in ``webapp/migrations/versions``): one command,
``meldcam db upgrade``, and the same upgrade at every start of the app.

Several nodes may start at once on one empty PostgreSQL database: the upgrade runs in one
transaction holding an advisory lock (``pg_advisory_xact_lock``), so the first node makes the
schema and the others wait, then find it current (PostgreSQL's DDL is transactional: a node that
dies half-way leaves nothing). SQLite is one node's own file and needs no lock.

A database made before migrations (``create_all``, meldcam up to issue 24) has tables but no
``alembic_version``: the first revision creates only the tables it lacks and keeps the rest, so
such a database is adopted with its data; the photos it kept as files under
``instance/photos`` are copied into the database by the revision that moved them there.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, inspect, text

MIGRATIONS = Path(__file__).parent / "migrations"
# pg_advisory_xact_lock's key: any constant this database's other users do not take ("meld")
LOCK_KEY = 0x6D656C64


def config(connection: Connection | None = None, photo_folder: Path | None = None) -> Any:
    """Alembic's configuration for meldcam's migrations (no alembic.ini)."""
    from alembic.config import Config

    settings = Config()
    settings.set_main_option("script_location", str(MIGRATIONS))
    settings.set_main_option("file_template", "%%(rev)s_%%(slug)s")
    settings.attributes["connection"] = connection
    settings.attributes["photo_folder"] = photo_folder
    return settings


@functools.cache
def heads() -> frozenset[str]:
    """The newest revision(s) in ``webapp/migrations`` (read once per process)."""
    from alembic.script import ScriptDirectory

    return frozenset(ScriptDirectory.from_config(config()).get_heads())


def current(connection: Connection) -> frozenset[str]:
    """The revision(s) this database is at (empty for a new or pre-migration database)."""
    from alembic.runtime.migration import MigrationContext

    return frozenset(MigrationContext.configure(connection).get_current_heads())


def upgrade(
    engine: Engine, photo_folder: Path | None = None, *, empty_from_models: bool = True
) -> None:
    """Bring the database to the newest revision, under the lock.

    An empty database gets the models' tables at once and is marked as at the newest revision
    (Alembic's advice for new databases: one ``create_all`` is faster than replaying every
    migration, which matters for the tests' thousand apps); ``empty_from_models=False`` replays
    them (``tests/webapp/test_schema.py`` checks both make the same schema). ``photo_folder`` is
    where a pre-migration instance kept its photos (copied in once)."""
    with engine.connect() as connection:
        if current(connection) == heads():
            return  # the usual start: nothing to do, no lock taken
    from alembic import command

    from webapp.db import WRITES, Base

    # a write from its first read: on SQLite it begins with the write lock (``webapp.db``)
    with engine.connect() as connection, connection.execution_options(**{WRITES: True}).begin():
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
        settings = config(connection, photo_folder)
        if empty_from_models and not inspect(connection).get_table_names():
            Base.metadata.create_all(connection)
            command.stamp(settings, "heads")
        else:
            command.upgrade(settings, "heads")


def new_revision(message: str, engine: Engine) -> list[str]:
    """Write a new migration comparing the models (``webapp.db``) with ``engine``'s database,
    which is first brought up to date; return the new files' paths."""
    from alembic import command

    upgrade(engine)
    heads.cache_clear()
    with engine.begin() as connection:
        settings = config(connection)
        ruff = Path(sys.executable).parent / "ruff"
        if ruff.exists():  # the developer's environment: the new file comes out ruff-clean
            settings.set_section_option("post_write_hooks", "hooks", "fix, format")
            for hook, options in (("fix", "check --fix --quiet"), ("format", "format --quiet")):
                settings.set_section_option("post_write_hooks", f"{hook}.type", "exec")
                settings.set_section_option("post_write_hooks", f"{hook}.executable", str(ruff))
                settings.set_section_option(
                    "post_write_hooks", f"{hook}.options", f"{options} REVISION_SCRIPT_FILENAME"
                )
        made = command.revision(settings, message=message, autogenerate=True)
    scripts = made if isinstance(made, list) else [made]
    return [str(script.path) for script in scripts if script is not None]
