"""Rummikub (Sabra rules, seed 002): options, pieces, hand scoring, and the JSON API."""

import pytest

from scorer import api
from scorer.errors import HandError, OptionError, PieceError
from scorer.games import make_rules


@pytest.fixture
def rules():
    return make_rules("rummikub")


def test_defaults(rules):
    assert rules.game == "rummikub"
    assert sum(rules.universe.values()) == 106  # 4 colours x 13 x 2 + 2 jokers
    assert (rules.threshold, rules.min_melds, rules.target, rules.hands_limit) == (30, 1, 200, None)
    assert dict(rules.options) == {"jokers": 2, "opening": 30, "target": 200, "time_limit": False}


def test_options_and_preset():
    rules = make_rules("rummikub", {"jokers": "4", "opening": "50", "target": "300"})
    assert sum(rules.universe.values()) == 108
    assert (rules.threshold, rules.target) == (50, 300)
    assert make_rules("rummikub", {"time_limit": "on"}).options["time_limit"] is True
    assert make_rules("rummikub", preset="sabra").threshold == 30
    assert sum(make_rules("rummikub", {"jokers": 0}).universe.values()) == 104


@pytest.mark.parametrize(
    "options, preset, message",
    [
        ({"jokers": "3"}, None, "option jokers cannot be '3': use one of 0, 2, 4"),
        ({"numbers": "17"}, None, "rummikub has no option 'numbers'"),
        ({"opening": "-5"}, None, "option opening must be at least 0"),
        ({"target": "0"}, None, "option target must be at least 1"),
        ({"time_limit": "maybe"}, None, "option time_limit takes true or false"),
        ({}, "american", "rummikub has no preset 'american'"),
    ],
)
def test_option_errors(options, preset, message):
    with pytest.raises(OptionError, match=message):
        make_rules("rummikub", options, preset=preset)


@pytest.mark.parametrize(
    "name, message",
    [
        ("red-14", "^red-14: tiles in this set run from 1 to 13$"),
        ("red-0", "tile numbers run from 1 to 13"),
        ("purple-3", "unknown colour 'purple'"),
        ("3-8", "not a number tile"),
        ("", "empty piece name"),
    ],
)
def test_parse_errors(rules, name, message):
    with pytest.raises(PieceError, match=message):
        rules.parse(name)


def test_parse(rules):
    assert rules.parse("Yellow-7").name == "orange-7"
    assert rules.parse("joker").name == "joker"
    with pytest.raises(PieceError, match="played without jokers"):
        make_rules("rummikub", {"jokers": 0}).parse("joker")


# --- hand scoring -------------------------------------------------------------------------------


def hand(winner, racks, players=("p1", "p2", "p3"), **extra):
    return {"players": list(players), "winner": winner, "racks": racks, **extra}


def test_seed_example_15_and_22_give_the_winner_37(rules):
    # seed 002: player 2 holds 15 points, player 3 holds 22; player 1 earns 37
    scored = rules.score_hand(
        hand("p1", {"p1": [], "p2": ["red-7", "blue-8"], "p3": ["black-13", "orange-9"]})
    )
    assert (scored.outcome, scored.winner) == ("out", "p1")
    assert scored.deltas == {"p1": 37, "p2": -15, "p3": -22}
    assert scored.deadwood is None
    assert scored.details == {"rack_values": {"p1": 0, "p2": 15, "p3": 22}}


def test_a_joker_on_a_rack_counts_30(rules):
    scored = rules.score_hand(hand("p2", {"p1": ["joker", "red-1"]}, players=("p1", "p2")))
    assert scored.deltas == {"p1": -31, "p2": 31}


def test_stock_exhausted_lowest_rack_wins(rules):
    scored = rules.score_hand(
        hand(None, {"p1": ["red-10", "red-2"], "p2": ["blue-5"], "p3": ["joker"]})
    )
    assert (scored.outcome, scored.winner) == ("stock-exhausted", "p2")
    assert scored.deltas == {"p1": -7, "p2": 32, "p3": -25}
    assert sum(scored.deltas.values()) == 0


def test_stock_exhausted_tie_for_lowest_scores_nothing(rules):
    scored = rules.score_hand(hand(None, {"p1": ["red-5"], "p2": ["blue-5"], "p3": ["joker"]}))
    assert (scored.outcome, scored.winner) == ("tie", None)
    assert scored.deltas == {"p1": 0, "p2": 0, "p3": 0}
    assert scored.details["tied"] == ["p1", "p2"]


