"""The end of a hand is read the same way in every game (scorer/hands.py)."""

import pytest

from scorer.errors import HandError
from scorer.games import make_rules

GAMES = ["rummikub", "remik", "remino", "gin", "domino-gin"]


def bad_hand(game, players):
    if game in ("gin", "domino-gin"):
        return {"players": players, "knocker": "ann", "hands": {}}
    return {"players": players, "winner": "ann", "racks": {}}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(
    "players, message",
    [
        ("ann, bob", "players must be a list of player names"),
        (["ann", "  "], "every player needs a name"),
        (["ann", 7], "every player needs a name"),
        (["ann", "ann"], "players must have different names: player 'ann' is named twice"),
    ],
)
def test_the_same_mistake_in_the_players_reads_the_same_in_every_game(game, players, message):
    with pytest.raises(HandError) as raised:
        make_rules(game).score_hand(bad_hand(game, players))
    assert str(raised.value) == message


@pytest.mark.parametrize(
    "game, players, message",
    [
        ("rummikub", ["ann"], "rummikub is played by 2 to 4 players, not 1"),
        ("remino", ["ann"] * 5, "Remino is played by 2 to 4 players, not 5"),
        ("gin", ["ann"], "Gin Rummy is played by 2 to 4 players, not 1"),
        ("domino-gin", ["ann", "bob", "cy"], "Domino Gin is played by 2 players, not 3"),
    ],
)
def test_player_counts(game, players, message):
    with pytest.raises(HandError) as raised:
        make_rules(game).score_hand(bad_hand(game, players))
    assert str(raised.value) == message


@pytest.mark.parametrize("game", ["rummikub", "remik", "remino"])
def test_racks_read_the_same_in_every_rummy_game(game):
    rules = make_rules(game)
    tile, other = ("red-1", "red-2") if game != "remino" else ("1-2", "1-3")
    cases = [
        ({"racks": {"bob": [tile], "cy": []}}, "racks name unknown player(s): cy"),
        ({"racks": {"bob": tile}}, "bob's rack must be a list of tiles"),
        ({"racks": {}}, "bob has no rack: list the tiles left on it"),
        ({"racks": {"ann": [other], "bob": [tile]}}, "the winner ann went out"),
        ({"racks": {"bob": []}}, "bob's rack is empty, but only the winner ann went out"),
        ({"winner": None, "racks": {"ann": [], "bob": [tile]}}, "then ann went out"),
        ({"racks": [tile]}, "racks must map each player to the tiles left on their rack"),
        ({"winner": "cy", "racks": {}}, "the winner 'cy' is not one of the players"),
        ({"from_hand": 1, "racks": {"bob": [tile]}}, "from_hand must be true or false"),
    ]
    for change, message in cases:
        hand = {"players": ["ann", "bob"], "winner": "ann", **change}
        with pytest.raises(HandError, match=message.replace("(", r"\(").replace(")", r"\)")):
            rules.score_hand(hand)
