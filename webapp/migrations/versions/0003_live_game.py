"""Every phone at the table: the games' change log (``game_events``, read by the live
pages' event streams), the seats' link generations (``seats``) and the racks sent from the
seats' phones (``seat_racks``).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _game_key(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["game_id"], ["games.id"], name=op.f(f"fk_{table}_game_id_games"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "game_events",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _game_key("game_events"),
        sa.PrimaryKeyConstraint("game_id", "version", name=op.f("pk_game_events")),
    )
    op.create_table(
        "seats",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=True),
        _game_key("seats"),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_seats")),
    )
    op.create_table(
        "seat_racks",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("hand_number", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("pieces", sa.JSON(), nullable=False),
        sa.Column("board", sa.JSON(), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        _game_key("seat_racks"),
        sa.PrimaryKeyConstraint("game_id", "hand_number", "seat", name=op.f("pk_seat_racks")),
    )


def downgrade() -> None:
    op.drop_table("seat_racks")
    op.drop_table("seats")
    op.drop_table("game_events")
