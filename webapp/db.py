"""Database: SQLAlchemy 2 models (games, players, hands, hand boards, photos, the games' change log,
seats and the racks sent from them) and a session per unit of work.

SQLite is the embedded default; every connection turns on WAL and foreign keys. PostgreSQL
(``postgresql+psycopg://...``) serves several nodes. The schema is made and changed by the
migrations in ``webapp/migrations`` (``webapp.schema``), run at start-up under a lock; a model
changed here needs a migration too (``meldcam db revision -m "..."``, see docs/deploy.md).

A write is one ``with transaction(app) as session:`` block: it commits at the end or rolls back on
any error, so a hand that fails to score or to tally leaves nothing behind. Writes to one game
take turns from their first read: on PostgreSQL the game's row lock
(``matches.get_game(..., for_update=True)``), on SQLite the database's write lock, which a
write transaction takes at its start (``BEGIN IMMEDIATE``, below); a read (``reading``) takes
no lock and waits for no writer (WAL).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from flask import Flask, current_app
from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    String,
    UniqueConstraint,
    create_engine,
    event,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    Session,
    mapped_column,
    relationship,
    sessionmaker,
)

EXTENSION_KEY = "meldcam_db"


def _now() -> datetime:
    return datetime.now(UTC)


# constraint names the same on every database, so a migration can name what it drops
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Game(Base):
    """A match. ``id`` is the unguessable read link; the edit token is stored only as a hash."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    edit_token_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    players: Mapped[list[Player]] = relationship(
        back_populates="game", order_by="Player.seat", cascade="all, delete-orphan"
    )
    hands: Mapped[list[Hand]] = relationship(
        back_populates="game", order_by="Hand.number", cascade="all, delete-orphan"
    )


class Player(Base):
    __tablename__ = "players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(40))
    game: Mapped[Game] = relationship(back_populates="players")


class Hand(Base):
    """One scored hand: the hand as entered (``hand``), the scorer's answer and its deltas."""

    __tablename__ = "hands"
    # two phones saving "hand 3" at once: the second commit fails instead of duplicating it
    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    hand: Mapped[dict[str, Any]] = mapped_column(JSON)
    result: Mapped[dict[str, Any]] = mapped_column(JSON)
    deltas: Mapped[dict[str, int]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    updated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    game: Mapped[Game] = relationship(back_populates="hands")
    # deleted with the hand by the database (ON DELETE CASCADE; foreign keys are on)
    boards: Mapped[HandBoards | None] = relationship(
        back_populates="hand", cascade="all, delete-orphan", passive_deletes=True, uselist=False
    )


class HandBoards(Base):
    """What a hand was entered from: each player's photos and the boxes on them, so
    that editing the hand shows them again. Kept apart from ``hands.hand``, which the scorer
    reads; a table of its own, so databases made before it gain it on start."""

    __tablename__ = "hand_boards"

    hand_id: Mapped[int] = mapped_column(
        ForeignKey("hands.id", ondelete="CASCADE"), primary_key=True
    )
    boards: Mapped[dict[str, Any]] = mapped_column(JSON)
    hand: Mapped[Hand] = relationship(back_populates="boards")


class Photo(Base):
    """An uploaded photo: what it is here, its bytes in ``PhotoData`` (every node reads them).
    ``filename`` is a random name whose extension gives the format."""

    __tablename__ = "photos"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    filename: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(16))
    width: Mapped[int] = mapped_column(Integer)
    height: Mapped[int] = mapped_column(Integer)
    game_id: Mapped[str | None] = mapped_column(
        ForeignKey("games.id", ondelete="SET NULL"), nullable=True, index=True
    )
    recognition: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class PhotoData(Base):
    """A photo's bytes (at most ``photos.MAX_SIDE`` on a side, a few hundred KB), in a table of
    their own so that listing photos never loads them; in the database so that a photo stored
    through one node is served by every other."""

    __tablename__ = "photo_data"

    photo_id: Mapped[str] = mapped_column(
        ForeignKey("photos.id", ondelete="CASCADE"), primary_key=True
    )
    data: Mapped[bytes] = mapped_column(LargeBinary)


class GameEvent(Base):
    """One change of a game (a hand saved, edited or undone, a rack sent, a seat revoked), with
    the game's new version: 1, 2, 3... per game. The live pages' event streams read it from the
    database, so every node serving the game sees every change (``webapp.events``). A log rather
    than a counter on ``games``: each change keeps what it was, so a page re-reads only that."""

    __tablename__ = "game_events"
    __table_args__ = (PrimaryKeyConstraint("game_id", "version"),)

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class Seat(Base):
    """A seat's link, as far as the database knows it: the link itself is made from the app's
    secret (``webapp.seats``) and never stored; revoking the seat raises ``generation``, which
    makes a new link and leaves the old one useless. No row: generation 0, nobody joined yet."""

    __tablename__ = "seats"
    __table_args__ = (PrimaryKeyConstraint("game_id", "seat"),)

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    generation: Mapped[int] = mapped_column(Integer, default=0)
    joined_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class SeatRack(Base):
    """The pieces a player sent from their own phone for the hand being scored (one per seat
    and hand: a phone sending again replaces it), and the photos and boxes they came from, in
    the shape of one player's ``hand_boards`` entry. The host's end-of-hand page takes them;
    the hand, once saved, holds them, and they are deleted."""

    __tablename__ = "seat_racks"
    __table_args__ = (PrimaryKeyConstraint("game_id", "hand_number", "seat"),)

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    hand_number: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    pieces: Mapped[list[str]] = mapped_column(JSON)
    board: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    sent_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class WriteRecord(Base):
    """A write done under an ``Idempotency-Key``: a retry with the same key answers this again.

    ``key`` is the SHA-256 of the method, the path and the client's key (never the key itself);
    ``fingerprint`` the SHA-256 of what was sent, so a key reused for another request is refused.
    Stored in the write's own transaction: the write and its record are kept or lost together.
    """

    __tablename__ = "write_records"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    status: Mapped[int] = mapped_column(Integer)
    body: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    location: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now, index=True)


