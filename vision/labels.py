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
