"""Piece universes as data: which pieces a physical set holds, and how many of each."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from meldcam.vocabulary import DOMINO_SETS
from scorer.errors import HandError
from scorer.pieces import COLOURS, RANKS, SUITS, Card, Domino, Joker, Piece, Tile


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
        raise HandError(f"unknown domino set {set_name!r}: use one of {', '.join(DOMINO_SETS)}")
    top, copies = DOMINO_SETS[set_name]
    return Counter({Domino(a, b): copies for a in range(top + 1) for b in range(a, top + 1)})


def cards() -> Counter[Piece]:
    """The 52-card deck, one of each."""
    return Counter({Card(rank, suit): 1 for suit in SUITS for rank in range(1, len(RANKS) + 1)})


def check_available(pieces: Iterable[Piece], universe: Counter[Piece], where: str = "") -> None:
    """Raise HandError when a piece is not in the set or appears more often than it holds."""
    seen = Counter(pieces)
    context = f" {where}" if where else ""
    for piece, count in seen.items():
        held = universe.get(piece, 0)
        if held == 0:
            raise HandError(f"{piece.name} is not in this set{context}")
        if count > held:
            times = "once" if held == 1 else f"{held} times"
            raise HandError(
                f"{piece.name} appears {count} times{context}, but the set holds it only {times}"
            )