class Club(Base):
    """A named group whose players meet across matches (``webapp.clubs``). ``id`` is the read
    link; the edit token is stored only as a hash, as a game's."""

    __tablename__ = "clubs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    edit_token_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    players: Mapped[list[ClubPlayer]] = relationship(
        back_populates="club", order_by="ClubPlayer.id", cascade="all, delete-orphan"
    )


class ClubPlayer(Base):
    """A club's player: the same person in every match of the club. ``name_key`` (the name
    folded as ``matches.name_key`` folds it) is unique in the club: Ana and ANA are one."""

    __tablename__ = "club_players"
    __table_args__ = (UniqueConstraint("club_id", "name_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(40))
    name_key: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    club: Mapped[Club] = relationship(back_populates="players")


class ClubGame(Base):
    """A match played in a club (a match belongs to one club or none)."""

    __tablename__ = "club_games"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"), index=True)


class ClubSeat(Base):
    """Who of the club sat in a club match's seat."""

    __tablename__ = "club_seats"
    __table_args__ = (PrimaryKeyConstraint("game_id", "seat"),)

    game_id: Mapped[str] = mapped_column(ForeignKey("club_games.game_id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    club_player_id: Mapped[int] = mapped_column(
        ForeignKey("club_players.id", ondelete="CASCADE"), index=True
    )


class ClubSeatLine(Base):
    """One seat's hands of one club match, added up (``scorer.records.MatchLine``): rewritten
    from the match's stored hands in the transaction that saves, edits or undoes one of them
    (``webapp.clubs.note_match``), so a club's statistics read a row per match and seat instead
    of every hand's JSON, and are never behind the hands."""

    __tablename__ = "club_seat_lines"
    __table_args__ = (PrimaryKeyConstraint("game_id", "seat"),)

    game_id: Mapped[str] = mapped_column(ForeignKey("club_games.game_id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    hands: Mapped[int] = mapped_column(Integer)
    hands_won: Mapped[int] = mapped_column(Integer)
    points: Mapped[int] = mapped_column(Integer)
    points_plus: Mapped[int] = mapped_column(Integer)
    plus_hands: Mapped[int] = mapped_column(Integer)
    points_minus: Mapped[int] = mapped_column(Integer)
    minus_hands: Mapped[int] = mapped_column(Integer)
    best_hand: Mapped[int | None] = mapped_column(Integer, nullable=True)
    worst_hand: Mapped[int | None] = mapped_column(Integer, nullable=True)
    caught: Mapped[int] = mapped_column(Integer)
    caught_of: Mapped[int] = mapped_column(Integer)


# execution option of a connection whose transaction will write (``transaction``): on SQLite it
# begins with the write lock; other databases ignore it
WRITES = "meldcam_writes"
# how long a SQLite writer waits for the one before it (each holds the lock for a few ms)
SQLITE_BUSY_TIMEOUT_MS = 5000


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    # the driver's own transactions (Python's sqlite3 "legacy" mode) begin only at the first
    # INSERT / UPDATE / DELETE: a write's reads ran before it held the lock, and two writes
    # both saw "3 hands" (an undo and a new hand left [1, 3]). The driver now begins nothing;
    # ``_sqlite_begin`` does (SQLAlchemy's documented recipe for pysqlite).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    """Begin SQLite's transaction: a write's (``WRITES``) with the write lock, so it reads
    nothing another writer may still change and waits (busy timeout) for the writer before
    it; a read's deferred, so reads are never serialised (WAL: they see the last commit)."""
    writes = connection.get_execution_options().get(WRITES, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")


def make_engine(url: str) -> Engine:
    """An engine for ``url``; connections are tested before use (``pool_pre_ping``), so the first
    request after a database restart gets a fresh connection instead of a 500."""
    engine = create_engine(url, pool_pre_ping=True)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_connect)
        event.listen(engine, "begin", _sqlite_begin)
    return engine


def init_db(app: Flask) -> None:
    """Create the engine for ``app`` and bring its schema up to date (``webapp.schema``)."""
    from webapp import schema

    engine = make_engine(app.config["DATABASE_URL"])
    schema.upgrade(engine, Path(app.instance_path) / "photos")
    app.extensions[EXTENSION_KEY] = sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(app: Flask | None = None) -> Iterator[Session]:
    """A session whose work is committed at the end of the block, or rolled back on error. Its
    transaction begins here, before its first read, as a write's (``WRITES``): on SQLite it
    holds the write lock from the start, so what it reads stays true until it commits."""
    maker: sessionmaker[Session] = (app or current_app).extensions[EXTENSION_KEY]
    with maker() as session, session.begin():
        session.connection(execution_options={WRITES: True})
        yield session


@contextmanager
def reading(app: Flask | None = None) -> Iterator[Session]:
    """A read-only unit of work (nothing is committed)."""
    maker: sessionmaker[Session] = (app or current_app).extensions[EXTENSION_KEY]
    with maker() as session:
        yield session
