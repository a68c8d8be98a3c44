"""Clubs: a named group whose players meet across matches, and their records.

A club has its own edit link, as a match has (a long random token stored hashed; the club's id
is the read link), and a list of players whose names are unique in the club under the same
rules as a match's names (``matches.clean_name`` / ``matches.name_key``). A match started in a
club seats players from that list (a name not on it yet is added), so a player is the same
person in every match of the club; matches outside any club work as before.

The statistics are computed from the stored hands, and nothing is cached to go stale: each
club match keeps its hands added up per seat beside it (``club_seat_lines``, a
``scorer.records.MatchLine`` each), rewritten from the match's stored hands in the very
transaction that saves, edits or undoes one of them (``note_match``), so the figures change in
the same commit as the hands; a request reads one row per match and seat rather than parsing
every hand's JSON again (the target: <= 200 ms for 2,000 matches of 40,000 hands:
``benchmarks/bench_clubs.py``). ``club_matches(..., in_python=True)`` adds the stored hands up
again one by one; the tests check both agree.

Routes: the JSON API under ``/api/clubs`` and the pages under ``/clubs`` and ``/c/<id>``.
Writes to a club need its edit token (``X-Club-Token`` header, or the edit link opened in this
browser); ``POST /api/games`` with ``"club"`` starts a match in a club (``webapp.api``).
"""

from __future__ import annotations

