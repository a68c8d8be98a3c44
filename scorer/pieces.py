"""Immutable piece types, named by the vocabulary shared by vision, scorer, API and database
(``meldcam.vocabulary``): ``red-7`` and ``joker`` (number tiles), ``3-8`` (dominoes, smaller
half first), ``QH``, ``10S`` and ``JK`` (cards).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from meldcam.vocabulary import (
    CARD_JOKER,
    COLOUR_ALIASES,
    MAX_PIP,
    MAX_TILE_NUMBER,
    TILE_JOKER,
    card_name,
    domino_name,
    tile_name,
)
from meldcam.vocabulary import CARD_RANKS as RANKS
from meldcam.vocabulary import CARD_SUITS as SUITS
from meldcam.vocabulary import TILE_COLOURS as COLOURS
from scorer.errors import PieceError
from scorer.messages import names as listed
from scorer.messages import say


@dataclass(frozen=True, order=True)
class Tile:
    """A number tile: a colour and a number 1..17."""

    colour: str
    number: int

    def __post_init__(self) -> None:
        if self.colour not in COLOURS:
            raise PieceError(
                say(
                    "piece.unknown-colour",
                    "unknown tile colour {colour}: use one of {colours}",
                    colour=repr(self.colour),
                    colours=listed(COLOURS),
                )
            )
        if not 1 <= self.number <= MAX_TILE_NUMBER:
            raise PieceError(
                say(
                    "piece.tile-number",
                    "tile numbers run from 1 to {most}, not {number}",
                    most=MAX_TILE_NUMBER,
                    number=self.number,
                )
            )

    @property
    def name(self) -> str:
        return tile_name(self.colour, self.number)

    @property
    def value(self) -> int:
        return self.number

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, order=True)
class Joker:
    """The number-tile joker."""

    @property
    def name(self) -> str:
        return TILE_JOKER

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, order=True)
class Domino:
    """A domino; ``low <= high`` always, so ``8-3`` and ``3-8`` are the same piece."""

    low: int
    high: int

    def __post_init__(self) -> None:
        for half in (self.low, self.high):
            if not 0 <= half <= MAX_PIP:
                raise PieceError(
                    say(
                        "piece.domino-half",
                        "domino halves run from 0 to {most}, not {half}",
                        most=MAX_PIP,
                        half=half,
                    )
                )
        if self.low > self.high:
            lo, hi = self.high, self.low
            object.__setattr__(self, "low", lo)
            object.__setattr__(self, "high", hi)

    @property
    def name(self) -> str:
        return domino_name(self.low, self.high)

    @property
    def pips(self) -> int:
        return self.low + self.high

    @property
    def is_double(self) -> bool:
        return self.low == self.high

    def other_half(self, half: int) -> int:
        """The half that is not ``half`` (for a double, ``half`` itself)."""
        if half == self.low:
            return self.high
        if half == self.high:
            return self.low
        raise ValueError(f"{self.name} has no half {half}")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, order=True)
class Card:
    """A playing card: rank 1 (ace) .. 13 (king) and suit C, D, H or S."""

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if not 1 <= self.rank <= 13:
            raise PieceError(
                say(
                    "piece.card-rank",
                    "card ranks run from 1 (ace) to 13 (king), not {rank}",
                    rank=self.rank,
                )
            )
        if self.suit not in SUITS:
            raise PieceError(
                say(
                    "piece.unknown-suit",
                    "unknown suit {suit}: use one of {suits}",
                    suit=repr(self.suit),
                    suits=listed(SUITS),
                )
            )

    @property
    def name(self) -> str:
        return card_name(RANKS[self.rank - 1], self.suit)

    @property
    def value(self) -> int:
        """Gin value: ace 1, number cards face value, court cards 10."""
        return min(self.rank, 10)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, order=True)
class CardJoker:
    """A card joker (``JK``): recognised so that games without jokers can reject it."""

    @property
    def name(self) -> str:
        return CARD_JOKER

    def __str__(self) -> str:
        return self.name


NumberPiece = Tile | Joker
CardPiece = Card | CardJoker
Piece = Tile | Joker | Domino | Card | CardJoker
PieceKind = Literal["tile", "domino", "card"]

_TILE_RE = re.compile(r"^([a-z]+)-(\d+)$")
_DOMINO_RE = re.compile(r"^(\d+)\s*[-|]\s*(\d+)$")
_CARD_RE = re.compile(r"^(10|[2-9AJQK])([CDHS])$")


def _clean(text: str) -> str:
    if not isinstance(text, str):
        raise PieceError(
            say(
                "piece.not-text",
                "a piece name must be text, not {kind}",
                kind=type(text).__name__,
            )
        )
    cleaned = text.strip()
    if not cleaned:
        raise PieceError(say("piece.empty", "empty piece name"))
    return cleaned


def parse_tile(text: str, max_number: int = MAX_TILE_NUMBER) -> NumberPiece:
    """Parse ``red-7`` / ``yellow-7`` / ``joker`` with numbers 1..max_number."""
    raw = _clean(text)
    lowered = raw.lower()
    if lowered == TILE_JOKER:
        return Joker()
    match = _TILE_RE.match(lowered)
    if not match:
        raise PieceError(
            say(
                "piece.not-a-tile",
                "{name} is not a number tile: write colour-number like red-7, or joker",
                name=repr(raw),
            )
        )
    colour = COLOUR_ALIASES.get(match.group(1), match.group(1))
    if colour not in COLOURS:
        raise PieceError(
            say(
                "piece.tile-colour",
                "{name}: unknown colour {colour} (red, orange, blue, black)",
                name=repr(raw),
                colour=repr(match.group(1)),
            )
        )
    number = int(match.group(2))
    if not 1 <= number <= max_number:
        raise PieceError(
            say(
                "piece.tile-number-of",
                "{name}: tile numbers run from 1 to {most}",
                name=repr(raw),
                most=max_number,
            )
        )
    return Tile(colour, number)


def parse_domino(text: str, max_pip: int = MAX_PIP) -> Domino:
    """Parse ``3-8`` (or ``8-3``, ``[3-8]``, ``3|8``) with halves 0..max_pip."""
    raw = _clean(text)
    match = _DOMINO_RE.match(raw.strip("[]").strip())
    if not match:
        raise PieceError(
            say(
                "piece.not-a-domino-name",
                "{name} is not a domino: write the two halves like 3-8",
                name=repr(raw),
            )
        )
    a, b = int(match.group(1)), int(match.group(2))
    for half in (a, b):
        if half > max_pip:
            raise PieceError(
                say(
                    "piece.domino-half-of",
                    "{name}: halves in this set run from 0 to {most}",
                    name=repr(raw),
                    most=max_pip,
                )
            )
    return Domino(a, b)


def parse_card(text: str) -> CardPiece:
    """Parse ``QH``, ``10S``, ``AD`` or ``JK``."""
    raw = _clean(text)
    upper = raw.upper()
    if upper == CARD_JOKER:
        return CardJoker()
    match = _CARD_RE.match(upper)
    if not match:
        raise PieceError(
            say(
                "piece.not-a-card-name",
                "{name} is not a card: write rank (A 2-10 J Q K) then suit (C D H S), like QH "
                "or 10S",
                name=repr(raw),
            )
        )
    return Card(RANKS.index(match.group(1)) + 1, match.group(2))


def parse_piece(text: str) -> Piece:
    """Parse any canonical piece name, deciding the kind by its shape."""
    raw = _clean(text)
    if raw.lower() == "joker" or _TILE_RE.match(raw.lower()):
        return parse_tile(raw)
    if _DOMINO_RE.match(raw.strip("[]").strip()):
        return parse_domino(raw)
    if raw.upper() == "JK" or _CARD_RE.match(raw.upper()):
        return parse_card(raw)
    raise PieceError(
        say(
            "piece.unknown",
            "{name} is not a piece name (examples: red-7, joker, 3-8, QH, 10S)",
            name=repr(raw),
        )
    )


def piece_kind(piece: Piece) -> PieceKind:
    if isinstance(piece, Tile | Joker):
        return "tile"
    if isinstance(piece, Domino):
        return "domino"
    return "card"


def piece_order(piece: Piece) -> tuple[int, ...]:
    """Where a piece goes in a picker: tiles by colour (in the vocabulary's order) then number,
    the tile joker, dominoes by their halves, cards by suit then rank, the card joker."""
    if isinstance(piece, Tile):
        return (0, COLOURS.index(piece.colour), piece.number)
    if isinstance(piece, Joker):
        return (1,)
    if isinstance(piece, Domino):
        return (2, piece.low, piece.high)
    if isinstance(piece, Card):
        return (3, SUITS.index(piece.suit), piece.rank)
    return (4,)


def names(pieces: Iterable[Piece]) -> list[str]:
    """Canonical names of an iterable of pieces."""
    return [p.name for p in pieces]
