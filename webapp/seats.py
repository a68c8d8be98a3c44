"""Seats: every player's own phone at the table.

The host (the browser holding the edit link) shows a QR code per seat; scanning it opens the
seat link ``/g/<id>/join/<token>`` on that player's phone, which then may send that seat's rack
for the hand being scored, and nothing else: not another seat's, not save, edit or undo a hand,
not see the edit link.

A seat's token is an HMAC of the game, the seat and the seat's generation with the app's secret
(128 bits, ``SEAT_TOKEN_BYTES``): never stored, so the host's page can show it again at any
time, and the same on every node (they share the secret). Revoking a seat raises its
generation: the old link, and every phone that joined with it, is refused at once (each
request checks the token against the generation in the database), and a new link is shown.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import UTC, datetime
from typing import Any

import segno
from flask import current_app, session, url_for
from markupsafe import Markup
from sqlalchemy import select
from sqlalchemy.orm import Session, object_session

from scorer.errors import HandError
from scorer.tally import tally
from webapp import boards, bounds, events, matches, sealing
from webapp.db import Game, Photo, Seat, SeatRack
from webapp.i18n import gettext, lazy_gettext

SEAT_TOKEN_BYTES = 16  # 128 bits: unguessable (the issue asks >= 96)
MAX_TOKEN = 64  # characters: a longer "token" is none of ours, refused before any HMAC


WRONG_LINK = lazy_gettext(
    "this seat link is not right, or the host gave the seat a new one: "
    "scan the code on the host's phone again"
)


class SeatRefused(PermissionError):
    """A 403: a seat link that is wrong, revoked, or asks for what a seat may not do."""


class StaleHand(ValueError):
    """A 409: the rack names a hand that is not the one being scored."""


def seat_token(game_id: str, seat: int, generation: int) -> str:
    secret = str(current_app.config["SECRET_KEY"]).encode()
    message = f"seat\0{game_id}\0{seat}\0{generation}".encode()
    mac = hmac.new(secret, message, hashlib.sha256).digest()[:SEAT_TOKEN_BYTES]
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def seat_rows(db: Session, record: Game) -> dict[int, Seat]:
    rows = db.scalars(select(Seat).where(Seat.game_id == record.id))
    return {row.seat: row for row in rows}


def token_of(record: Game, rows: dict[int, Seat], seat: int) -> str:
    row = rows.get(seat)
    return seat_token(record.id, seat, row.generation if row else 0)


def seat_of(db: Session, record: Game, token: Any) -> int | None:
    """The seat whose current link holds ``token``, or None (wrong, or revoked)."""
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN:
        return None
    rows = seat_rows(db, record)
    found = None
    for player in record.players:  # every seat compared, in constant time each
        if hmac.compare_digest(token_of(record, rows, player.seat), token):
            found = player.seat
    return found


def join_link(record: Game, rows: dict[int, Seat], seat: int) -> str:
    token = token_of(record, rows, seat)
    return url_for("live.join", game_id=record.id, token=token, _external=True)


def _session_seats() -> dict[str, str]:
    """The seat tokens this browser holds, by game: sealed in the session cookie, which is
    signed but readable (``webapp.sealing``)."""
    held, plain = sealing.sealed_tokens(session.get("seats"), "seat")
    if plain:  # kept before tokens were sealed: sealed now
        session["seats"] = sealing.sealing(held, "seat")
    return held


def remember_seat(game_id: str, token: str) -> None:
    held = _session_seats()
    held[game_id] = token
    session["seats"] = sealing.sealing(held, "seat")
    session.permanent = True


def session_token(game_id: str) -> str | None:
    return _session_seats().get(game_id)


def session_seat(db: Session, record: Game) -> int | None:
    """The seat this browser joined, while its link still holds."""
    return seat_of(db, record, session_token(record.id))


def join(db: Session, record: Game, seat: int) -> None:
    """Mark the seat joined (the host's page says so); logged once per link."""
    row = seat_rows(db, record).get(seat)
    if row is not None and row.joined_at is not None:
        return  # the same phone again, or a second one: nothing to write
    events.lock_game(db, record.id)
    row = seat_rows(db, record).get(seat)
    if row is None:
        row = Seat(game_id=record.id, seat=seat, generation=0)
        db.add(row)
    if row.joined_at is None:
        row.joined_at = datetime.now(UTC)
        db.flush()
        events.record(db, record.id, "seat-joined", seat=seat)


def revoke(db: Session, record: Game, seat: int) -> None:
    """A new link for ``seat``; the old one, and the phone that joined with it, are refused."""
    if seat not in {player.seat for player in record.players}:
        raise matches.NotFound(lazy_gettext("this game has no seat %(seat)s", seat=seat))
    events.lock_game(db, record.id)
    row = seat_rows(db, record).get(seat)
    if row is None:
        row = Seat(game_id=record.id, seat=seat, generation=0)
        db.add(row)
    row.generation += 1
    row.joined_at = None
    db.flush()
    events.record(db, record.id, "seat-revoked", seat=seat)


def current_hand(record: Game) -> int:
    """The number of the hand being played (and scored at its end)."""
    return len(record.hands) + 1


def _finished(record: Game) -> bool:
    rules = matches.rules_of(record)
    state = tally(
        matches.player_names(record), [h.deltas for h in record.hands], rules.target,
        rules.hands_limit,
    )  # fmt: skip
    return bool(state.finished)


def _claim_photos(db: Session, record: Game, board: Any) -> None:
    """Photos a seat's phone read for this game are kept unattached (only the host attaches
    photos as they are read); its rack attaches those it names. Their ids are 128 random bits
    that only the phone that sent them knows."""
    if not isinstance(board, dict) or not isinstance(board.get("photos"), list):
        return
    for photo in board["photos"][: boards.MAX_PHOTOS]:
        photo_id = photo.get("id") if isinstance(photo, dict) else None
        if isinstance(photo_id, str) and boards.PHOTO_ID.fullmatch(photo_id):
            stored = db.get(Photo, photo_id)
            if stored is not None and stored.game_id is None:
                stored.game_id = record.id


def send_rack(
    db: Session, record: Game, seat: int, hand_number: Any, pieces: list[str], board: Any
) -> dict[str, Any]:
    """Keep (or replace) ``seat``'s rack for the hand being scored; sending the same again
    changes nothing but the time. Pieces must be the game's; the board is kept when it checks
    out (``webapp.boards``), dropped otherwise."""
    if _finished(record):
        raise StaleHand(lazy_gettext("the match has ended: there is no hand to send a rack for"))
    number = current_hand(record)
    if hand_number != number:
        raise StaleHand(
            lazy_gettext(
                "hand %(sent)s is not the hand being scored: the tally is at hand %(number)s",
                sent=bounds.quote(hand_number),
                number=number,
            )
        )
    events.lock_game(db, record.id)  # two phones of one seat sending at once take turns
    universe = set(matches.piece_names(matches.rules_of(record)))
    for piece in pieces:
        if piece not in universe:
            raise HandError(
                lazy_gettext("%(piece)s is not a piece of this game's set", piece=piece)
            )
    name = matches.player_names(record)[seat]
    _claim_photos(db, record, board)
    db.flush()
    cleaned = boards.clean(db, record, json.dumps({name: board})) if board is not None else None
    kept = cleaned[name] if cleaned else None
    existing = db.get(SeatRack, (record.id, number, seat))
    if existing is None:
        db.add(
            SeatRack(game_id=record.id, hand_number=number, seat=seat, pieces=pieces, board=kept)
        )
    else:
        existing.pieces = pieces
        existing.board = kept
        existing.sent_at = datetime.now(UTC)
    db.flush()
    version = events.record(db, record.id, "rack", seat=seat, hand=number)
    return {"seat": seat, "player": name, "hand": number, "pieces": pieces, "version": version}


def racks_json(db: Session, record: Game) -> dict[str, Any]:
    """The hand being scored and, per seat, whether its phone joined and the rack it sent."""
    number = current_hand(record)
    rows = seat_rows(db, record)
    sent = {
        rack.seat: rack
        for rack in db.scalars(
            select(SeatRack).where(SeatRack.game_id == record.id, SeatRack.hand_number == number)
        )
    }
    seats = []
    for player in record.players:
        rack = sent.get(player.seat)
        row = rows.get(player.seat)
        shown = None
        if rack is not None:
            board = boards.for_page({player.name: rack.board}) if rack.board else None
            shown = {
                "pieces": rack.pieces,
                "board": board[player.name] if board else None,
                "sent_at": rack.sent_at.isoformat(),
            }
        seats.append(
            {
                "seat": player.seat,
                "player": player.name,
                "joined": bool(row and row.joined_at),
                "rack": shown,
            }
        )
    return {"hand": number, "version": events.latest_version(db, record.id), "seats": seats}


def qr_svg(link: str, label: str) -> Markup:
    """The link as a QR code, drawn here as inline SVG (no service: it works on a LAN without
    internet); sized by CSS, with a white quiet zone so any camera finds it."""
    code = segno.make(link, error="m")
    svg = code.svg_inline(
        scale=1, border=4, dark="#000", light="#fff", omitsize=True, svgclass="qr", title=label
    )
    return Markup(svg)


def host_panel(db: Session, record: Game) -> list[dict[str, Any]]:
    """The host's "players' phones": per seat its link, its QR code and whether it joined."""
    rows = seat_rows(db, record)
    sent = set(
        db.scalars(
            select(SeatRack.seat).where(
                SeatRack.game_id == record.id, SeatRack.hand_number == current_hand(record)
            )
        )
    )
    panel = []
    for player in record.players:
        link = join_link(record, rows, player.seat)
        row = rows.get(player.seat)
        panel.append(
            {
                "seat": player.seat,
                "player": player.name,
                "link": link,
                "qr": qr_svg(link, gettext("seat link for %(player)s", player=player.name)),
                "joined": bool(row and row.joined_at),
                "sent": player.seat in sent,
            }
        )
    return panel


def seat_setup(db: Session, record: Game, seat: int) -> dict[str, Any]:
    """What the seated phone's rack card needs: the game's pieces, the hand, the rack sent."""
    rules = matches.rules_of(record)
    number = current_hand(record)
    rack = db.get(SeatRack, (record.id, number, seat))
    name = matches.player_names(record)[seat]
    board = boards.for_page({name: rack.board}) if rack is not None and rack.board else None
    return {
        "game": record.game,
        "options": dict(record.options),
        "pieces": matches.piece_names(rules),
        "kind": matches.recogniser_kind(rules),
        "game_id": record.id,
        "seat": seat,
        "player": name,
        "hand": number,
        "token": session_token(record.id),
        "sent": None
        if rack is None
        else {"pieces": rack.pieces, "board": board[name] if board else None},
    }


def page_context(db: Session, record: Game, editable: bool) -> dict[str, Any]:
    """What the game page adds for live play: the version it is drawn at (its event stream
    starts there), the host's phones panel, this phone's seat (or that its link was revoked)."""
    seat = session_seat(db, record)
    return {
        "game_id": record.id,
        "version": events.latest_version(db, record.id),
        "phones": host_panel(db, record) if editable else None,
        "seat": seat_setup(db, record, seat) if seat is not None else None,
        "revoked": session_token(record.id) is not None and seat is None,
    }


def hand_page_live(record: Game) -> dict[str, Any]:
    """What the host's end-of-hand page needs to take the racks as the phones send them: the
    hand and the version it was drawn at (its event stream starts there)."""
    db = object_session(record)
    version = events.latest_version(db, record.id) if db is not None else 0
    return {"version": version, "hand": current_hand(record)}
