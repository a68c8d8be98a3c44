"""Matches as the web app keeps them: create a game, add / undo / edit hands, tally, export.

The rules live in ``scorer``; this module only stores what the scorer answers. Each write runs in
one database transaction and is checked in full (scored, then tallied with every other hand)
before the commit, so a hand that cannot happen, or comes after the match has ended, saves nothing.

Each game's facts (players, hand style, pieces...) are its descriptor's, ``scorer.games.game_type``.

Choices the rule texts leave open (see docs/choices/webapp.md):
- Players: as many as the game takes (2-4; Domino Gin: exactly 2), names 1-40 characters,
  distinct ignoring case, with something visible in them and at most 4 marks on a letter.
- Who deals next: the deal passes left each hand (seat order); in games whose winner opens the
  next hand (Domino Gin, RULES.md) the winner of the last hand, the first player before any hand.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import secrets
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete
from sqlalchemy.orm import Session, object_session

from meldcam.vocabulary import RECOGNISER_KINDS
from scorer import api as scorer_api
from scorer.errors import HandError, MeldcamError, OptionError
from scorer.game import Rules
from scorer.games import GAME_MODULES, describe_games, game_title, game_type, make_rules
from scorer.pieces import piece_order
from scorer.tally import MatchState, tally
from webapp import events
from webapp.bounds import quote
from webapp.db import Game, Hand, Player, SeatRack
from webapp.i18n import gettext, lazy_gettext

MAX_NAME_LENGTH = 40
MAX_WORD = 32  # a game's, an option's or an option value's name: longer is none of them
MAX_SEATS = 16  # names sent for one game, blanks included: no game has more than 4 players


class NotFound(LookupError):
    """No game (or hand) with that id: a 404 for the web layer."""


def _unknown_game(game: Any) -> Any:
    return lazy_gettext(
        "unknown game %(game)s: use one of %(games)s",
        game=quote(game),
        games=", ".join(GAME_MODULES),
    )


def load_rules(game: Any, options: Mapping[str, Any] | None) -> Rules:
    """``make_rules`` with player-facing errors for every bad input."""
    if not isinstance(game, str):
        raise OptionError(lazy_gettext("choose a game: give its name as text"))
    if options is not None and not isinstance(options, Mapping):
        raise OptionError(lazy_gettext("options must be a JSON object of name: value"))
    if len(game) > MAX_WORD:
        raise OptionError(_unknown_game(game))
    for name, value in (options or {}).items():
        if len(str(name)) > MAX_WORD or (isinstance(value, str) and len(value) > MAX_WORD):
            raise OptionError(
                lazy_gettext(
                    "no option %(name)s takes %(value)s", name=quote(name), value=quote(value)
                )
            )
    return make_rules(game, options)


def hand_style(game: str) -> str:
    """``knock`` (gin games: every player's hand as laid down) or ``racks`` (losers' racks)."""
    return game_type(game).hand_style


def recogniser_kind(rules: Rules) -> str:
    """Which recogniser reads this game's pieces: tiles, dominoes or cards."""
    return RECOGNISER_KINDS[game_type(rules.game).piece_kind]


def piece_names(rules: Rules) -> list[str]:
    """Every piece of the game's set once, in picker order (``scorer.pieces.piece_order``)."""
    return [piece.name for piece in sorted(rules.universe, key=piece_order)]


def catalogue() -> list[dict[str, Any]]:
    """Every registered game, described for the pickers (``scorer.games.describe_game``)."""
    return describe_games(pickers=True)