@pytest.mark.parametrize(
    "bad, message",
    [
        (hand("p1", {"p1": [], "p2": ["red-1"], "p4": ["red-2"]}), "unknown player"),
        (hand("p1", {"p2": ["red-1"]}), "p3 has no rack"),
        (hand("p1", {"p1": ["red-1"], "p2": ["red-2"], "p3": ["red-3"]}), "rack must be empty"),
        (hand("p9", {"p2": ["red-1"], "p3": ["red-2"]}), "the winner 'p9' is not one of"),
        (hand("p1", {"p2": [], "p3": ["red-2"]}), "p2's rack is empty, but only the winner p1"),
        (hand(None, {"p1": [], "p2": ["red-1"], "p3": ["red-2"]}), "p1's rack is empty"),
        (hand("p1", {}, players=("p1",)), "played by 2 to 4 players, not 1"),
        (hand("p1", {}, players=("a", "b", "c", "d", "p1")), "2 to 4 players, not 5"),
        (hand("p1", {"p1": []}, players=("p1", "p1")), "player 'p1' is named twice"),
        (
            hand("p1", {"p2": ["red-1", "red-1"], "p3": ["red-1"]}),
            "red-1 appears 3 times across the racks, but the set holds it only 2 times",
        ),
        (hand("p1", {"p2": ["joker", "joker"], "p3": ["joker"]}), "joker appears 3 times"),
        (hand("p1", {"p2": ["red-1"], "p3": ["red-2"]}, from_hand=True), "no 'remik z reki'"),
        (hand("p1", {"p2": "red-1", "p3": ["red-2"]}), "p2's rack must be a list"),
        (hand("p1", {"p2": ["red-1"], "p3": ["red-2"]}, extra=1), "unknown key"),
        ({"winner": "p1", "racks": {}}, "players must be a list"),
    ],
)
def test_impossible_hands(rules, bad, message):
    with pytest.raises(HandError, match=message):
        rules.score_hand(bad)


def test_rack_tile_outside_the_set_is_a_piece_error(rules):
    with pytest.raises(PieceError, match="red-15"):
        rules.score_hand(hand("p1", {"p2": ["red-15"], "p3": ["red-2"]}))


# --- through the JSON API (what the CLI and the web app call) -----------------------------------


def test_api_check_with_opening():
    result = api.check("rummikub", {}, [["joker", "red-9", "red-10"]], opening=True)
    assert result["valid"] is True
    assert result["melds"][0] == {
        "pieces": ["joker", "red-9", "red-10"],
        "valid": True,
        "kind": "run",
        "value": 30,
        "reason": None,
        "readings": [27, 30],
    }
    assert result["opening"] == {"value": 30, "threshold": 30, "valid": True}


def test_api_check_opening_short():
    result = api.check("rummikub", {}, [["red-1", "red-2", "red-3"]], opening=True)
    assert result["valid"] is False
    assert result["opening"]["reason"] == "6 of 30 points: an opening needs 30"


def test_api_table():
    result = api.table("rummikub", {}, ["red-5", "joker", "red-7", "blue-1", "blue-2", "blue-3"])
    assert result == {
        "valid": True,
        "melds": [["blue-1", "blue-2", "blue-3"], ["red-5", "joker", "red-7"]],
        "reason": None,
    }
    bad = api.table("rummikub", {}, ["red-1", "red-2", "red-3", "blue-9"])
    assert bad == {
        "valid": False,
        "melds": None,
        "reason": "blue-9 fits in no run or group with these tiles",
    }


def test_api_score():
    result = api.score(
        "rummikub",
        {},
        {
            "players": ["a", "b"],
            "winner": "a",
            "racks": {"b": ["joker", "red-3"]},
            "from_hand": False,
        },
    )
    assert result == {
        "outcome": "out",
        "winner": "a",
        "deltas": {"a": 33, "b": -33},
        "deadwood": None,
        "rack_values": {"a": 0, "b": 33},
    }


def test_api_bad_piece_name():
    with pytest.raises(PieceError, match="red-14"):
        api.check("rummikub", {}, [["red-12", "red-13", "red-14"]])
