"""Domino Gin (seed 001): the seed's melds, deadwood, optimal layoffs, gin/knock/undercut."""

import pytest

from scorer import api
from scorer.domino_gin import best_deadwood, layoff_plan
from scorer.errors import HandError, OptionError, PieceError
from scorer.games import make_rules

SIX = make_rules("domino-gin")
NINE = make_rules("domino-gin", {"set": "double-nine"})


def tiles(text, rules=SIX):
    return [rules.parse(name) for name in text.split()]


def meld(text, rules=SIX):
    return rules.check_meld(tiles(text, rules))


def score(knocker_tiles, opponent_tiles, rules=SIX):
    hand = {
        "players": ["ann", "bob"],
        "knocker": "ann",
        "hands": {"ann": knocker_tiles.split(), "bob": opponent_tiles.split()},
    }
    return rules.score_hand(hand).to_json()


# ---- melds: every example of the seed ---------------------------------------------------------


@pytest.mark.parametrize(
    "text, kind, value",
    [
        ("3-3 3-4 3-5 3-6", "sequence", 30),  # the seed's sequence (the double at its place)
        ("1-1 2-2 3-3 4-4", "doubles", 20),  # the seed's doubles
        ("0-6 1-5 3-3 2-4", "group-of-6", 24),  # the seed's group of 6
        ("3-6 3-4 3-3 3-5", "sequence", 30),
        ("0-2 1-2 2-2 2-3 2-4 2-5 2-6", "sequence", 35),
        ("0-0 1-1 2-2 3-3 4-4 5-5 6-6", "doubles", 42),
    ],
)
def test_the_seeds_melds(text, kind, value):
    verdict = meld(text)
    assert verdict.valid and verdict.kind == kind and verdict.value == value


@pytest.mark.parametrize(
    "text, words",
    [
        ("3-3 3-4 3-5", "at least 4 tiles"),
        ("3-3 3-4 3-5 3-3", None),  # a tile twice: impossible in one set
        ("1-1 2-2 3-3 5-5", "4-4 missing"),
        ("3-3 3-4 3-6 3-1", "3-2, 3-5 missing"),
        ("0-6 1-5 2-4 4-2", None),
        ("0-6 1-5 2-4 1-6", "share no half"),
        ("3-3 3-4 3-6 3-5 2-2", "share no half"),
    ],
)
def test_invalid_melds_say_why(text, words):
    if words is None:
        with pytest.raises(HandError):
            meld(text)
        return
    verdict = meld(text)
    assert not verdict.valid and words.replace("3-2", "2-3").replace("3-1", "1-3") in verdict.reason


def test_group_of_six_is_only_the_four_six_pip_tiles():
    assert not meld("0-9 1-8 2-7 3-6", NINE).valid
    assert meld("0-6 1-5 2-4 3-3", NINE).valid


def test_options_presets_and_parse():
    assert SIX.universe.total() == 28 and NINE.universe.total() == 55 and SIX.target == 100
    assert make_rules("domino-gin", preset="double-nine").top == 9
    with pytest.raises(OptionError):
        make_rules("domino-gin", {"set": "2x-double-six"})
    with pytest.raises(PieceError):
        SIX.parse("7-1")
    with pytest.raises(PieceError):
        SIX.parse("13-2")


def test_deadwood_takes_the_best_arrangement():
    # [3-3] could serve the sequence, the doubles or the group of 6: doubles leave least.
    value, melds = best_deadwood(tiles("3-3 3-4 3-5 3-6 4-4 5-5 6-6"))
    assert value == 7 + 8 + 9 and melds[0].kind == "doubles"
    value, melds = best_deadwood(tiles("0-6 1-5 2-4 3-3 3-4 3-5 3-6"))
    assert value == 6 + 6 + 6 and melds[0].kind == "sequence"  # not the group of 6 (24)


def test_table_layout():
    laid = SIX.arrange_table(tiles("0-0 1-1 2-2 3-3 4-5 4-6 4-4 3-4"))
    assert laid.valid and len(laid.melds) == 2
    assert not SIX.arrange_table(tiles("3-3 3-4 3-5 3-6 0-0 1-1 2-2 4-4")).valid
    broken = SIX.arrange_table(tiles("3-3 3-4 3-5 3-6 1-1"))
    assert not broken.valid and "1-1" in broken.reason


# ---- scoring -----------------------------------------------------------------------------------


