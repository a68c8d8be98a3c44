"""Each game's descriptor (``GAME_TYPE``) agrees with its rules."""

from __future__ import annotations

import pytest

from scorer.games import GAME_MODULES, game_module, game_title, game_type, make_rules
from scorer.pieces import piece_kind


@pytest.mark.parametrize("game", list(GAME_MODULES))
def test_descriptor_matches_its_game(game: str):
    descriptor = game_type(game)
    module = game_module(game)
    assert descriptor.name == game == make_rules(game).game
    assert descriptor.options is module.OPTIONS and descriptor.presets is module.PRESETS
    low, high = descriptor.players
    assert 2 <= low <= high <= 4
    assert all(low <= players <= high for players in descriptor.hand_sizes)
    assert descriptor.hand_style in {"racks", "knock"}
    assert descriptor.hints in {None, "number-tiles", "layout"}
    for preset in descriptor.presets:
        universe = make_rules(game, preset=preset).universe
        assert {piece_kind(piece) for piece in universe} == {descriptor.piece_kind}


def test_titles():
    assert [game_title(game) for game in GAME_MODULES] == [
        "Rummikub",
        "Remik liczbowy",
        "Remino",
        "Domino Gin",
        "Gin Rummy",
    ]
    assert game_title("chess") == "chess"
