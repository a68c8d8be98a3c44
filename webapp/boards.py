"""A hand's boards: the photos each player's pieces were read from and the boxes on them.

The end-of-hand page sends them with the hand (form field ``boards``) so that editing a saved
hand shows its photos again. They are what the page showed, not rules: the scorer
never reads them, a board that does not check out is dropped (the hand is saved all the same),
and only photos of this game are kept.

Sent shape, per player: ``{"photos": [{"id", "width", "height"}], "pieces": [[label, photo,
x1, y1, x2, y2, sure, corrected]]}`` with ``photo`` the index in ``photos`` (-1: tapped in, no
box) and ``sure`` / ``corrected`` 0 or 1.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from flask import url_for
from sqlalchemy.orm import Session

from webapp.bounds import MAX_PIECE_NAME, MAX_PIECES
from webapp.db import Game, Hand, HandBoards, Photo

MAX_BOARDS_BYTES = 192 * 1024  # within the form's 256 KB of text fields
MAX_PHOTOS = 8  # photos of one player's pieces in one hand
MAX_SIDE = 20_000  # pixels: stored photos are at most 2000
PHOTO_ID = re.compile(r"[0-9a-f]{1,32}")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value) if 0 <= value <= MAX_SIDE else None


def _photo(db: Session, record: Game, value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict) or not isinstance(value.get("id"), str):
        return None
    photo_id = value["id"]
    if not PHOTO_ID.fullmatch(photo_id):
        return None
    stored = db.get(Photo, photo_id)
    if stored is None or stored.game_id != record.id:
        return None  # a viewer's photo, another game's, or none at all
    return {"id": photo_id, "width": stored.width, "height": stored.height}


def _piece(value: Any, photos: list[dict[str, Any] | None]) -> list[Any] | None:
    if not isinstance(value, list) or len(value) != 8:
        return None
    label, photo, *box, sure, corrected = value
    if not isinstance(label, str) or not 0 < len(label) <= MAX_PIECE_NAME:
        return None
    coords = [_number(v) for v in box]
    placed = (
        isinstance(photo, int)
        and not isinstance(photo, bool)
        and 0 <= photo < len(photos)
        and photos[photo] is not None
        and None not in coords
    )
    if not placed:
        return [label, -1, 0, 0, 0, 0, 1 if sure == 1 else 0, 1 if corrected == 1 else 0]
    return [label, photo, *coords, 1 if sure == 1 else 0, 1 if corrected == 1 else 0]


def clean(db: Session, record: Game, text: str | None) -> dict[str, Any] | None:
    """The boards as sent, checked; None when there are none or they do not check out."""
    if not text or len(text) > MAX_BOARDS_BYTES:
        return None
    try:
        sent = json.loads(text)
    except (ValueError, RecursionError):
        return None
    players = {player.name for player in record.players}
    if not isinstance(sent, dict) or not set(sent) <= players:
        return None
    cleaned: dict[str, Any] = {}
    total = 0
    for name, board in sent.items():
        if not isinstance(board, dict):
            return None
        photos_in = board.get("photos", [])
        pieces_in = board.get("pieces", [])
        if not isinstance(photos_in, list) or not isinstance(pieces_in, list):
            return None
        total += len(pieces_in)
        if len(photos_in) > MAX_PHOTOS or total > MAX_PIECES:
            return None
        photos = [_photo(db, record, p) for p in photos_in]
        pieces = [_piece(p, photos) for p in pieces_in]
        if None in pieces:
            return None
        # photos dropped (not this game's) leave their pieces without boxes, indices kept
        cleaned[name] = {"photos": photos, "pieces": pieces}
    return cleaned


def attach(db: Session, hand: Hand, boards: dict[str, Any] | None) -> None:
    """Keep ``boards`` with the hand (a hand saved again without them keeps its old ones)."""
    if boards is None:
        return
    if hand.boards is None:
        hand.boards = HandBoards(boards=boards)
    else:
        hand.boards.boards = boards


def for_page(boards: dict[str, Any] | None) -> dict[str, Any] | None:
    """The boards as the page restores them: each kept photo with its address."""
    if not boards:
        return None
    shown: dict[str, Any] = {}
    for name, board in boards.items():
        photos = [
            None if p is None else {**p, "url": url_for("api.photo", photo_id=p["id"])}
            for p in board.get("photos", [])
        ]
        shown[name] = {"photos": photos, "pieces": board.get("pieces", [])}
    return shown
