"""Remik liczbowy (seed 003): 36-point openings, "remik z reki", the extended set, options."""

import pytest

from scorer import api
from scorer.errors import HandError, OptionError, PieceError
from scorer.games import make_rules
from scorer.pieces import parse_tile


def tiles(text):
    return [parse_tile(name) for name in text.split()]


@pytest.fixture
def rules():
    return make_rules("remik")


def test_basic_defaults(rules):
    assert sum(rules.universe.values()) == 13 * 4 * 2 + 2
    assert (rules.threshold, rules.min_melds, rules.target, rules.hands_limit) == (36, 1, None, 4)
    assert rules.options["opening"] == 36


def test_extended_set_opening_is_derived():
    rules = make_rules("remik", {"numbers": 17})
    assert rules.threshold == 86
    assert sum(rules.universe.values()) == 136 + 2  # the box's 136 numbered tiles
    assert make_rules("remik", {"numbers": 17, "opening": 70}).threshold == 70
    assert make_rules("remik", {"jokers": 4}).universe[parse_tile("joker")] == 4


def test_presets():
    assert make_rules("remik", preset="basic").threshold == 36
    extended = make_rules("remik", preset="extended")
    assert (extended.numbers, extended.threshold, extended.min_melds) == (17, 86, 1)
    three = make_rules("remik", preset="extended-3-melds")
    assert (three.numbers, three.threshold, three.min_melds) == (17, 86, 3)
    assert make_rules("remik", {"jokers": 0}, preset="extended").jokers == 0


@pytest.mark.parametrize(
    "options, message",
    [
        ({"numbers": "15"}, "option numbers cannot be '15': use one of 13, 17"),
        ({"min_melds": "2"}, "option min_melds cannot be '2': use one of 1, 3"),
        ({"jokers": "1"}, "option jokers cannot be '1'"),
        ({"hands": "0"}, "option hands must be at least 1"),
        ({"target": "200"}, "remik has no option 'target'"),
    ],
)
def test_option_errors(options, message):
    with pytest.raises(OptionError, match=message):
        make_rules("remik", options)


def test_parse_depends_on_the_set(rules):
    with pytest.raises(
        PieceError, match=r"red-15: tiles in this set run from 1 to 13 \(numbers=17"
    ):
        rules.parse("red-15")
    assert make_rules("remik", {"numbers": 17}).parse("red-15").name == "red-15"
    with pytest.raises(PieceError, match="played without jokers"):
        make_rules("remik", {"jokers": 0}).parse("joker")


# --- the seed's worked examples: openings of at least 36 points ---------------------------------


def test_run_8_to_11_opens_with_38(rules):
    verdict = rules.check_opening([tiles("red-8 red-9 red-10 red-11")])
    assert (verdict.value, verdict.threshold, verdict.valid) == (38, 36, True)


def test_four_tens_open_with_40(rules):
    verdict = rules.check_opening([tiles("red-10 orange-10 blue-10 black-10")])
    assert (verdict.value, verdict.valid) == (40, True)


def test_several_melds_add_up(rules):
    verdict = rules.check_opening([tiles("red-1 red-2 red-3"), tiles("blue-10 black-10 joker")])
    assert (verdict.value, verdict.valid) == (36, True)
    short = rules.check_opening([tiles("red-1 red-2 red-3"), tiles("blue-8 black-8 red-8")])
    assert not short.valid and short.reason == "30 of 36 points: an opening needs 36"


def test_three_meld_opening():
    rules = make_rules("remik", preset="extended-3-melds")
    two = rules.check_opening([tiles("red-15 red-16 red-17"), tiles("blue-14 red-14 black-14")])
    assert not two.valid and two.value == 90
    assert two.reason == "2 of 3 melds: an opening needs at least 3 melds"
    three = rules.check_opening(
        [
            tiles("red-15 red-16 red-17"),
            tiles("blue-14 red-14 black-14"),
            tiles("blue-1 blue-2 blue-3"),
        ]
    )
    assert three.valid and three.value == 96
    both = rules.check_opening([tiles("red-1 red-2 red-3")])
    assert (
        both.reason
        == "6 of 86 points: an opening needs 86; 1 of 3 melds: an opening needs at least 3 melds"
    )


# --- hand scoring -------------------------------------------------------------------------------


def test_going_out(rules):
    scored = rules.score_hand(
        {"players": ["ala", "ola"], "winner": "ola", "racks": {"ala": ["red-4", "joker"]}}
    )
    assert (scored.outcome, scored.deltas) == ("out", {"ala": -34, "ola": 34})


def test_remik_from_hand_doubles_every_score(rules):
    scored = rules.score_hand(
        {
            "players": ["ala", "ola", "ela"],
            "winner": "ola",
            "racks": {"ala": ["red-4", "joker"], "ola": [], "ela": ["blue-13"]},
            "from_hand": True,
        }
    )
    assert (scored.outcome, scored.winner) == ("remik-from-hand", "ola")
    assert scored.deltas == {"ala": -68, "ola": 94, "ela": -26}
    assert scored.details["rack_values"] == {"ala": 34, "ola": 0, "ela": 13}


def test_from_hand_needs_a_winner(rules):
    with pytest.raises(HandError, match="from_hand needs a winner"):
        rules.score_hand(
            {
                "players": ["a", "b"],
                "winner": None,
                "racks": {"a": ["red-1"], "b": ["red-2"]},
                "from_hand": True,
            }
        )
    with pytest.raises(HandError, match="from_hand must be true or false"):
        rules.score_hand(
            {"players": ["a", "b"], "winner": "a", "racks": {"b": ["red-2"]}, "from_hand": "yes"}
        )


def test_pool_exhausted_is_scored_like_rummikub(rules):
    scored = rules.score_hand(
        {"players": ["a", "b"], "winner": None, "racks": {"a": ["red-9"], "b": ["red-3", "red-4"]}}
    )
    assert (scored.outcome, scored.winner, scored.deltas) == (
        "stock-exhausted",
        "b",
        {"a": -2, "b": 2},
    )


def test_extended_set_racks(rules):
    extended = make_rules("remik", {"numbers": 17, "jokers": 4})
    scored = extended.score_hand(
        {
            "players": ["a", "b"],
            "winner": "a",
            "racks": {"b": ["red-17", "joker", "joker", "joker"]},
        }
    )
    assert scored.deltas == {"a": 107, "b": -107}
    with pytest.raises(PieceError, match="red-17"):
        rules.score_hand({"players": ["a", "b"], "winner": "a", "racks": {"b": ["red-17"]}})


# --- through the JSON API -----------------------------------------------------------------------


def test_api_opening_with_options():
    result = api.check(
        "remik",
        {"numbers": "17"},
        [["red-15", "red-16", "red-17"], ["blue-10", "black-10", "red-10"]],
        opening=True,
    )
    assert result["opening"] == {
        "value": 78,
        "threshold": 86,
        "valid": False,
        "reason": "78 of 86 points: an opening needs 86",
    }
    assert result["valid"] is False and all(m["valid"] for m in result["melds"])


def test_api_table_and_score():
    table = api.table(
        "remik", {"jokers": "4"}, ["joker", "joker", "joker", "red-1", "red-2", "red-3"]
    )
    assert table["valid"] is True
    assert sorted(map(len, table["melds"])) == [3, 3]
    score = api.score(
        "remik",
        {},
        {"players": ["a", "b"], "winner": "b", "racks": {"a": ["red-5"]}, "from_hand": True},
    )
    assert score["outcome"] == "remik-from-hand" and score["deltas"] == {"a": -10, "b": 10}
