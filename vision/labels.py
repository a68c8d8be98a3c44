"""The recognisers' heads (which class index is which value, colour, half, rank or suit) and the
labels they make of them. The labels are the pieces' names of ``meldcam.vocabulary``, the
vocabulary the scorer parses too, so vision/ never imports scorer/.
"""

from __future__ import annotations

from meldcam.vocabulary import (
    CARD_JOKER,
    CARD_RANKS,
    CARD_SUITS,
    COLOUR_ALIASES,
    MAX_PIP,
    MAX_TILE_NUMBER,
    TILE_COLOURS,
    TILE_JOKER,
    card_name,
    domino_name,
    tile_name,
)

# Classifier "value" head: index 0..16 are numbers 1..17, index 17 is the joker.
TILE_VALUES: tuple[str, ...] = (*(str(n) for n in range(1, MAX_TILE_NUMBER + 1)), TILE_JOKER)
JOKER_INDEX = len(TILE_VALUES) - 1


def tile_label(value_index: int, colour_index: int) -> str:
    """The canonical label for a classifier's value and colour choice."""
    if value_index == JOKER_INDEX:
        return TILE_JOKER
    return tile_name(TILE_COLOURS[colour_index], value_index + 1)


def split_tile_label(label: str) -> tuple[int, int]:
    """(value index, colour index) of a canonical label; the joker's colour index is -1."""
    if label == TILE_JOKER:
        return JOKER_INDEX, -1
    colour, _, number = label.partition("-")
    colour = COLOUR_ALIASES.get(colour, colour)
    return int(number) - 1, TILE_COLOURS.index(colour)


# The classifier has one more value class than there are tile values: "none" (not a tile face:
# a detector false positive such as a tile's back, a rack, the box). It is never reported.
CLASSIFIER_VALUES: tuple[str, ...] = (*TILE_VALUES, "none")


# Dominoes: labels "a-b" with a <= b, halves 0..12. The reader has two heads: the smaller half
# (0..12, then "none": not a face-up domino) and the larger half (0..12).
PIP_COUNTS: tuple[str, ...] = tuple(str(n) for n in range(MAX_PIP + 1))
DOMINO_NONE = MAX_PIP + 1  # index of "none" in the first head


domino_label = domino_name  # a domino's label is its name: the smaller half first


def split_domino_label(label: str) -> tuple[int, int]:
    """(smaller half, larger half) of a label such as ``3-8`` (either order accepted)."""
    a, _, b = label.partition("-")
    low, high = sorted((int(a), int(b)))
    return low, high


# Cards: labels rank + suit (``QH``, ``10S``) and ``JK`` for a joker. The reader has two heads:
# rank (A..K, joker, then "none": not a corner index) and suit (C, D, H, S).
CARD_JOKER_INDEX = len(CARD_RANKS)
CARD_NONE = CARD_JOKER_INDEX + 1


def card_label(rank_index: int, suit_index: int) -> str:
    if rank_index == CARD_JOKER_INDEX:
        return CARD_JOKER
    return card_name(CARD_RANKS[rank_index], CARD_SUITS[suit_index])


def split_card_label(label: str) -> tuple[int, int]:
    """(rank index, suit index) of a card label; the joker's suit index is -1."""
    if label == CARD_JOKER:
        return CARD_JOKER_INDEX, -1
    return CARD_RANKS.index(label[:-1]), CARD_SUITS.index(label[-1])
