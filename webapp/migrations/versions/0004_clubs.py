"""Clubs: named groups of players met across matches (``clubs``, ``club_players``), the matches
played in a club (``club_games``), who sat in each of their seats (``club_seats``) and each
seat's hands of each of them added up (``club_seat_lines``, rewritten with every hand saved).

New tables only: every match stored before keeps working as it was (a match of no club).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "clubs",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("edit_token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_clubs")),
    )
    op.create_table(
        "club_players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("name_key", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"],
            ["clubs.id"],
            name=op.f("fk_club_players_club_id_clubs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_club_players")),
        sa.UniqueConstraint("club_id", "name_key", name=op.f("uq_club_players_club_id_name_key")),
    )
    op.create_index(op.f("ix_club_players_club_id"), "club_players", ["club_id"], unique=False)
    op.create_table(
        "club_games",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("club_id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"], ["clubs.id"], name=op.f("fk_club_games_club_id_clubs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_club_games_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_club_games")),
    )
    op.create_index(op.f("ix_club_games_club_id"), "club_games", ["club_id"], unique=False)
    op.create_table(
        "club_seats",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("club_player_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_player_id"],
            ["club_players.id"],
            name=op.f("fk_club_seats_club_player_id_club_players"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["club_games.game_id"],
            name=op.f("fk_club_seats_game_id_club_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_club_seats")),
    )
    op.create_index(
        op.f("ix_club_seats_club_player_id"), "club_seats", ["club_player_id"], unique=False
    )
    op.create_table(
        "club_seat_lines",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        *[
            sa.Column(name, sa.Integer(), nullable=False)
            for name in ("hands", "hands_won", "points", "points_plus", "plus_hands")
        ],
        sa.Column("points_minus", sa.Integer(), nullable=False),
        sa.Column("minus_hands", sa.Integer(), nullable=False),
        sa.Column("best_hand", sa.Integer(), nullable=True),
        sa.Column("worst_hand", sa.Integer(), nullable=True),
        sa.Column("caught", sa.Integer(), nullable=False),
        sa.Column("caught_of", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["club_games.game_id"],
            name=op.f("fk_club_seat_lines_game_id_club_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_club_seat_lines")),
    )


def downgrade() -> None:
    op.drop_table("club_seat_lines")
    op.drop_table("club_seats")
    op.drop_table("club_games")
    op.drop_table("club_players")
    op.drop_table("clubs")
