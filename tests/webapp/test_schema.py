"""The schema's migrations (``webapp.schema``, Alembic): they make what the models describe, on
SQLite and PostgreSQL; a database made by ``create_all`` before them is adopted with its data
and photo files; ``meldcam db upgrade`` is the one command; a shared database needs a key."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from flask import Flask
from sqlalchemy import inspect

from webapp import ConfigurationError, create_app, schema
from webapp.db import Base, make_engine

ON_POSTGRESQL = True
REPO = Path(__file__).resolve().parents[2]


def test_one_head_revision():
    """Two migrations written at once on the same parent leave two heads: merge or re-parent."""
    assert len(ScriptDirectory.from_config(schema.config()).get_heads()) == 1


@pytest.fixture
def empty_database(tmp_path: Path, database_url: str | None, request: pytest.FixtureRequest) -> str:
    if database_url is None:
        return f"sqlite:///{tmp_path / 'empty.sqlite3'}"
    return str(request.getfixturevalue("new_postgres_database")(False))


def test_migrations_make_what_the_models_describe(empty_database: str):
    engine = make_engine(empty_database)
    schema.upgrade(engine, empty_from_models=False)  # every migration, from nothing
    with engine.connect() as connection:
        assert schema.current(connection) == schema.heads()
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    engine.dispose()
    assert differences == [], "a model changed without a migration: meldcam db revision -m ..."


def test_a_new_database_starts_at_the_newest_revision(app: Flask):
    engine = app.extensions["meldcam_db"].kw["bind"]
    with engine.connect() as connection:
        assert schema.current(connection) == schema.heads()
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []


def test_a_second_start_changes_nothing(app: Flask, database_url: str | None):
    engine = app.extensions["meldcam_db"].kw["bind"]
    schema.upgrade(engine)  # nothing to do: returns without the lock
    with engine.connect() as connection:
        assert schema.current(connection) == schema.heads()


# the schema as create_all made it before hand_boards and write_records (issue 21 and 22)
CREATE_ALL_2026_11 = """
CREATE TABLE games (id VARCHAR(32) NOT NULL, game VARCHAR(32) NOT NULL, options JSON NOT NULL,
    edit_token_hash VARCHAR(64) NOT NULL, created_at DATETIME NOT NULL, PRIMARY KEY (id));
CREATE TABLE players (id INTEGER NOT NULL, game_id VARCHAR(32) NOT NULL, seat INTEGER NOT NULL,
    name VARCHAR(40) NOT NULL, PRIMARY KEY (id),
    FOREIGN KEY(game_id) REFERENCES games (id) ON DELETE CASCADE);
CREATE INDEX ix_players_game_id ON players (game_id);
CREATE TABLE hands (id INTEGER NOT NULL, game_id VARCHAR(32) NOT NULL, number INTEGER NOT NULL,
    hand JSON NOT NULL, result JSON NOT NULL, deltas JSON NOT NULL, created_at DATETIME NOT NULL,
    updated_at DATETIME, PRIMARY KEY (id), UNIQUE (game_id, number),
    FOREIGN KEY(game_id) REFERENCES games (id) ON DELETE CASCADE);
CREATE INDEX ix_hands_game_id ON hands (game_id);
CREATE TABLE photos (id VARCHAR(32) NOT NULL, filename VARCHAR(64) NOT NULL,
    kind VARCHAR(16) NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL,
    game_id VARCHAR(32), recognition JSON, created_at DATETIME NOT NULL, PRIMARY KEY (id),
    FOREIGN KEY(game_id) REFERENCES games (id) ON DELETE SET NULL);
CREATE INDEX ix_photos_game_id ON photos (game_id);
INSERT INTO games VALUES ('g1', 'rummikub', '{}', 'hash', '2026-11-29 10:00:00');
INSERT INTO players VALUES (1, 'g1', 0, 'Ana'), (2, 'g1', 1, 'Ben');
INSERT INTO hands VALUES (1, 'g1', 1, '{"winner": "Ana"}', '{}', '{"Ana": 5, "Ben": -5}',
    '2026-11-29 10:05:00', NULL);
INSERT INTO photos VALUES ('p1', 'p1.jpg', 'tiles', 4, 3, 'g1', NULL, '2026-11-29 10:04:00'),
    ('p2', 'p2.jpg', 'tiles', 4, 3, NULL, NULL, '2026-11-29 10:04:30');
"""


def test_a_database_made_before_migrations_is_adopted_with_its_data(tmp_path: Path):
    database = tmp_path / "meldcam.sqlite3"
    with sqlite3.connect(database) as connection:
        connection.executescript(CREATE_ALL_2026_11)
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "p1.jpg").write_bytes(b"photo one")  # p2's file is gone
    app = create_app({"INSTANCE_PATH": str(tmp_path)})
    client = app.test_client()
    game = client.get("/api/games/g1").json
    assert game["players"] == ["Ana", "Ben"]
    assert len(game["hands"]) == 1
    assert client.get("/api/photos/p1").data == b"photo one"
    assert client.get("/api/photos/p2").status_code == 404
    tables = set(inspect(app.extensions["meldcam_db"].kw["bind"]).get_table_names())
    assert {"hand_boards", "write_records", "photo_data", "alembic_version"} <= tables
    second = create_app({"INSTANCE_PATH": str(tmp_path)})  # a second start: nothing to do
    assert second.test_client().get("/api/photos/p1").data == b"photo one"


@pytest.mark.servers
def test_meldcam_db_upgrade_is_the_one_command(tmp_path: Path, database_url: str | None):
    environment = {**os.environ, "MELDCAM_INSTANCE_PATH": str(tmp_path)}
    if database_url is not None:
        environment["MELDCAM_DATABASE_URL"] = database_url
    done = subprocess.run(
        [sys.executable, "-m", "meldcam", "db", "upgrade"],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["revision"] == sorted(schema.heads())


def test_a_shared_database_needs_a_configured_secret_key(tmp_path: Path):
    url = "postgresql+psycopg://meldcam@127.0.0.1:1/meldcam"  # refused before any connection
    with pytest.raises(ConfigurationError, match="MELDCAM_SECRET_KEY"):
        create_app({"INSTANCE_PATH": str(tmp_path), "DATABASE_URL": url})
    done = subprocess.run(
        [sys.executable, "-m", "meldcam", "serve", "--port", "0"],
        cwd=REPO,
        env={**os.environ, "MELDCAM_INSTANCE_PATH": str(tmp_path), "MELDCAM_DATABASE_URL": url},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "MELDCAM_SECRET_KEY" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "secret_key").exists()


def test_engine_pings_before_use():
    """The first request after a database restart gets a fresh connection, not a 500."""
    assert make_engine("sqlite://").pool._pre_ping
