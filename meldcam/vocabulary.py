"""The names of the pieces, of the domino sets and of the piece kinds: the one vocabulary that
the rules (``scorer``), the recognisers (``vision``), the generated photos (``datasets``) and the
web app share.

It imports nothing, so every layer can import it without importing another layer: the
recognisers read labels the scorer parses (``red-7``, ``joker``, ``3-8``, ``QH``, ``10S``, ``JK``)
without importing the rules.
"""

from __future__ import annotations

# --- number tiles: "red-7", "joker" ------------------------------------------------------------

TILE_COLOURS: tuple[str, ...] = ("red", "orange", "blue", "black")
COLOUR_ALIASES: dict[str, str] = {"yellow": "orange"}  # some sets print orange as yellow
MAX_TILE_NUMBER = 17  # 1-13 in Rummikub, 1-17 in Remik's extended set
TILE_JOKER = "joker"


def tile_name(colour: str, number: int) -> str:
    return f"{colour}-{number}"


# --- dominoes: "3-8", the smaller half first ---------------------------------------------------

MAX_PIP = 12
DOMINO_SETS: dict[str, tuple[int, int]] = {
    # name: (highest pip, copies of every tile)
    "double-six": (6, 1),
    "double-nine": (9, 1),
    "double-twelve": (12, 1),
    "2x-double-six": (6, 2),
}
# The sets a photo is read for, by their highest pip: two copies of a set look like one in a
# photo, so two double-six sets are read as double-six.
DOMINO_SET_TOPS: dict[str, int] = {
    name: top for name, (top, copies) in DOMINO_SETS.items() if copies == 1
}
# The set a photo of each set is read for: the set of one copy with the same highest pip.
DOMINO_PHOTO_SETS: dict[str, str] = {
    name: next(one for one, one_top in DOMINO_SET_TOPS.items() if one_top == top)
    for name, (top, _copies) in DOMINO_SETS.items()
}


def domino_name(a: int, b: int) -> str:
    return f"{min(a, b)}-{max(a, b)}"


# --- cards: rank then suit, "QH", "10S"; "JK" for a joker --------------------------------------

CARD_RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CARD_SUITS: tuple[str, ...] = ("C", "D", "H", "S")
SUIT_NAMES: dict[str, str] = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
SUIT_SYMBOLS: dict[str, str] = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
# the ranks said by name (the others by their number)
RANK_NAMES: dict[str, str] = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}
CARD_JOKER = "JK"


def card_name(rank: str, suit: str) -> str:
    return f"{rank}{suit}"


# The letters decks print in the corner indices of the courts and the ace, by the deck's
# language; a card's name keeps the English rank whatever its deck prints (a Polish "W" is a J).
INDEX_LETTERS: dict[str, dict[str, str]] = {
    "en": {"J": "J", "Q": "Q", "K": "K", "A": "A"},
    "pl": {"J": "W", "Q": "D", "K": "K", "A": "A"},  # walet, dama, król, as
    "de": {"J": "B", "Q": "D", "K": "K", "A": "A"},  # Bube, Dame, König, As
    "fr": {"J": "V", "Q": "D", "K": "R", "A": "A"},  # valet, dame, roi, as
}


def printed_letters(letter_set: str) -> str:
    """What a deck of ``letter_set`` prints on its jack, queen, king and ace: "pl" -> "WDKA".
    The game option a player picks (``scorer.gin``), by what the deck shows."""
    letters = INDEX_LETTERS[letter_set]
    return "".join(letters[rank] for rank in ("J", "Q", "K", "A"))


# The letter set of each printing a player may pick: "WDKA" -> "pl".
LETTER_SETS_BY_PRINT: dict[str, str] = {printed_letters(name): name for name in INDEX_LETTERS}
# The choice that tells a deck's letters from each photo (``AUTO_SET``), for a player who does
# not know or name them.
LETTERS_FROM_PHOTO = "from the photo"
# What a photo whose letters are not told is read as: an English deck (no set given).
UNTOLD_LETTERS = "en"
# A deck told from its photo to print other letters than English ones (a queen's D) where the
# photo shows none of the letters that say which (a jack's W, B or V, a French king's R): read
# by the reader of every such deck, at the strictest of their sure thresholds. Not a set a
# player names (``PHOTO_SETS``): only a photo tells it.
OTHER_LETTERS = "other"

# A photo read for the set it shows, told from the photo itself (cards: the deck's index
# letters, by the letters its courts and aces print); where it does not tell, as no set.
AUTO_SET = "auto"

# The sets a photo of each kind may be read for (``set_name``): a domino set, a card deck's
# index letters (or told from the photo); tiles have none.
PHOTO_SETS: dict[str, tuple[str, ...]] = {
    "dominoes": tuple(DOMINO_SET_TOPS),
    "cards": (*INDEX_LETTERS, AUTO_SET),
}


# --- piece kinds -------------------------------------------------------------------------------

# A game's piece kind (``scorer.game.GameType.piece_kind``) and the recogniser that reads it.
RECOGNISER_KINDS: dict[str, str] = {"tile": "tiles", "domino": "dominoes", "card": "cards"}
KINDS: tuple[str, ...] = tuple(RECOGNISER_KINDS.values())  # the recognisers, by kind