import csv
import functools
import hashlib
import hmac
import io
import json
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from flask import (
    Blueprint,
    Response,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from sqlalchemy import Select, String, cast, delete, select
from sqlalchemy.orm import Session
from werkzeug.exceptions import Forbidden

from scorer.errors import HandError, MeldcamError
from scorer.games import GAME_MODULES, game_title, make_rules
from scorer.records import (
    COLUMNS,
    HandRecord,
    MatchLine,
    MatchRecord,
    PlayerRecord,
    leaderboard,
    match_lines,
    match_record,
    player_records,
    records_by_game,
)
from webapp import bounds, idempotency, matches, sealing
from webapp.db import (
    Club,
    ClubGame,
    ClubPlayer,
    ClubSeat,
    ClubSeatLine,
    Game,
    Hand,
    Player,
    reading,
)
from webapp.i18n import error_json, gettext, lazy_gettext, localise, localised_title
from webapp.idempotency import Answer

bp = Blueprint("clubs", __name__)

MAX_CLUB_NAME = 80
MAX_CLUB_PLAYERS = 200  # players of one club: far more than a club has
MAX_NEW_PLAYERS = 16  # names sent in one request
TOKEN_HEADER = "X-Club-Token"
SESSION_KEY = "club_edit"
RECENT_MATCHES = 20  # matches listed on the club page


class ClubNotFound(matches.NotFound):
    """No club with that id: a 404 (as no game, wherever it is raised)."""


# ---- the club and its players ----------------------------------------------------------------


def _hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(club: Club, token: str | None) -> bool:
    return bool(token) and hmac.compare_digest(club.edit_token_hash, _hash_token(str(token)))


def clean_club_name(name: Any) -> str:
    """The club's name under the same Unicode rules as a player's name, 1-80 characters."""
    if not isinstance(name, str):
        raise HandError(lazy_gettext("give the club a name, as text"))
    if len(name) > MAX_CLUB_NAME:
        raise HandError(
            lazy_gettext("a club's name is at most %(most)s characters", most=MAX_CLUB_NAME)
        )
    cleaned = matches.clean_name(name)
    if not cleaned:
        raise HandError(lazy_gettext("give the club a name, as text"))
    return cleaned


def clean_player_name(name: Any) -> str:
    """One player's name, as a match's names are checked (``matches.clean_name``)."""
    if not isinstance(name, str):
        raise HandError(lazy_gettext("players must be a list of names"))
    if len(name) > matches.MAX_NAME_LENGTH:
        raise HandError(
            lazy_gettext(
                "names are at most %(most)s characters: %(start)s...",
                most=matches.MAX_NAME_LENGTH,
                start=name[:20],
            )
        )
    return matches.clean_name(name)


def _names_list(players: Any) -> list[str]:
    if players is None:
        return []
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise HandError(lazy_gettext("players must be a list of names"))
    if len(players) > MAX_NEW_PLAYERS:
        raise HandError(
            lazy_gettext("at most %(most)s names at once", most=MAX_NEW_PLAYERS),
        )
    return [name for name in (clean_player_name(p) for p in players) if name]


@dataclass(frozen=True)
class CreatedClub:
    club_id: str
    edit_token: str


def create_club(
    db: Session, name: Any, players: Any = None, edit_token: str | None = None
) -> CreatedClub:
    """Check everything, then add the club with its first players; the edit token is returned
    once and stored hashed (given only under an Idempotency-Key, made from that key)."""
    cleaned = clean_club_name(name)
    names = _names_list(players)
    club_id = secrets.token_urlsafe(12)
    edit_token = edit_token or secrets.token_urlsafe(24)
    club = Club(id=club_id, name=cleaned, edit_token_hash=_hash_token(edit_token))
    db.add(club)
    for player in names:
        add_player(db, club, player)
    return CreatedClub(club_id, edit_token)


def get_club(db: Session, club_id: Any) -> Club:
    valid = isinstance(club_id, str) and 0 < len(club_id) <= 32
    club = db.get(Club, club_id) if valid else None
    if club is None:
        raise ClubNotFound(lazy_gettext("no club with this link: check the address"))
    return club


def find_player(club: Club, name: str) -> ClubPlayer | None:
    key = matches.name_key(name)
    return next((p for p in club.players if p.name_key == key), None)


def add_player(db: Session, club: Club, name: Any) -> ClubPlayer:
    """Add a player to the club; a name the club already has (ignoring case) is refused."""
    cleaned = clean_player_name(name)
    if not cleaned:
        raise HandError(lazy_gettext("type the new player's name"))
    if find_player(club, cleaned) is not None:
        raise HandError(lazy_gettext("the club already has a player called %(name)s", name=cleaned))
    if len(club.players) >= MAX_CLUB_PLAYERS:
        raise HandError(lazy_gettext("a club has at most %(most)s players", most=MAX_CLUB_PLAYERS))
    player = ClubPlayer(name=cleaned, name_key=matches.name_key(cleaned))
    club.players.append(player)
    db.flush()
    return player


def start_match(
    db: Session,
    club: Club,
    game: Any,
    options: Any,
    players: Any,
    edit_token: str | None = None,
) -> matches.CreatedGame:
    """A match of the club: ``players`` are names of the club's players (a name it does not
    have yet is added to it), seated in the order given."""
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise HandError(lazy_gettext("players must be a list of names"))
    if len(players) > matches.MAX_SEATS:
        raise HandError(
            lazy_gettext("at most %(most)s names at once", most=matches.MAX_SEATS),
        )
    names = [name for name in (clean_player_name(p) for p in players) if name]
    seated: list[ClubPlayer] = []
    for name in names:
        found = find_player(club, name)
        seated.append(found if found is not None else add_player(db, club, name))
    created = matches.create_game(db, game, options, [p.name for p in seated], edit_token)
    db.flush()  # the game, then its club (no relationship orders these inserts)
    db.add(ClubGame(game_id=created.game_id, club_id=club.id))
    db.flush()
    for seat, player in enumerate(seated):
        db.add(ClubSeat(game_id=created.game_id, seat=seat, club_player_id=player.id))
    return created


def club_of_game(db: Session, game_id: str) -> Club | None:
    """The club a match was played in, or None."""
    club_id = db.scalar(select(ClubGame.club_id).where(ClubGame.game_id == game_id))
    return None if club_id is None else db.get(Club, club_id)


# ---- the statistics --------------------------------------------------------------------------


@dataclass(frozen=True)
class Period:
    """Matches started from ``since`` (inclusive) until ``until`` (inclusive), UTC days."""

    since: date | None = None
    until: date | None = None

    def to_json(self) -> dict[str, str | None]:
        return {
            "since": None if self.since is None else self.since.isoformat(),
            "until": None if self.until is None else self.until.isoformat(),
        }


def _day(value: str | None, end: bool = False) -> date | None:
    """``YYYY-MM-DD``, or ``YYYY-MM`` (its first day; as ``until``, its last), or nothing."""
    if not value:
        return None
    text = value.strip()
    try:
        if len(text) == 7:
            first = date.fromisoformat(text + "-01")
            if not end:
                return first
            following = (first.replace(day=28) + timedelta(days=4)).replace(day=1)
            return following - timedelta(days=1)
        return date.fromisoformat(text)
    except ValueError:
        raise HandError(
            lazy_gettext(
                "dates are written YYYY-MM-DD or YYYY-MM, not %(value)s",
                value=bounds.quote(text),
            )
        ) from None


def period_of(since: str | None, until: str | None) -> Period:
    return Period(_day(since), _day(until, end=True))


def _game_filter(game: str | None) -> str | None:
    if game in (None, ""):
        return None
    if game not in GAME_MODULES:
        raise HandError(
            lazy_gettext(
                "unknown game %(game)s: use one of %(games)s",
                game=bounds.quote(game),
                games=", ".join(GAME_MODULES),
            )
        )
    return game


def _midnight(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _club_games(club_id: str, game: str | None, period: Period) -> Select[Any]:
    query = (
        select(Game.id)
        .join(ClubGame, ClubGame.game_id == Game.id)
        .where(ClubGame.club_id == club_id)
    )
    if game is not None:
        query = query.where(Game.game == game)
    if period.since is not None:
        query = query.where(Game.created_at >= _midnight(period.since))
    if period.until is not None:
        query = query.where(Game.created_at < _midnight(period.until + timedelta(days=1)))
    return query


@functools.lru_cache(maxsize=256)
def _match_end(game: str, options: str) -> tuple[int | None, int | None]:
    """(target, hands limit) of a game with these options (JSON text): the tally's end."""
    rules = make_rules(game, json.loads(options) or {})
    return rules.target, rules.hands_limit


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


LINE_FIELDS = (
    "hands",
    "hands_won",
    "points",
    "points_plus",
    "plus_hands",
    "points_minus",
    "minus_hands",
    "best_hand",
    "worst_hand",
    "caught",
    "caught_of",
)


def _lines_in_database(db: Session, chosen: Select[Any]) -> dict[str, dict[int, MatchLine]]:
    """match id -> seat -> ``MatchLine``, as kept with the matches (``club_seat_lines``,
    ``note_match``)."""
    columns = [getattr(ClubSeatLine, name) for name in LINE_FIELDS]
    rows = db.connection().execute(
        select(ClubSeatLine.game_id, ClubSeatLine.seat, *columns).where(
            ClubSeatLine.game_id.in_(chosen)
        )
    )
    lines: dict[str, dict[int, MatchLine]] = {}
    for game_id, seat, *figures in rows:
        lines.setdefault(game_id, {})[seat] = MatchLine(*figures)
    return lines


def _held(result: Any) -> dict[str, int] | None:
    """What each player still held at the end of a hand, as its result says: the gin games'
    deadwood, the rack games' rack values; None where it says neither."""
    if not isinstance(result, dict):
        return None
    return _as_points(result.get("deadwood")) or _as_points(result.get("rack_values"))


def note_match(db: Session, record: Game) -> None:
    """Add up a club match's stored hands again, per seat (``club_seat_lines``): called in the
    transaction that saves, edits or undoes one of them (``matches.add_hand``, ``edit_hand``,
    ``undo_last_hand``), so the figures kept are those of the hands as they are committed. A
    match of no club keeps none."""
    if db.get(ClubGame, record.id) is None:
        return
    names = matches.player_names(record)
    hands = []
    for hand in record.hands:
        result = hand.result if isinstance(hand.result, dict) else {}
        winner = result.get("winner")
        found = HandRecord(
            _as_points(hand.deltas) or {},
            winner if isinstance(winner, str) else None,
            _held(result),
        )
        hands.append(found)
    lines = match_lines(names, hands)
    db.execute(delete(ClubSeatLine).where(ClubSeatLine.game_id == record.id))
    db.add_all(
        ClubSeatLine(
            game_id=record.id,
            seat=seat,
            **{field: getattr(lines[name], field) for field in LINE_FIELDS},
        )
        for seat, name in enumerate(names)
    )
    db.flush()


def _as_points(value: Any) -> dict[str, int] | None:
    if not isinstance(value, dict):
        return None
    return {str(k): int(v) for k, v in value.items() if isinstance(v, int | float)}


def _lines_in_python(
    db: Session, chosen: Select[Any], players: dict[str, list[str]]
) -> dict[str, dict[int, MatchLine]]:
    """``_lines_in_database``'s answer from the stored hands themselves, read one by one
    (``scorer.records.match_lines``): the tests check the kept figures against it."""
    hands: dict[str, list[HandRecord]] = {}
    rows = db.execute(
        select(Hand.game_id, Hand.deltas, Hand.result)
        .where(Hand.game_id.in_(chosen))
        .order_by(Hand.game_id, Hand.number)
    )
    for game_id, deltas, result in rows:
        winner = result.get("winner") if isinstance(result, dict) else None
        found = HandRecord(_as_points(deltas) or {}, winner, _held(result))
        hands.setdefault(game_id, []).append(found)
    lines: dict[str, dict[int, MatchLine]] = {}
    for game_id, records in hands.items():
        names = players.get(game_id, [])
        by_name = match_lines(names, records)
        lines[game_id] = {seat: by_name[name] for seat, name in enumerate(names)}
    return lines


def club_matches(
    db: Session,
    club: Club,
    game: str | None = None,
    period: Period | None = None,
    *,
    in_python: bool = False,
) -> list[MatchRecord]:
    """The club's matches (of ``game``, started in ``period``), each player's hands added up
    (by the database from the figures kept with each hand, or ``in_python`` from the stored
    hands themselves), the players named as the club names them."""
    period = period or Period()
    chosen = select(_club_games(club.id, game, period).subquery().c.id)
    names = {player.id: player.name for player in club.players}
    connection = db.connection()  # plain rows: no ORM loading
    stored_options = cast(Game.options, String)  # as stored: the key of the rules' cache
    games = connection.execute(
        select(Game.id, Game.game, stored_options, Game.created_at).where(Game.id.in_(chosen))
    ).all()
    # the match's own names (as its hands name them), and the club's for them
    own: dict[str, list[str]] = {}
    seated: dict[str, list[str]] = {}
    for game_id, name, player_id in connection.execute(
        select(Player.game_id, Player.name, ClubSeat.club_player_id)
        .join(ClubSeat, (ClubSeat.game_id == Player.game_id) & (ClubSeat.seat == Player.seat))
        .where(Player.game_id.in_(chosen))
        .order_by(Player.game_id, Player.seat)
    ):
        own.setdefault(game_id, []).append(name)
        seated.setdefault(game_id, []).append(names.get(player_id, name))
    lines = _lines_in_python(db, chosen, own) if in_python else _lines_in_database(db, chosen)
    found = []
    for game_id, game_name, options, created_at in games:
        target, limit = _match_end(game_name, str(options or "{}"))
        seat_lines = lines.get(game_id, {})
        club_lines = {
            name: seat_lines.get(seat, MatchLine())
            for seat, name in enumerate(seated.get(game_id, []))
        }
        found.append(
            match_record(
                game_id,
                game_name,
                _aware(created_at),
                seated.get(game_id, []),
                club_lines,
                target,
                limit,
            )
        )
    return found


@dataclass(frozen=True)
class Figures:
    """A club's matches in a period and its players' records over them."""

    matches: list[MatchRecord]
    overall: dict[str, PlayerRecord]
    per_game: dict[str, dict[str, PlayerRecord]]


def club_figures(
    db: Session,
    club: Club,
    game: str | None = None,
    period: Period | None = None,
    series: bool = False,
) -> Figures:
    """The club's matches and records; ``series``: with the charts' series."""
    found = club_matches(db, club, game, period)
    everyone = [player.name for player in club.players]
    overall = player_records(found, everyone, series)
    return Figures(found, overall, records_by_game(found, everyone))


def club_stats(
    db: Session, club: Club, game: str | None = None, period: Period | None = None
) -> dict[str, Any]:
    """``GET /api/clubs/<id>/stats``: every player's figures, over all games (or ``game``) and
    per game (players who played it)."""
    period = period or Period()
    figures = club_figures(db, club, game, period)
    return {
        "club": club.id,
        "name": club.name,
        "game": game,
        **period.to_json(),
        "matches": sum(1 for m in figures.matches if m.hands),
        "players": {name: record.to_json() for name, record in figures.overall.items()},
        "games": {
            name: {
                "title": game_title(name),
                "players": {player: r.to_json() for player, r in leaderboard(records)},
            }
            for name, records in figures.per_game.items()
        },
    }


def club_json(db: Session, club: Club) -> dict[str, Any]:
    """``GET /api/clubs/<id>``: the club, its players and its matches (newest first)."""
    return {
        "id": club.id,
        "name": club.name,
        "created_at": _aware(club.created_at).isoformat(),
        "players": [player.name for player in club.players],
        "matches": [_match_summary(m) for m in _newest(club_matches(db, club))],
    }


def _newest(found: Iterable[MatchRecord]) -> list[MatchRecord]:
    return sorted(found, key=lambda m: m.played_at, reverse=True)


def _match_summary(match: MatchRecord) -> dict[str, Any]:
    return {
        "id": match.match_id,
        "game": match.game,
        "players": list(match.players),
        "played_at": match.played_at.isoformat(),
        "hands": match.hands,
        "finished": match.finished,
        "winner": match.winner,
    }


def export_csv(per_game: dict[str, dict[str, PlayerRecord]]) -> str:
    """The stats table, one row per game and player (best first), formula-safe as a match's
    export (``matches.csv_text``); the header in the asked language, cells machine-readable."""
    out = io.StringIO()
    writer = csv.writer(out)
    header = [gettext("game"), gettext("player"), *COLUMNS]
    writer.writerow([matches.csv_text(cell) for cell in header])
    for game, records in per_game.items():
        for name, record in leaderboard(records):
            figures = record.to_json()
            row: list[Any] = [matches.csv_text(game), matches.csv_text(name)]
            row += ["" if figures[column] is None else figures[column] for column in COLUMNS]
            writer.writerow(row)
    return out.getvalue()


# ---- charts (inline SVG, drawn here as the match chart is in ``webapp.pages``) -------------

CHART_W = 320
CHART_H = 130
CHART_LEFT = 44
CHART_RIGHT = 10
CHART_TOP = 12
CHART_BOTTOM = 26
MONTHS_SHOWN = 12


def _scale(low: float, high: float) -> tuple[float, float]:
    low, high = min(low, 0.0), max(high, 0.0)
    if high == low:
        high = low + 1
    return low, high


def average_chart(record: PlayerRecord) -> dict[str, Any] | None:
    """The running average points per hand after each match: a polyline in a small viewBox."""
    series = [average for _at, _id, average in record.running_average]
    if not series:
        return None
    low, high = _scale(min(series), max(series))
    inner_w = CHART_W - CHART_LEFT - CHART_RIGHT
    inner_h = CHART_H - CHART_TOP - CHART_BOTTOM
    steps = max(len(series) - 1, 1)

    def x(i: int) -> float:
        return round(CHART_LEFT + inner_w * (i / steps if len(series) > 1 else 0.5), 1)

    def y(v: float) -> float:
        return round(CHART_TOP + inner_h * (high - v) / (high - low), 1)

    points = [(x(i), y(v)) for i, v in enumerate(series)]
    return {
        "width": CHART_W,
        "height": CHART_H,
        "points": " ".join(f"{px},{py}" for px, py in points),
        "dots": points if len(points) <= 40 else [],
        "last": points[-1],
        "zero": y(0),
        "left": CHART_LEFT,
        "right": CHART_W - CHART_RIGHT,
        "high": _number(high),
        "low": _number(low),
        "top": y(high),
        "bottom": y(low),
        "axis_y": CHART_H - 8,
        "count": len(series),
        "values": [_number(v) for v in series],
        "final": _number(series[-1]),
    }


def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))


