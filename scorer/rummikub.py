"""Rummikub (Sabra rules, source 002): 106 tiles, opening 30, first to 200 points.

Melds, tables and hand scoring are shared with Remik (scorer.numbertiles, where the choices
are listed). Rummikub has no "remik z reki": ``from_hand`` true is an error. ``time_limit``
(McLeod's two-minute turns) is informational: the scorer records it and times nothing.
"""

from __future__ import annotations

from typing import Any

from scorer.numbertiles import NumberTileRules, number_tile_game
from scorer.options import OptionSpec
from scorer.sets import number_tiles

NUMBERS = 13

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("jokers", int, 2, "jokers in play (the set has 2)", choices=(0, 2, 4)),
    OptionSpec("opening", int, 30, "points the first meld must reach", minimum=0),
    OptionSpec("target", int, 200, "the match ends when a player reaches this total", minimum=1),
    OptionSpec(
        "time_limit",
        bool,
        False,
        "two-minute turns, over the limit the table is restored and 3 tiles drawn "
        "(informational: the scorer does not time turns)",
    ),
)

PRESETS: dict[str, dict[str, Any]] = {"sabra": {}}

GAME_TYPE = number_tile_game(
    "rummikub", "Rummikub", from_hand=False, options=OPTIONS, presets=PRESETS
)


def make_rules(options: dict[str, Any]) -> NumberTileRules:
    return NumberTileRules(
        game="rummikub",
        options=dict(options),
        numbers=NUMBERS,
        jokers=options["jokers"],
        threshold=options["opening"],
        min_melds=1,
        target=options["target"],
        hands_limit=None,
        from_hand_doubles=GAME_TYPE.from_hand,
        universe=number_tiles(NUMBERS, options["jokers"]),
    )
