"""Bounds on what a request may ask of the server, checked before any real work is done.

No real table holds more than a few hundred pieces and no game more than a handful of players, so a
JSON body larger than ``MAX_JSON_BYTES``, nested deeper than ``MAX_JSON_DEPTH``, holding more than
``MAX_JSON_ITEMS`` values or a text longer than ``MAX_TEXT`` is refused (400 or 413) before it is
parsed in full or scored; and before any view runs, a body larger than ``MAX_CONTENT_LENGTH``
(``webapp.settings``) is refused with 413 on every route (``refuse_oversized``, which
``create_app`` runs first for each request). Error messages quote at most a short prefix of what
was sent (``quote``), and every message is clipped (``clip``) so that no answer echoes a body back.
"""

from __future__ import annotations

import json
from typing import Any

from flask import request
from werkzeug.exceptions import RequestEntityTooLarge

from scorer.errors import MeldcamError
from webapp.i18n import lazy_gettext

MAX_JSON_BYTES = 64 * 1024  # a four-player hand of a full set is about 3 KB
MAX_JSON_DEPTH = 12  # a hand is {"hand": {"hands": {player: [piece]}}}: depth 4
MAX_JSON_ITEMS = 2_000  # values in one body: lists, objects, texts, numbers
MAX_TEXT = 100  # characters in one text (names are at most 40, pieces a few)
MAX_PIECE_NAME = 16  # "orange-13", "12-12", "10S", "joker": none is longer
MAX_PIECES = 500  # pieces in one request: two full sets of tiles are 212
MAX_MELDS = 200
MAX_MESSAGE = 400  # characters of an error message
QUOTE = 24  # characters of the user's input quoted in a message


class TooLarge(MeldcamError):
    """A body over ``MAX_JSON_BYTES`` (413 from the API)."""


class BadJson(MeldcamError):
    """A body that is not JSON, or too deep, too many values or too long a text (400)."""


class NotJson(BadJson):
    """Text that is not JSON at all."""


def _too_deep() -> Any:
    return lazy_gettext(
        "the JSON is nested too deeply: at most %(most)s levels", most=MAX_JSON_DEPTH
    )


def refuse_oversized() -> None:
    """Before each request's view (and its rate limits): a body that says it is larger than
    ``MAX_CONTENT_LENGTH`` is refused (413) on every route, whether its view reads it or not.
    A body sent without its length is held to the same limit as it is read (Werkzeug)."""
    limit = request.max_content_length
    if limit is not None and (request.content_length or 0) > limit:
        raise RequestEntityTooLarge()


def quote(value: Any, limit: int = QUOTE) -> str:
    """``repr`` of a short prefix of ``value``: what a message may show of the user's input."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return repr(text)
    return repr(text[:limit]) + f"... ({len(text)} characters)"


def clip(message: str, limit: int = MAX_MESSAGE) -> str:
    """A message cut to ``limit`` characters: the last guard against echoing a body back."""
    return message if len(message) <= limit else message[: limit - 3] + "..."


def _strict_constant(name: str) -> Any:
    raise BadJson(lazy_gettext("%(name)s is not JSON: send numbers as numbers", name=name))


def loads(text: str | bytes) -> Any:
    """Parse a JSON body within the bounds above, or raise TooLarge / BadJson."""
    if len(text) > MAX_JSON_BYTES:
        raise TooLarge(
            lazy_gettext(
                "the request is too large: at most %(kilobytes)s KB of JSON",
                kilobytes=MAX_JSON_BYTES // 1024,
            )
        )
    _check_nesting(text)
    try:
        value = json.loads(text, parse_constant=_strict_constant)
    except RecursionError:  # pragma: no cover - _check_nesting refuses these first
        raise BadJson(_too_deep()) from None
    except (ValueError, UnicodeDecodeError) as error:
        if isinstance(error, BadJson):
            raise
        raise NotJson(lazy_gettext("the body is not valid JSON")) from None
    check_shape(value)
    return value


def _check_nesting(text: str | bytes) -> None:
    """Refuse deep nesting before ``json.loads`` recurses into it (brackets in strings count
    too, which only makes the check stricter for texts full of brackets: none are real)."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    opened = raw.count(b"[") + raw.count(b"{")
    if opened <= MAX_JSON_DEPTH:
        return
    depth = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise BadJson(_too_deep())
        elif byte in (0x5D, 0x7D):
            depth -= 1


def check_shape(value: Any) -> None:
    """Count the values and measure the texts of parsed JSON (iteratively: no recursion)."""
    stack = [(value, 1)]
    items = 0
    while stack:
        current, depth = stack.pop()
        items += 1
        if items > MAX_JSON_ITEMS:
            raise BadJson(
                lazy_gettext(
                    "the request holds too many values: at most %(most)s", most=MAX_JSON_ITEMS
                )
            )
        if depth > MAX_JSON_DEPTH:
            raise BadJson(_too_deep())
        if isinstance(current, str):
            if len(current) > MAX_TEXT:
                raise BadJson(
                    lazy_gettext(
                        "a text is too long: %(start)s; at most %(most)s",
                        start=quote(current),
                        most=MAX_TEXT,
                    )
                )
        elif isinstance(current, dict):
            for key, item in current.items():
                if len(key) > MAX_TEXT:
                    raise BadJson(
                        lazy_gettext(
                            "a name is too long: %(start)s; at most %(most)s",
                            start=quote(key),
                            most=MAX_TEXT,
                        )
                    )
                stack.append((item, depth + 1))
        elif isinstance(current, list):
            stack.extend((item, depth + 1) for item in current)


def count_texts(value: Any) -> int:
    """How many texts ``value`` holds (a hand's pieces and names), counted without recursion."""
    stack, found = [value], 0
    while stack:
        current = stack.pop()
        if isinstance(current, str):
            found += 1
        elif isinstance(current, dict):
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return found


def check_piece_names(names: list[str]) -> None:
    """Refuse a text far too long to name a piece, quoting only its start."""
    for name in names:
        if len(name) > MAX_PIECE_NAME:
            raise BadJson(
                lazy_gettext(
                    "no piece is called %(name)s: use names like red-7, 3-8 or QH", name=quote(name)
                )
            )


def check_pieces(count: int, melds: int = 0) -> None:
    """Refuse a request about more pieces (or melds) than any real table holds."""
    if count > MAX_PIECES:
        raise BadJson(
            lazy_gettext(
                "too many pieces: %(count)s; a table holds at most %(most)s",
                count=count,
                most=MAX_PIECES,
            )
        )
    if melds > MAX_MELDS:
        raise BadJson(
            lazy_gettext(
                "too many melds: %(count)s; a table holds at most %(most)s",
                count=melds,
                most=MAX_MELDS,
            )
        )
