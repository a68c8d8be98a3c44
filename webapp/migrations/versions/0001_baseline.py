"""The schema as ``create_all`` made it up to issue 24 (games, players, hands, hand boards,
photos, write records).

A database made by ``create_all`` before migrations has some or all of these tables: only the
missing ones are made (``hand_boards`` and ``write_records`` came later than the others), so the
database is adopted with its data. Columns did not change while ``create_all`` was in use.

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _missing(table: str) -> bool:
    return not sa.inspect(op.get_bind()).has_table(table)


def upgrade() -> None:
    if _missing("games"):
        op.create_table(
            "games",
            sa.Column("id", sa.String(length=32), nullable=False),
            sa.Column("game", sa.String(length=32), nullable=False),
            sa.Column("options", sa.JSON(), nullable=False),
            sa.Column("edit_token_hash", sa.String(length=64), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
        )
    if _missing("write_records"):
        op.create_table(
            "write_records",
            sa.Column("key", sa.String(length=64), nullable=False),
            sa.Column("fingerprint", sa.String(length=64), nullable=False),
            sa.Column("status", sa.Integer(), nullable=False),
            sa.Column("body", sa.JSON(), nullable=True),
            sa.Column("location", sa.String(length=200), nullable=True),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("key", name=op.f("pk_write_records")),
        )
        op.create_index(
            op.f("ix_write_records_created_at"), "write_records", ["created_at"], unique=False
        )
    if _missing("hands"):
        op.create_table(
            "hands",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.String(length=32), nullable=False),
            sa.Column("number", sa.Integer(), nullable=False),
            sa.Column("hand", sa.JSON(), nullable=False),
            sa.Column("result", sa.JSON(), nullable=False),
            sa.Column("deltas", sa.JSON(), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
            sa.ForeignKeyConstraint(
                ["game_id"], ["games.id"], name=op.f("fk_hands_game_id_games"), ondelete="CASCADE"
            ),
            sa.PrimaryKeyConstraint("id", name=op.f("pk_hands")),
            sa.UniqueConstraint("game_id", "number", name=op.f("uq_hands_game_id_number")),
        )
        op.create_index(op.f("ix_hands_game_id"), "hands", ["game_id"], unique=False)
    if _missing("photos"):
        op.create_table(
            "photos",
            sa.Column("id", sa.String(length=32), nullable=False),
            sa.Column("filename", sa.String(length=64), nullable=False),
            sa.Column("kind", sa.String(length=16), nullable=False),
            sa.Column("width", sa.Integer(), nullable=False),
            sa.Column("height", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.String(length=32), nullable=True),
            sa.Column("recognition", sa.JSON(), nullable=True),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.ForeignKeyConstraint(
                ["game_id"], ["games.id"], name=op.f("fk_photos_game_id_games"), ondelete="SET NULL"
            ),
            sa.PrimaryKeyConstraint("id", name=op.f("pk_photos")),
        )
        op.create_index(op.f("ix_photos_game_id"), "photos", ["game_id"], unique=False)
    if _missing("players"):
        op.create_table(
            "players",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.String(length=32), nullable=False),
            sa.Column("seat", sa.Integer(), nullable=False),
            sa.Column("name", sa.String(length=40), nullable=False),
            sa.ForeignKeyConstraint(
                ["game_id"], ["games.id"], name=op.f("fk_players_game_id_games"), ondelete="CASCADE"
            ),
            sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        )
        op.create_index(op.f("ix_players_game_id"), "players", ["game_id"], unique=False)
    if _missing("hand_boards"):
        op.create_table(
            "hand_boards",
            sa.Column("hand_id", sa.Integer(), nullable=False),
            sa.Column("boards", sa.JSON(), nullable=False),
            sa.ForeignKeyConstraint(
                ["hand_id"],
                ["hands.id"],
                name=op.f("fk_hand_boards_hand_id_hands"),
                ondelete="CASCADE",
            ),
            sa.PrimaryKeyConstraint("hand_id", name=op.f("pk_hand_boards")),
        )


def downgrade() -> None:
    for table in ("hand_boards", "players", "photos", "hands", "write_records", "games"):
        op.drop_table(table)
