"""Label vocabularies of the recognisers, kept here so that vision/ never imports scorer/.

The names match scorer.pieces: ``red-7`` and ``joker`` for number tiles.
"""

from __future__ import annotations

TILE_COLOURS: tuple[str, ...] = ("red", "orange", "blue", "black")
MAX_TILE_NUMBER = 17
# Classifier "value" head: index 0..16 are numbers 1..17, index 17 is the joker.
TILE_VALUES: tuple[str, ...] = (*(str(n) for n in range(1, MAX_TILE_NUMBER + 1)), "joker")
JOKER_INDEX = len(TILE_VALUES) - 1


def tile_label(value_index: int, colour_index: int) -> str:
    """The canonical label for a classifier's value and colour choice."""
    if value_index == JOKER_INDEX:
        return "joker"
    return f"{TILE_COLOURS[colour_index]}-{value_index + 1}"


def split_tile_label(label: str) -> tuple[int, int]:
    """(value index, colour index) of a canonical label; the joker's colour index is -1."""
    if label == "joker":
        return JOKER_INDEX, -1
    colour, _, number = label.partition("-")
    if colour == "yellow":
        colour = "orange"
    return int(number) - 1, TILE_COLOURS.index(colour)


# The classifier has one more value class than there are tile values: "none" (not a tile face:
# a detector false positive such as a tile's back, a rack, the box). It is never reported.
CLASSIFIER_VALUES: tuple[str, ...] = (*TILE_VALUES, "none")
NONE_INDEX = len(CLASSIFIER_VALUES) - 1


# Dominoes: labels "a-b" with a <= b, halves 0..12. The reader has two heads: the smaller half
# (0..12, then "none": not a face-up domino) and the larger half (0..12).
MAX_PIP = 12
PIP_COUNTS: tuple[str, ...] = tuple(str(n) for n in range(MAX_PIP + 1))
DOMINO_NONE = MAX_PIP + 1  # index of "none" in the first head


def domino_label(a: int, b: int) -> str:
    return f"{min(a, b)}-{max(a, b)}"


def split_domino_label(label: str) -> tuple[int, int]:
    """(smaller half, larger half) of a label such as ``3-8`` (either order accepted)."""
    a, _, b = label.partition("-")
    low, high = sorted((int(a), int(b)))
    return low, high


# Cards: labels rank + suit (``QH``, ``10S``) and ``JK`` for a joker. The reader has two heads:
# rank (A..K, joker, then "none": not a corner index) and suit (C, D, H, S).
CARD_RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CARD_SUITS: tuple[str, ...] = ("C", "D", "H", "S")
CARD_JOKER = "JK"
CARD_JOKER_INDEX = len(CARD_RANKS)
CARD_NONE = CARD_JOKER_INDEX + 1


def card_label(rank_index: int, suit_index: int) -> str:
    if rank_index == CARD_JOKER_INDEX:
        return CARD_JOKER
    return f"{CARD_RANKS[rank_index]}{CARD_SUITS[suit_index]}"


def split_card_label(label: str) -> tuple[int, int]:
    """(rank index, suit index) of a card label; the joker's suit index is -1."""
    if label == CARD_JOKER:
        return CARD_JOKER_INDEX, -1
    return CARD_RANKS.index(label[:-1]), CARD_SUITS.index(label[-1])


# The highest half of each domino set (vision's own copy: vision/ never imports scorer/).
DOMINO_SET_TOPS: dict[str, int] = {"double-six": 6, "double-nine": 9, "double-twelve": 12}
