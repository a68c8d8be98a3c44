"""Piece universes as data: which pieces a physical set holds, and how many of each."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from meldcam.vocabulary import CARD_RANKS as RANKS
from meldcam.vocabulary import CARD_SUITS as SUITS
from meldcam.vocabulary import DOMINO_PHOTO_SETS, DOMINO_SETS
from meldcam.vocabulary import TILE_COLOURS as COLOURS
from scorer.errors import HandError
from scorer.messages import Message, names, say, say_n
from scorer.pieces import Card, Domino, Joker, Piece, Tile

# where the pieces are, as check_available's messages say it
IN_THIS_MELD = say("where.meld", "in this meld")
IN_THESE_MELDS = say("where.melds", "in these melds")
ON_THE_TABLE = say("where.table", "on the table")
IN_THE_TWO_HANDS = say("where.two-hands", "in the two hands")


def number_tiles(numbers: int = 13, jokers: int = 2, copies: int = 2) -> Counter[Piece]:
    """Rummikub-style tiles 1..numbers in four colours, ``copies`` of each, plus jokers."""
    universe: Counter[Piece] = Counter()
    for colour in COLOURS:
        for number in range(1, numbers + 1):
            universe[Tile(colour, number)] = copies
    if jokers:
        universe[Joker()] = jokers
    return universe


def dominoes(set_name: str) -> Counter[Piece]:
    """A named domino set: ``double-six``, ``double-nine``, ``double-twelve``, ``2x-double-six``."""
    if set_name not in DOMINO_SETS:
        raise HandError(
            say(
                "option.unknown-set",
                "unknown domino set {name}: use one of {sets}",
                name=repr(set_name),
                sets=names(DOMINO_SETS),
            )
        )
    top, copies = DOMINO_SETS[set_name]
    return Counter({Domino(a, b): copies for a in range(top + 1) for b in range(a, top + 1)})


def domino_photo_set(options: Mapping[str, Any]) -> str | None:
    """The set a domino game's photos are read for, from its ``set`` option: double-nine ->
    "double-nine", 2x-double-six -> "double-six" (two copies look like one in a photo)."""
    return DOMINO_PHOTO_SETS.get(str(options.get("set")))


def cards() -> Counter[Piece]:
    """The 52-card deck, one of each."""
    return Counter({Card(rank, suit): 1 for suit in SUITS for rank in range(1, len(RANKS) + 1)})


def check_available(
    pieces: Iterable[Piece], universe: Counter[Piece], where: Message | None = None
) -> None:
    """Raise HandError when a piece is not in the set or appears more often than it holds;
    ``where`` ("in this meld") says where the pieces were."""
    seen = Counter(pieces)
    for piece, count in seen.items():
        held = universe.get(piece, 0)
        if held == 0:
            if where is None:
                raise HandError(
                    say("set.not-in-set", "{piece} is not in this set", piece=piece.name)
                )
            raise HandError(
                say(
                    "set.not-in-set-where",
                    "{piece} is not in this set {where}",
                    piece=piece.name,
                    where=where,
                )
            )
        if count > held:
            raise HandError(_too_many(piece, count, held, where))


def _too_many(piece: Piece, count: int, held: int, where: Message | None) -> Message:
    values = {"piece": piece.name, "count": count, "held": held}
    if where is None:
        return say_n(
            "set.too-many",
            "{piece} appears {count} times, but the set holds it only once",
            "{piece} appears {count} times, but the set holds it only {held} times",
            "held",
            **values,
        )
    return say_n(
        "set.too-many-where",
        "{piece} appears {count} times {where}, but the set holds it only once",
        "{piece} appears {count} times {where}, but the set holds it only {held} times",
        "held",
        where=where,
        **values,
    )