def test_gin_scores_opponent_deadwood_plus_20_and_no_layoffs():
    result = score("0-3 1-3 2-3 3-3 3-4 3-5 3-6", "0-0 1-1 2-2 4-4 0-1 1-2 5-6")
    assert result["outcome"] == "gin" and result["winner"] == "ann"
    assert result["deadwood"] == {"ann": 0, "bob": 29}
    assert result["deltas"] == {"ann": 49, "bob": 0}
    assert result["layoffs"] == []


def test_gin_opponent_still_melds_their_own_tiles():
    result = score("0-0 1-1 2-2 3-3 4-4 5-5 6-6", "0-1 0-2 0-3 0-4 1-2 1-3 5-6")
    assert result["outcome"] == "gin"
    assert result["melds"]["bob"] == [["0-1", "0-2", "0-3", "0-4"]]
    assert result["deadwood"] == {"ann": 0, "bob": 3 + 4 + 11}
    assert result["deltas"] == {"ann": 18 + 20, "bob": 0}


def test_gin_opponent_may_not_lay_off():
    # bob's 0-6 would extend ann's full sequence of 6s... it has none free, so use doubles in 9s.
    result = score("0-0 1-1 2-2 3-3 4-4 5-5 6-6", "7-7 0-1 0-2 1-2 1-3 1-4 2-3", NINE)
    assert result["outcome"] == "gin" and result["layoffs"] == []
    assert result["deadwood"]["bob"] == 14 + 1 + 2 + 3 + 4 + 5 + 5


def test_knock_with_layoffs_onto_a_sequence():
    result = score("3-3 3-4 3-5 3-6 0-0 0-1 1-1", "2-3 1-3 0-6 5-6 4-4 2-4 2-2")
    assert result["outcome"] == "knock" and result["winner"] == "ann"
    assert result["deadwood"] == {"ann": 3, "bob": 35}
    assert result["deltas"] == {"ann": 32, "bob": 0}
    assert [lay["piece"] for lay in result["layoffs"]] == ["2-3", "1-3"]  # 1-3 builds on 2-3


def test_knock_with_a_layoff_onto_doubles():
    result = score("0-0 1-1 2-2 3-3 3-4 3-5 0-1", "4-4 5-5 1-3 1-4 0-6 2-5 2-4")
    assert result["melds"]["ann"] == [["0-0", "1-1", "2-2", "3-3"]]
    assert [lay["piece"] for lay in result["layoffs"]] == ["4-4", "5-5"]
    assert result["deadwood"] == {"ann": 16, "bob": 4 + 5 + 6 + 7 + 6}


def test_undercut_scores_difference_plus_20():
    result = score("0-6 1-6 2-6 3-6 0-1 0-2 1-2", "2-4 3-4 4-4 4-5 4-6 5-6 1-1")
    assert result["outcome"] == "undercut" and result["winner"] == "bob"
    assert result["deadwood"] == {"ann": 6, "bob": 2}
    assert result["deltas"] == {"ann": 0, "bob": 4 + 20}


def test_layoffs_a_greedy_order_would_miss():
    # Same hands: bob's longest own meld would be 2-4..4-6 (five tiles), stranding 5-6 (11).
    # Best: meld 2-4, 3-4, 4-4, 4-5 and lay off 4-6 then 5-6 onto ann's 0-6..3-6.
    result = score("0-6 1-6 2-6 3-6 0-1 0-2 1-2", "2-4 3-4 4-4 4-5 4-6 5-6 1-1")
    assert result["melds"]["bob"] == [["2-4", "3-4", "4-4", "4-5"]]
    assert [lay["piece"] for lay in result["layoffs"]] == ["4-6", "5-6"]
    # 5-6 alone cannot be laid off; after 4-6 it can.
    ann_melds = best_deadwood(tiles("0-6 1-6 2-6 3-6 0-1 0-2 1-2"))[1]
    assert layoff_plan(ann_melds, tiles("5-6")) is None
    assert layoff_plan(ann_melds, tiles("5-6 4-6")) is not None


def test_equal_deadwood_gives_the_opponent_20():
    tie = score("0-2 1-2 2-2 2-3 0-1 0-3 2-6", "0-5 1-4 1-1 3-3 4-4 5-5 6-6")
    assert tie["deadwood"]["ann"] == tie["deadwood"]["bob"] == 1 + 3 + 8
    assert tie["outcome"] == "undercut" and tie["deltas"] == {"ann": 0, "bob": 20}