# Control (Cc), invisible format (Cf: zero-width space and joiners, bidi overrides, soft hyphen),
# surrogate (Cs), private-use (Co), unassigned (Cn) and line/paragraph separators (Zl, Zp).
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Characters drawn as nothing though their category says letter or symbol (the Hangul fillers,
# the blank braille pattern), with the zero-width ones (Cf, refused above already): a name
# holding one looks like the name without it, and a name of them looks blank.
INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800\u200b\u200c\u200d\u2060\ufeff")
# Combining marks on one character: real names need at most 3 (Vietnamese, a Tibetan stack, a
# Hebrew letter with its points); dozens stack "Zalgo" text over the names around it.
MAX_MARKS = 4


def _visible(character: str) -> bool:
    """A base character that draws something: not a space, control, format or mark (Z*, C*,
    M*) and not one of the ``INVISIBLE`` fillers."""
    return unicodedata.category(character)[0] not in "ZCM" and character not in INVISIBLE


def _most_marks(name: str) -> int:
    """The most combining marks (M*) in a row: those on one character."""
    most = run = 0
    for character in name:
        run = run + 1 if unicodedata.category(character)[0] == "M" else 0
        most = max(most, run)
    return most


def clean_name(name: str) -> str:
    """A player's name in NFC (one encoding per letter), trimmed, or a HandError saying which
    character is refused: control and invisible characters make look-alike names, a name of
    none but marks looks blank, and marks stacked by the dozen run over the names around it."""
    name = unicodedata.normalize("NFC", name).strip()
    for character in name:
        if unicodedata.category(character) in REFUSED_CATEGORIES or character in INVISIBLE:
            code = f"U+{ord(character):04X}"
            label = unicodedata.name(character, "a control character").lower()
            raise HandError(
                lazy_gettext(
                    "a player's name holds an invisible or control character (%(code)s, "
                    "%(label)s): type the name again with letters, digits and spaces",
                    code=code,
                    label=label,
                )
            )
    if name and not any(_visible(character) for character in name):
        raise HandError(
            lazy_gettext(
                "a player's name has no letter, digit or sign that can be seen: type the name "
                "again with letters, digits and spaces"
            )
        )
    marks = _most_marks(name)
    if marks > MAX_MARKS:
        raise HandError(
            lazy_gettext(
                "a player's name has %(count)s marks on one character (at most %(most)s): type "
                "the name again with letters, digits and spaces",
                count=marks,
                most=MAX_MARKS,
            )
        )
    return name


def name_key(name: str) -> str:
    """What two names must differ in: compatibility forms and case folded (Ana = ＡＮＡ = ana)."""
    return unicodedata.normalize("NFKC", name).casefold()


def clean_players(game: str, players: Any) -> list[str]:
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise HandError(lazy_gettext("players must be a list of names"))
    low, high = game_type(game).players
    if len(players) > MAX_SEATS:  # refused before any name is looked at
        raise HandError(
            lazy_gettext(
                "at most %(most)s players: %(sent)s names were sent", most=high, sent=len(players)
            )
        )
    for name in players:
        if len(name) > MAX_NAME_LENGTH:
            raise HandError(
                lazy_gettext(
                    "names are at most %(most)s characters: %(start)s...",
                    most=MAX_NAME_LENGTH,
                    start=name[:20],
                )
            )
    names = [clean_name(p) for p in players]
    names = [name for name in names if name]
    if not low <= len(names) <= high:
        title = lazy_gettext(game_title(game))  # the game's name in the message's language
        if low == high:
            wanted = lazy_gettext(
                "%(title)s is played by exactly %(low)s players, not %(count)s",
                title=title,
                low=low,
                count=len(names),
            )
        else:
            wanted = lazy_gettext(
                "%(title)s is played by %(low)s to %(high)s players, not %(count)s",
                title=title,
                low=low,
                high=high,
                count=len(names),
            )
        raise HandError(wanted)
    seen = Counter(name_key(name) for name in names)
    twice = [name for name in names if seen[name_key(name)] > 1]
    if twice:
        raise HandError(
            lazy_gettext(
                "two players are called %(name)s: give them different names", name=twice[0]
            )
        )
    return names


def _hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(game: Game, token: str | None) -> bool:
    return bool(token) and hmac.compare_digest(game.edit_token_hash, _hash_token(str(token)))


@dataclass(frozen=True)
class CreatedGame:
    game_id: str
    edit_token: str


def create_game(
    session: Session, game: Any, options: Any, players: Any, edit_token: str | None = None
) -> CreatedGame:
    """Check everything, then add the game; the edit token is returned once and stored hashed
    (``edit_token`` is given only for a write under an Idempotency-Key, made from that key)."""
    if not isinstance(game, str) or game not in GAME_MODULES:
        raise OptionError(_unknown_game(game))
    names = clean_players(game, players)
    rules = load_rules(game, options)
    game_id = secrets.token_urlsafe(12)
    edit_token = edit_token or secrets.token_urlsafe(24)
    record = Game(
        id=game_id,
        game=rules.game,
        options=dict(options or {}),
        edit_token_hash=_hash_token(edit_token),
    )
    record.players = [Player(seat=seat, name=name) for seat, name in enumerate(names)]
    session.add(record)
    return CreatedGame(game_id, edit_token)


def get_game(session: Session, game_id: str, *, for_update: bool = False) -> Game:
    """The game, or NotFound. ``for_update`` (every write to a game) locks its row until the
    transaction ends: two nodes saving hands to one game at once take turns (each hand gets its
    own number) instead of one of them failing on the hand number. PostgreSQL locks the row;
    SQLite ignores ``FOR UPDATE``, but there every ``transaction()`` already holds the
    database's write lock from its start (``BEGIN IMMEDIATE``, ``webapp.db``)."""
    valid = isinstance(game_id, str) and len(game_id) <= 32
    record = session.get(Game, game_id, with_for_update=for_update or None) if valid else None
    if record is None:
        raise NotFound(lazy_gettext("no game with this link: check the address"))
    return record


def player_names(record: Game) -> list[str]:
    return [player.name for player in record.players]


def rules_of(record: Game) -> Rules:
    return load_rules(record.game, record.options)


def _normalise_hand(record: Game, hand: Any) -> dict[str, Any]:
    """The hand as the scorer takes it; ``players`` defaults to the game's players."""
    if not isinstance(hand, Mapping):
        raise HandError(lazy_gettext("a hand must be a JSON object"))
    normalised = dict(hand)
    names = player_names(record)
    given = normalised.setdefault("players", names)
    if given != names:
        raise HandError(
            lazy_gettext(
                "this game's players are %(names)s: the hand names others", names=", ".join(names)
            )
        )
    return normalised


def _deltas(result: Mapping[str, Any], names: Sequence[str]) -> dict[str, int]:
    raw = result.get("deltas") or {}
    return {name: int(raw.get(name, 0)) for name in names}


def _tally_with(record: Game, deltas: Sequence[Mapping[str, int]]) -> MatchState:
    rules = rules_of(record)
    return tally(player_names(record), deltas, rules.target, rules.hands_limit)


def score_for(record: Game, hand: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the hand as stored, the scorer's answer) or a MeldcamError."""
    normalised = _normalise_hand(record, hand)
    return normalised, score_hand(record.game, record.options, normalised)


def score_hand(game: str, options: Any, hand: Any) -> dict[str, Any]:
    """``scorer.api.score``; a hand in the wrong shape that slips past the game's own checks
    (a rack given as a number...) is a HandError for the player, never a crash."""
    try:
        return scorer_api.score(game, options, hand)
    except MeldcamError:
        raise
    except (TypeError, KeyError, AttributeError, IndexError) as error:
        raise HandError(
            lazy_gettext(
                "the hand is not in the shape this game expects (%(error)s)", error=str(error)
            )
        ) from error


def _note_club_match(session: Session, record: Game) -> None:
    """A club match's hands added up again for its club (``webapp.clubs.note_match``)."""
    from webapp import clubs  # clubs builds on this module

    clubs.note_match(session, record)


def add_hand(session: Session, record: Game, hand: Any) -> Hand:
    normalised, result = score_for(record, hand)
    deltas = _deltas(result, player_names(record))
    _tally_with(record, [h.deltas for h in record.hands] + [deltas])  # after the end -> HandError
    number = len(record.hands) + 1
    saved = Hand(number=number, hand=normalised, result=result, deltas=deltas)
    record.hands.append(saved)
    session.flush()
    _note_club_match(session, record)
    # the racks the players' phones sent for this hand are in it now
    session.execute(
        delete(SeatRack).where(SeatRack.game_id == record.id, SeatRack.hand_number == number)
    )
    events.record(session, record.id, "hand-added", hand=number)
    return saved


def edit_hand(session: Session, record: Game, number: int, hand: Any) -> Hand:
    existing = find_hand(record, number)
    normalised, result = score_for(record, hand)
    deltas = _deltas(result, player_names(record))
    all_deltas = [deltas if h.number == number else h.deltas for h in record.hands]
    _tally_with(record, all_deltas)
    existing.hand = normalised
    existing.result = result
    existing.deltas = deltas
    existing.updated_at = datetime.now(UTC)
    session.flush()
    _note_club_match(session, record)
    events.record(session, record.id, "hand-edited", hand=number)
    return existing


def undo_last_hand(session: Session, record: Game) -> int:
    if not record.hands:
        raise HandError(lazy_gettext("there is no hand to undo"))
    last = record.hands[-1]
    record.hands.remove(last)
    session.delete(last)
    session.flush()
    _note_club_match(session, record)
    events.record(session, record.id, "hand-undone", hand=last.number)
    return last.number


def find_hand(record: Game, number: Any) -> Hand:
    for hand in record.hands:
        if hand.number == number:
            return hand
    raise NotFound(lazy_gettext("this game has no hand %(number)s", number=number))


def next_dealer(record: Game) -> str:
    return dealer_of(record, len(record.hands))


def dealer_of(record: Game, index: int) -> str:
    """Who deals (Domino Gin: opens) hand ``index + 1``: the deal passes left each hand; in
    Domino Gin the winner of the hand before opens."""
    names = player_names(record)
    if game_type(record.game).winner_opens and 0 < index <= len(record.hands):
        winner = record.hands[index - 1].result.get("winner")
        if winner in names:
            return str(winner)
    return names[index % len(names)]


def game_json(record: Game) -> dict[str, Any]:
    """The game with its hands and tally (``GET /api/games/<id>``)."""
    rules = rules_of(record)
    state = tally(
        player_names(record), [h.deltas for h in record.hands], rules.target, rules.hands_limit
    )
    return {
        "id": record.id,
        "game": record.game,
        "title": game_title(record.game),
        "options": dict(record.options),
        "players": player_names(record),
        "target": rules.target,
        "hands_limit": rules.hands_limit,
        "hands": [
            {
                "number": h.number,
                "hand": h.hand,
                "result": h.result,
                "deltas": h.deltas,
                "dealer": dealer_of(record, index),
                "created_at": h.created_at.isoformat(),
                "updated_at": None if h.updated_at is None else h.updated_at.isoformat(),
            }
            for index, h in enumerate(record.hands)
        ],
        "tally": state.to_json(),
        "next_dealer": None if state.finished else next_dealer(record),
        "version": _version(record),
    }


def _version(record: Game) -> int:
    """The game's version: its event stream (``webapp.events``) continues from it."""
    session = object_session(record)
    return events.latest_version(session, record.id) if session is not None else 0


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_text(value: str) -> str:
    """A text cell a spreadsheet will not run as a formula (OWASP: CSV injection): one that
    starts with = + - @ or a tab / carriage return gets a leading apostrophe, which the
    spreadsheet shows as the text itself. Numbers (the points) are written as numbers."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def export_csv(record: Game) -> str:
    """Hands x players: each hand's points and the running totals, one row per hand."""
    names = player_names(record)
    state = tally(names, [h.deltas for h in record.hands])
    out = io.StringIO()
    writer = csv.writer(out)
    # the header in the asked language; the cells stay machine-readable (codes, numbers)
    header = [gettext("hand"), gettext("outcome"), gettext("winner"), *names]
    header += [gettext("%(name)s total", name=n) for n in names]
    writer.writerow([csv_text(cell) for cell in header])
    for hand, running in zip(record.hands, state.running, strict=True):
        outcome = str(hand.result.get("outcome", ""))
        winner = str(hand.result.get("winner") or "")
        writer.writerow(
            [hand.number, csv_text(outcome), csv_text(winner)]
            + [hand.deltas.get(n, 0) for n in names]
            + [running[n] for n in names]
        )
    return out.getvalue()
