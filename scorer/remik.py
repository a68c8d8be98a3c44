"""Remik liczbowy (source 003): tiles 1-13 (basic) or 1-17 (extended), an agreed number of hands.

Options: ``numbers`` 13/17; ``jokers`` 0/2/4; ``opening`` derived when not given:
``BASIC_OPENING`` with 13 numbers, ``EXTENDED_OPENING`` (the basic one and the source's example
50) with 17, the one place these numbers are written (the option's help, the web pages and
docs/choices/number-tiles.md take them from here); ``min_melds`` 1 or 3; ``hands``: the hands
agreed for the match, default 4 (the source leaves it to the players; 4 lets each of up to four
players start one hand). "Remik z reki" (``from_hand``) doubles every score of the hand.
A pool run dry is scored like Rummikub's (RULES.md default; see scorer.numbertiles).
"""

from __future__ import annotations

from typing import Any

from scorer.numbertiles import NumberTileRules, number_tile_game
from scorer.options import OptionSpec
from scorer.sets import number_tiles

BASIC_OPENING = 36
EXTENDED_OPENING = BASIC_OPENING + 50  # the source's example adds 50

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("numbers", int, 13, "tiles numbered 1 to 13 (basic) or 1 to 17", choices=(13, 17)),
    OptionSpec("jokers", int, 2, "jokers in play", choices=(0, 2, 4)),
    OptionSpec(
        "opening",
        int,
        None,
        f"points the first meld must reach (default {BASIC_OPENING} with 13 numbers, "
        f"{EXTENDED_OPENING} with 17)",
        minimum=0,
    ),
    OptionSpec("min_melds", int, 1, "melds the first meld must have at least", choices=(1, 3)),
    OptionSpec("hands", int, 4, "hands agreed for the match", minimum=1),
)

PRESETS: dict[str, dict[str, Any]] = {
    "basic": {},
    "extended": {"numbers": 17, "opening": EXTENDED_OPENING},
    "extended-3-melds": {"numbers": 17, "opening": EXTENDED_OPENING, "min_melds": 3},
}

GAME_TYPE = number_tile_game(
    "remik", "Remik liczbowy", from_hand=True, options=OPTIONS, presets=PRESETS
)


def make_rules(options: dict[str, Any]) -> NumberTileRules:
    numbers = options["numbers"]
    opening = options["opening"]
    if opening is None:
        opening = BASIC_OPENING if numbers == 13 else EXTENDED_OPENING
    return NumberTileRules(
        game="remik",
        options={**options, "opening": opening},
        numbers=numbers,
        jokers=options["jokers"],
        threshold=opening,
        min_melds=options["min_melds"],
        target=None,
        hands_limit=options["hands"],
        from_hand_doubles=GAME_TYPE.from_hand,
        universe=number_tiles(numbers, options["jokers"]),
    )