def _months(first: str, last: str) -> list[str]:
    year, month = int(first[:4]), int(first[5:7])
    end = (int(last[:4]), int(last[5:7]))
    found = []
    while (year, month) <= end:
        found.append(f"{year:04d}-{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return found


def wins_chart(record: PlayerRecord, months: Sequence[str]) -> dict[str, Any] | None:
    """Matches won per month (the club's months with matches, the last ``MONTHS_SHOWN``): bars."""
    if not months:
        return None
    shown = list(months)[-MONTHS_SHOWN:]
    counts = [record.wins_by_month.get(month, 0) for month in shown]
    most = max(max(counts), 1)
    inner_w = CHART_W - CHART_LEFT - CHART_RIGHT
    inner_h = CHART_H - CHART_TOP - CHART_BOTTOM
    slot = inner_w / len(shown)
    bar = min(slot * 0.7, 28.0)
    bottom = CHART_H - CHART_BOTTOM
    bars = []
    for i, (month, count) in enumerate(zip(shown, counts, strict=True)):
        height = round(inner_h * count / most, 1)
        centre = CHART_LEFT + slot * (i + 0.5)
        bars.append(
            {
                "month": month,
                "label": month[5:7],
                "count": count,
                "x": round(centre - bar / 2, 1),
                "centre": round(centre, 1),
                "y": round(bottom - height, 1),
                "width": round(bar, 1),
                "height": height,
            }
        )
    return {
        "width": CHART_W,
        "height": CHART_H,
        "bars": bars,
        "left": CHART_LEFT,
        "right": CHART_W - CHART_RIGHT,
        "bottom": bottom,
        "top": CHART_TOP,
        "most": most,
        "axis_y": CHART_H - 8,
        "first": shown[0],
        "last": shown[-1],
    }


def club_months(found: Iterable[MatchRecord]) -> list[str]:
    """Every month from the club's first match to its last (those with hands)."""
    played = sorted(m.played_at.strftime("%Y-%m") for m in found if m.hands)
    return _months(played[0], played[-1]) if played else []


# ---- edit rights in this browser ---------------------------------------------------------------


def _edit_tokens() -> dict[str, str]:
    """The clubs' edit tokens this browser holds, sealed in the session cookie as the games'
    are (``webapp.sealing``: the cookie is signed, not encrypted)."""
    tokens, _plain = sealing.sealed_tokens(session.get(SESSION_KEY), SESSION_KEY)
    return tokens


def can_edit(club: Club) -> bool:
    return token_matches(club, _edit_tokens().get(club.id))


def _remember_edit(club_id: str, token: str) -> None:
    tokens = _edit_tokens()
    tokens[club_id] = token
    session[SESSION_KEY] = sealing.sealing(tokens, SESSION_KEY)
    session.permanent = True


def may_edit(club: Club) -> bool:
    """The club's token in the ``X-Club-Token`` header, or its edit link opened here."""
    return token_matches(club, request.headers.get(TOKEN_HEADER)) or can_edit(club)


def require_edit(club: Club) -> None:
    if not may_edit(club):
        raise Forbidden(lazy_gettext("this needs the club's edit link (X-Club-Token header)"))


# ---- errors ------------------------------------------------------------------------------------


def _is_api() -> bool:
    return request.path.startswith("/api/")


def _error(message: Any, status: int) -> tuple[Any, int]:
    if _is_api():
        return jsonify(error_json(message, bounds.clip)), status
    page = render_template("error.html", message=bounds.clip(localise(message)), code=status)
    return page, status


@bp.errorhandler(matches.NotFound)
def _no_game(error: matches.NotFound) -> tuple[Any, int]:
    return _error(error, 404)


@bp.errorhandler(MeldcamError)
def _bad_input(error: MeldcamError) -> tuple[Any, int]:
    return _error(error, 400)


def _api_error(error: Any) -> tuple[Any, int]:
    return jsonify(error_json(error.message, bounds.clip)), int(error.status)


@bp.record_once
def _handle_api_errors(state: Any) -> None:
    from webapp.api import ApiError  # the JSON body checks raise it

    state.app.register_error_handler(ApiError, _api_error)


@bp.before_request
def _check_csrf() -> None:
    if request.method == "POST" and not _is_api():
        from webapp.pages import check_csrf

        check_csrf()


def _no_store(response: Any) -> Response:
    response = make_response(response)
    response.headers["Cache-Control"] = "no-store"
    return response


# ---- the JSON API ------------------------------------------------------------------------------


def _links(club_id: str, token: str | None) -> dict[str, str]:
    links = {"read": url_for("clubs.club", club_id=club_id, _external=True)}
    if token:
        links["edit"] = url_for("clubs.claim", club_id=club_id, token=token, _external=True)
    return links


def _sent() -> str:
    from flask import g

    return idempotency.fingerprint(
        getattr(g, "raw_body", b""), request.headers.get(TOKEN_HEADER, "")
    )


@bp.post("/api/clubs")
def api_create_club() -> tuple[Response, int]:
    from webapp.api import answer_response, json_object

    body = json_object()
    key = idempotency.header_key()
    tokens: list[str] = []

    def work(db: Session, stored_key: str | None) -> Answer:
        created = create_club(
            db,
            body.get("name"),
            body.get("players"),
            edit_token=idempotency.derived_token(stored_key) if stored_key else None,
        )
        tokens.append(created.edit_token)
        db.flush()
        return Answer(201, club_json(db, get_club(db, created.club_id)))

    answer = idempotency.run(key, _sent(), work)
    token = idempotency.created_token(tokens, key)
    result = dict(answer.body or {})
    result["edit_token"] = token
    result["links"] = _links(result["id"], token)
    return answer_response(answer, result)


@bp.get("/api/clubs/<club_id>")
def api_club(club_id: str) -> Response:
    with reading() as db:
        club = get_club(db, club_id)
        result = club_json(db, club)
    result["links"] = _links(club_id, None)
    return jsonify(result)


@bp.post("/api/clubs/<club_id>/players")
def api_add_player(club_id: str) -> tuple[Response, int]:
    from webapp.api import answer_response, json_object

    body = json_object()

    def work(db: Session, _stored_key: str | None) -> Answer:
        club = get_club(db, club_id)
        require_edit(club)
        player = add_player(db, club, body.get("name"))
        return Answer(201, {"name": player.name, "players": [p.name for p in club.players]})

    return answer_response(idempotency.run(idempotency.header_key(), _sent(), work))


def _asked() -> tuple[str | None, Period]:
    game = _game_filter(request.args.get("game"))
    return game, period_of(request.args.get("since"), request.args.get("until"))


@bp.get("/api/clubs/<club_id>/stats")
def api_stats(club_id: str) -> Response:
    with reading() as db:
        return jsonify(club_stats(db, get_club(db, club_id), *_asked()))


@bp.get("/api/clubs/<club_id>/stats.csv")
def api_stats_csv(club_id: str) -> Response:
    with reading() as db:
        text = export_csv(club_figures(db, get_club(db, club_id), *_asked()).per_game)
    return Response(
        text,
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="meldcam-club-{club_id}.csv"'},
    )


# ---- pages -------------------------------------------------------------------------------------


def _my_clubs(db: Session) -> list[Club]:
    found = []
    for club_id in reversed(list(_edit_tokens())):
        club = db.get(Club, club_id)
        if club is not None and can_edit(club):
            found.append(club)
    return found


@bp.get("/clubs")
def new_club() -> Response:
    with reading() as db:
        mine = [{"id": c.id, "name": c.name} for c in _my_clubs(db)]
    return _no_store(render_template("clubs.html", error=None, form={}, mine=mine))


def _posted_names(field: str) -> list[str]:
    text = request.form.get(field, "")
    return [line for line in text.splitlines() if line.strip()]


@bp.post("/clubs")
def create_club_page() -> Any:
    tokens: list[str] = []

    def work(db: Session, stored_key: str | None) -> Answer:
        created = create_club(
            db,
            request.form.get("name", ""),
            _posted_names("players"),
            edit_token=idempotency.derived_token(stored_key) if stored_key else None,
        )
        tokens.append(created.edit_token)
        return Answer(
            302, {"club_id": created.club_id}, url_for("clubs.club", club_id=created.club_id)
        )

    key = idempotency.form_key()
    try:
        answer = idempotency.run(key, idempotency.form_fingerprint(), work)
    except MeldcamError as error:
        page = render_template(
            "clubs.html", error=bounds.clip(localise(error)), form=request.form, mine=[]
        )
        return _no_store((page, 400))
    club_id = str((answer.body or {})["club_id"])
    token = idempotency.created_token(tokens, key)
    _remember_edit(club_id, token)
    return _no_store(redirect(str(answer.location)))


@bp.get("/c/<club_id>/edit/<token>")
def claim(club_id: str, token: str) -> Response:
    with reading() as db:
        club = get_club(db, club_id)
        if not token_matches(club, token):
            raise Forbidden(lazy_gettext("this edit link is not right: ask for it again"))
    _remember_edit(club_id, token)
    return _no_store(redirect(url_for("clubs.club", club_id=club_id)))


def _periods() -> list[dict[str, Any]]:
    """The page's choices of period: all time, this month, this year."""
    today = datetime.now(UTC).date()
    return [
        {"key": "", "label": lazy_gettext("All time")},
        {"key": today.strftime("%Y-%m") + "-01", "label": lazy_gettext("This month")},
        {"key": f"{today.year:04d}-01-01", "label": lazy_gettext("This year")},
    ]


def _club_page(club_id: str, error: str | None = None, status: int = 200) -> Response:
    since = request.args.get("since") or None
    with reading() as db:
        club = get_club(db, club_id)
        editable = can_edit(club)
        token = _edit_tokens().get(club_id) if editable else None
        period = period_of(since, request.args.get("until"))
        figures = club_figures(db, club, None, period, series=True)
        found, overall, per_game = figures.matches, figures.overall, figures.per_game
        everyone = [player.name for player in club.players]
        months = club_months(found)
        boards = [
            {
                "game": game,
                "title": localised_title(game),
                "rows": leaderboard(records),
            }
            for game, records in per_game.items()
        ]
        players = [
            {
                "name": name,
                "record": overall[name],
                "average": average_chart(overall[name]),
                "wins": wins_chart(overall[name], months),
            }
            for name in everyone
        ]
        recent = [
            {**_match_summary(m), "title": localised_title(m.game)}
            for m in _newest(found)[:RECENT_MATCHES]
        ]
        page = render_template(
            "club.html",
            club=club,
            editable=editable,
            links=_links(club_id, token),
            boards=boards,
            players=players,
            recent=recent,
            played=sum(1 for m in found if m.hands),
            since=since,
            periods=_periods(),
            games=[{"game": g, "title": localised_title(g)} for g in GAME_MODULES],
            error=error,
            form=request.form if error else {},
        )
    response = _no_store((page, status)) if editable else make_response(page, status)
    return response


@bp.get("/c/<club_id>")
def club(club_id: str) -> Response:
    return _club_page(club_id)


@bp.post("/c/<club_id>/players")
def add_player_page(club_id: str) -> Any:
    def work(db: Session, _stored_key: str | None) -> Answer:
        club = get_club(db, club_id)
        require_edit(club)
        add_player(db, club, request.form.get("name", ""))
        return Answer(302, None, url_for("clubs.club", club_id=club_id) + "#players")

    try:
        answer = idempotency.run(idempotency.form_key(), idempotency.form_fingerprint(), work)
    except MeldcamError as error:
        return _club_page(club_id, bounds.clip(localise(error)), 400)
    return redirect(str(answer.location))


@bp.post("/c/<club_id>/games")
def start_match_page(club_id: str) -> Any:
    """Start a match of the club from the page: the players ticked (in the club's order), then
    the new names typed; this browser gets the match's edit rights, as with a new game."""
    from webapp.pages import _remember_edit as remember_game

    game = request.form.get("game", "")
    tokens: list[str] = []

    def work(db: Session, stored_key: str | None) -> Answer:
        club = get_club(db, club_id)
        require_edit(club)
        ticked = set(request.form.getlist("player"))
        names = [p.name for p in club.players if str(p.id) in ticked]
        names += [request.form.get(f"new-{i}", "") for i in range(2)]
        if game not in GAME_MODULES:
            raise HandError(lazy_gettext("choose one of the games"))
        created = start_match(
            db,
            club,
            game,
            {},
            names,
            edit_token=idempotency.derived_token(stored_key) if stored_key else None,
        )
        tokens.append(created.edit_token)
        location = url_for("pages.game", game_id=created.game_id)
        return Answer(302, {"game_id": created.game_id}, location)

    key = idempotency.form_key()
    try:
        answer = idempotency.run(key, idempotency.form_fingerprint(), work)
    except MeldcamError as error:
        return _club_page(club_id, bounds.clip(localise(error)), 400)
    game_id = str((answer.body or {})["game_id"])
    token = idempotency.created_token(tokens, key)
    remember_game(game_id, token)
    if not answer.replayed:
        session["new_game"] = game_id
    return _no_store(redirect(str(answer.location)))