def test_knocker_picks_among_equal_deadwood_the_layout_that_blocks_layoffs():
    # ann: 1-3 2-3 3-3 3-4 (suit 3) or 2-2 2-3 2-4 2-5 (suit 2) both leave 17.
    # Suit 3 would take bob's 0-3 and 3-5 (bob 31), suit 2 only 2-6 (bob 34).
    result = score("1-3 2-2 2-3 2-4 2-5 3-3 3-4", "0-3 0-4 1-1 1-6 2-6 3-5 4-6")
    assert result["melds"]["ann"] == [["2-2", "2-3", "2-4", "2-5"]]
    assert result["deadwood"] == {"ann": 17, "bob": 34}
    assert result["deltas"] == {"ann": 17, "bob": 0}


def test_group_of_six_takes_no_layoffs():
    result = score("0-6 1-5 2-4 3-3 0-0 0-1 1-1", "3-4 2-2 4-4 5-5 6-6 0-2 1-2")
    assert result["melds"]["ann"] == [["0-6", "1-5", "2-4", "3-3"]]
    assert result["layoffs"] == []


@pytest.mark.parametrize(
    "hand, words",
    [
        ({"players": ["ann"], "knocker": "ann", "hands": {}}, "2 players"),
        ({"players": ["ann", "bob", "cy"], "knocker": "ann", "hands": {}}, "2 players"),
        ({"players": ["ann", "ann"], "knocker": "ann", "hands": {}}, "different names"),
        ({"players": ["ann", "bob"], "knocker": "cy", "hands": {}}, "not one of the players"),
        (
            {
                "players": ["ann", "bob"],
                "knocker": "ann",
                "hands": {"ann": ["0-1"] * 7, "bob": ["1-2"] * 7},
            },
            "0-1 appears 7 times",
        ),
        (
            {
                "players": ["ann", "bob"],
                "knocker": "ann",
                "hands": {"ann": ["3-3", "3-4", "3-5", "3-6", "0-0", "0-1"], "bob": []},
            },
            "6 tiles",
        ),
        (
            {
                "players": ["ann", "bob"],
                "knocker": "ann",
                "hands": {
                    "ann": ["3-3", "3-4", "3-5", "3-6", "0-0", "0-1", "1-1"],
                    "bob": ["3-3", "1-2", "1-3", "1-4", "1-5", "1-6", "2-2"],
                },
            },
            "3-3 appears 2 times",
        ),
        (
            {
                "players": ["ann", "bob"],
                "knocker": "ann",
                "hands": {
                    "ann": ["0-1", "0-2", "0-4", "1-2", "1-3", "1-4", "2-5"],
                    "bob": ["3-3", "2-3", "2-4", "1-5", "1-6", "2-2", "6-6"],
                },
            },
            "without a meld",
        ),
        (
            {"players": ["ann", "bob"], "knocker": "ann", "hands": {"ann": [], "cy": []}},
            "unknown player",
        ),
    ],
)
def test_impossible_hands(hand, words):
    with pytest.raises(HandError, match=words):
        SIX.score_hand(hand)


def test_tiles_not_in_the_set():
    hand = {
        "players": ["ann", "bob"],
        "knocker": "ann",
        "hands": {"ann": ["3-3", "3-4", "3-5", "3-6", "0-0", "0-1", "1-7"], "bob": []},
    }
    with pytest.raises(PieceError, match="1-7"):
        SIX.score_hand(hand)


def test_api_shape():
    result = api.score(
        "domino-gin",
        {},
        {
            "players": ["ann", "bob"],
            "knocker": "bob",
            "hands": {
                "bob": ["3-3", "3-4", "3-5", "3-6", "0-0", "0-1", "1-1"],
                "ann": ["2-3", "1-3", "0-6", "5-6", "4-4", "2-4", "2-2"],
            },
        },
    )
    assert set(result) >= {"outcome", "winner", "deltas", "deadwood", "melds", "layoffs"}
    assert result["winner"] == "bob" and result["deltas"] == {"bob": 32, "ann": 0}


def test_layoffs_name_their_player_and_deadwood_is_listed():
    # issue 71: the page read layoff.player and layoff.cards (Gin's shape) and showed "undefined"
    result = score("3-3 3-4 3-5 3-6 0-0 0-1 1-1", "2-3 1-3 0-6 5-6 4-4 2-4 2-2")
    assert [(lay["player"], lay["cards"]) for lay in result["layoffs"]] == [
        ("bob", ["2-3"]),
        ("bob", ["1-3"]),
    ]
    assert result["unmatched"]["ann"] == ["0-0", "0-1", "1-1"]
    left = result["unmatched"]["bob"]
    assert "2-3" not in left and "1-3" not in left
    assert sum(int(a) + int(b) for a, b in (t.split("-") for t in left)) == 35
