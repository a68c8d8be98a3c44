"""Gin Rummy (cards): melds, best arrangement, layoffs, scoring table, errors.

Hands are written as space-separated card names; every hand is the cards laid down after
the discard (10 each for 2 players, 7 each for 3-4).
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from meldcam.cli import main as meldcam_main
from scorer import api
from scorer.errors import HandError, OptionError, PieceError
from scorer.games import make_rules
from scorer.gin import arrange_any, best_arrangement
from scorer.pieces import RANKS, parse_card


def cards(text: str) -> list[Any]:
    return [parse_card(name) for name in text.split()]


def score(players: list[str], knocker: str, hands: dict[str, str], **options: Any) -> dict:
    hand = {
        "players": players,
        "knocker": knocker,
        "hands": {name: text.split() for name, text in hands.items()},
    }
    return api.score("gin", options, hand)


def check(*melds: str) -> list[dict]:
    return api.check("gin", {}, [m.split() for m in melds])["melds"]


# --- pieces and melds ------------------------------------------------------------------


def test_parse_rejects_jokers_and_non_cards() -> None:
    rules = make_rules("gin")
    assert rules.parse("qh").name == "QH"
    assert rules.parse("10S").name == "10S"
    with pytest.raises(PieceError, match="without jokers"):
        rules.parse("JK")
    with pytest.raises(PieceError, match="not a card"):
        rules.parse("1H")
    with pytest.raises(PieceError):
        rules.parse("")


@pytest.mark.parametrize(
    ("meld", "kind", "value"),
    [
        ("7C 7D 7S", "set", 21),
        ("KC KD KH KS", "set", 40),
        ("AH 2H 3H", "run", 6),
        ("9S 10S JS QS KS", "run", 49),
        ("JD 9D 10D", "run", 29),  # order on the table does not matter
        # all thirteen, ace low, in any order (issue 22: A..K plus the missing Q was refused)
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS KS QS", "run", 85),
    ],
)
def test_legal_melds_with_kind_and_value(meld: str, kind: str, value: int) -> None:
    [verdict] = check(meld)
    assert (verdict["valid"], verdict["kind"], verdict["value"]) == (True, kind, value)


@pytest.mark.parametrize(
    ("meld", "reason"),
    [
        ("QH KH AH", "ace is low only"),
        ("KH AH 2H", "ace is low only"),
        # A to K without the queen: the gap is named, not only the ace (issue 22)
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS KS", "JS and KS have a gap"),
        ("5H 7H 8H", "5H and 7H have a gap"),
        ("5H 6S 7H", "a set needs one rank"),
        ("5H 5S 6S", "a run needs one suit"),
        ("AH 2H", "at least 3 cards"),
    ],
)
def test_illegal_melds_say_why(meld: str, reason: str) -> None:
    [verdict] = check(meld)
    assert verdict["valid"] is False
    assert verdict["kind"] is None
    assert reason in verdict["reason"]


def test_a_card_twice_in_a_meld_is_not_a_meld() -> None:
    [verdict] = check("5H 5H 5C")
    assert verdict["valid"] is False
    assert "5H appears 2 times" in verdict["reason"]


def test_opening_has_no_threshold_in_gin() -> None:
    result = api.check("gin", {}, [["AH", "2H", "3H"], ["5C", "5D", "5S"]], opening=True)
    assert result["opening"] == {"value": 21, "threshold": 0, "valid": True}
    bad = api.check("gin", {}, [["AH", "2H", "3H"], ["5C", "6D", "5S"]], opening=True)
    assert bad["valid"] is False
    assert bad["opening"]["valid"] is False
    assert "meld 2" in bad["opening"]["reason"]


# --- best arrangement and table ----------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "deadwood"),
    [
        ("3H 4H 5H 6H 5C 5D 5S", 0),  # 5H in the set would strand 6H: run 3-6H + set of 5s
        ("4H 5H 6H 7H 4C 4D", 0),  # the run of four lends its 4 to the set
        ("AH 2H 3H 4H 5H 6H 4C 4D", 8),  # the long run beats set + short run (11)
        ("KC KD KH JH QH", 20),  # either the kings or J-Q-K of hearts: 20 left both ways
        ("AC 2D 3H 4S 5C 6D 7H 8S 9C 10D KH", 65),
    ],
)
def test_best_arrangement_is_the_least_deadwood(hand: str, deadwood: int) -> None:
    best = best_arrangement(cards(hand))
    assert best.deadwood == deadwood
    assert best.deadwood == sum(c.value for c in best.unmatched)
    laid = [c.name for m in best.melds for c in m] + [c.name for c in best.unmatched]
    assert sorted(laid) == sorted(c.name for c in cards(hand))
    assert arrange_any(cards(hand)).deadwood == deadwood


def test_table_partition_splits_runs_and_shares_out_cards() -> None:
    result = api.table("gin", {}, ["AH", "2H", "3H", "4H", "5H", "3C", "3D", "3S"])
    assert result["valid"] is True
    laid = sorted(name for meld in result["melds"] for name in meld)
    assert laid == sorted(["AH", "2H", "3H", "4H", "5H", "3C", "3D", "3S"])
    for meld in result["melds"]:
        assert check(" ".join(meld))[0]["valid"]
    # 3H must join the threes and A-2H cannot stand alone: no partition
    result = api.table("gin", {}, ["AH", "2H", "3H", "3C", "3D", "4H", "5H", "6C"])
    assert result["valid"] is False
    assert result["melds"] is None
    assert "6C" in result["reason"]


def test_a_whole_deck_is_a_table() -> None:
    deck = [f"{rank}{suit}" for suit in "CDHS" for rank in RANKS]
    result = api.table("gin", {}, deck)
    assert result["valid"] is True
    assert sum(len(m) for m in result["melds"]) == 52


def test_table_with_a_card_twice_is_an_error() -> None:
    with pytest.raises(HandError, match="5H appears 2 times"):
        api.table("gin", {}, ["5H", "5H", "5C", "5D"])


# --- the scoring table, 2 players --------------------------------------------------------


def test_gin_scores_deadwood_plus_25_and_forbids_layoffs() -> None:
    # Olga's 5H would extend A-4H and her KD would join nothing: after gin she lays off nothing.
    result = score(
        ["Kai", "Olga"],
        "Kai",
        {"Kai": "AH 2H 3H 4H 7C 7D 7S JS QS KS", "Olga": "2C 3C 4C 9D 9H 9C KD QH 8S 5H"},
    )
    assert result["outcome"] == "gin"
    assert result["winner"] == "Kai"
    assert result["deadwood"] == {"Kai": 0, "Olga": 33}
    assert result["penalties"] == {"Kai": 0, "Olga": 58}
    assert result["deltas"] == {"Kai": 58, "Olga": 0}
    assert result["layoffs"] == []


def test_gin_cannot_be_undercut() -> None:
    result = score(
        ["Kai", "Olga"],
        "Kai",
        {"Kai": "AH 2H 3H 4H 7C 7D 7S JS QS KS", "Olga": "2C 3C 4C 9D 9H 9C 10D JD QD KD"},
    )
    assert result["outcome"] == "gin"
    assert result["deltas"] == {"Kai": 25, "Olga": 0}


def test_knock_scores_the_difference() -> None:
    result = score(
        ["Kai", "Olga"],
        "Kai",
        {"Kai": "AH 2H 3H 7C 7D 7S JS QS KS 6D", "Olga": "2C 3C 4C 9D 9H 9C KD QH 8S 2D"},
    )
    assert result["outcome"] == "knock"
    assert result["deadwood"] == {"Kai": 6, "Olga": 30}
    assert result["deltas"] == {"Kai": 24, "Olga": 0}


def test_undercut_scores_difference_plus_25_for_the_opponent() -> None:
    result = score(
        ["Kai", "Olga"],
        "Kai",
        {"Kai": "AH 2H 3H 7C 7D 7S JS QS KS 9D", "Olga": "2C 3C 4C 9H 9C 9S 10D JD QD 4D"},
    )
    assert result["outcome"] == "undercut"
    assert result["winner"] == "Olga"
    assert result["deadwood"] == {"Kai": 9, "Olga": 4}
    assert result["penalties"] == {"Kai": 9 - 4 + 25, "Olga": 0}
    assert result["deltas"] == {"Kai": 0, "Olga": 30}


def test_equal_deadwood_is_an_undercut() -> None:
    result = score(
        ["Kai", "Olga"],
        "Kai",
        {"Kai": "AH 2H 3H 7C 7D 7S JS QS KS 4S", "Olga": "2C 3C 4C 9H 9C 9S 10D JD QD 4D"},
    )
    assert result["outcome"] == "undercut"
    assert result["deltas"] == {"Kai": 0, "Olga": 25}


def test_bonuses_and_knock_limit_are_options() -> None:
    hands = {"Kai": "AH 2H 3H 7C 7D 7S JS QS KS 9D", "Olga": "2C 3C 4C 9H 9C 9S 10D JD QD 4D"}
    result = score(["Kai", "Olga"], "Kai", hands, undercut_bonus=10)
    assert result["deltas"] == {"Kai": 0, "Olga": 15}
    with pytest.raises(HandError, match="over the limit of 8"):
        score(["Kai", "Olga"], "Kai", hands, knock_limit=8)
    gin = {"Kai": "AH 2H 3H 4H 7C 7D 7S JS QS KS", "Olga": "2C 3C 4C 9D 9H 9C KD QH 8S 5H"}
    assert score(["Kai", "Olga"], "Kai", gin, gin_bonus=20)["deltas"]["Kai"] == 53
    with pytest.raises(OptionError):
        score(["Kai", "Olga"], "Kai", hands, knock_limit=-1)
    with pytest.raises(OptionError):
        score(["Kai", "Olga"], "Kai", hands, big_gin=True)


def test_classic_preset_is_the_default() -> None:
    rules = make_rules("gin", preset="classic")
    assert rules.options == make_rules("gin").options
    assert rules.target == 100
    assert make_rules("gin", {"target": 250}).target == 250


# --- the seed's layoff example (seeds/004) ----------------------------------------------
#
# "The knocker goes down with [two melds]. His [the opponent's] deadwood is [pictured] and two
# fours. The opponent can lay off a jack and the 6 of hearts onto the knocker's melds,
# reducing his deadwood from 24 to 6." The pictures are lost. Jack + 6 + two fours is
# 10 + 6 + 4 + 4 = 24, so the pictured cards are the jack and the 6 of hearts; laying both
# off leaves the two fours, 8 - not 6: no hand can fall from 24 to 6 by laying off 16 points
# (the best of the other cards would be 8 before and after). We test the hand that fits the
# text (24 -> 8) and the nearest hand that ends at 6 (a two instead of a four: 22 -> 6).
# Knocker: run 7-10 of hearts (the 6H goes below, the JH above) and the kings.

SEED_KNOCKER = "7H 8H 9H 10H KC KD KS AC AD 2S"


@pytest.mark.parametrize(
    ("opponent", "before", "after"),
    [
        ("5C 5D 5S 8C 9C 10C JH 6H 4D 4S", 24, 8),
        ("5C 5D 5S 8C 9C 10C JH 6H 4D 2D", 22, 6),
    ],
)
def test_seed_layoff_example(opponent: str, before: int, after: int) -> None:
    result = score(["Knocker", "Opp"], "Knocker", {"Knocker": SEED_KNOCKER, "Opp": opponent})
    assert result["deadwood_before_layoffs"]["Opp"] == before
    assert result["deadwood"] == {"Knocker": 4, "Opp": after}
    laid = sorted(name for layoff in result["layoffs"] for name in layoff["cards"])
    assert laid == ["6H", "JH"]
    assert all(layoff["onto"] == ["7H", "8H", "9H", "10H"] for layoff in result["layoffs"])
    assert result["melds"]["Opp"] == [["5C", "5D", "5S"], ["8C", "9C", "10C"]]
    assert result["outcome"] == "knock"
    assert result["deltas"] == {"Knocker": after - 4, "Opp": 0}


# --- layoffs a greedy player gets wrong --------------------------------------------------


def test_layoffs_beat_melding_first_and_laying_off_everything() -> None:
    # Melding first keeps the run 4-5-6H (deadwood 4C 4D 9D 10D = 27, nothing to lay off);
    # laying off all it can (6H 5H 4H) also leaves 27. Best: set 4H 4C 4D, lay off 6H 5H.
    result = score(
        ["K", "O"],
        "K",
        {"K": "7H 8H 9H QC QD QS 2S 3S 4S AC", "O": "4H 5H 6H 4C 4D 6C 7C 8C 9D 10D"},
    )
    assert result["deadwood_before_layoffs"]["O"] == 27
    assert result["deadwood"] == {"K": 1, "O": 19}
    assert result["layoffs"] == [{"player": "O", "cards": ["6H", "5H"], "onto": ["7H", "8H", "9H"]}]
    assert sorted(map(sorted, result["melds"]["O"])) == [["4C", "4D", "4H"], ["6C", "7C", "8C"]]
    assert result["deltas"] == {"K": 18, "O": 0}


def test_a_card_that_fits_two_melds_goes_where_it_lets_another_follow() -> None:
    # 4H completes the knocker's fours or extends 5-7H downwards; only the run lets 3H follow.
    result = score(
        ["K", "O"],
        "K",
        {"K": "5H 6H 7H 4C 4D 4S 9C 9D 9S AS", "O": "4H 3H QC QD QH 10C 10D 10S 2C KH"},
    )
    assert result["deadwood_before_layoffs"]["O"] == 19
    assert result["deadwood"]["O"] == 12
    assert result["layoffs"] == [{"player": "O", "cards": ["4H", "3H"], "onto": ["5H", "6H", "7H"]}]


def test_knocker_lays_the_arrangement_that_leaves_least_to_lay_off() -> None:
    # A-4C + 4D 4H 4S or A-3C + all four fours: same deadwood (6); the first lets 5C 6C go.
    result = score(
        ["K", "O"],
        "K",
        {"K": "AC 2C 3C 4C 4D 4H 4S AD 2H 3S", "O": "5C 6C JD QD KD 7S 8S 9S 9H 10H"},
    )
    assert sorted(map(sorted, result["melds"]["K"])) == [
        ["2C", "3C", "AC"],
        ["4C", "4D", "4H", "4S"],
    ]
    assert result["layoffs"] == []
    assert result["deadwood"] == {"K": 6, "O": 30}
    assert result["deltas"] == {"K": 24, "O": 0}


def test_knocker_avoids_an_undercut_when_an_arrangement_allows() -> None:
    # Same knocker; with A-4C on the table O would lay off 5C 6C and undercut with 2.
    result = score(
        ["K", "O"],
        "K",
        {"K": "AC 2C 3C 4C 4D 4H 4S AD 2H 3S", "O": "5C 6C JD QD KD 7S 8S 9S 10S 2D"},
    )
    assert result["layoffs"] == []
    assert result["deadwood"] == {"K": 6, "O": 13}
    assert result["outcome"] == "knock"
    assert result["deltas"] == {"K": 7, "O": 0}


# --- several players ---------------------------------------------------------------------

FOUR = ["Ana", "Ben", "Cy", "Di"]


def test_four_players_knock_each_loser_pays_the_difference() -> None:
    result = score(
        FOUR,
        "Cy",
        {
            "Cy": "2S 3S 4S 9C 9D 9H AD",
            "Di": "5C 6C 7C 8D 8S 8H KC",
            "Ana": "10D JD QD KH KS 2H 3H",
            "Ben": "10H JH QH 4D 4H 4C 5D",
        },
    )
    assert result["outcome"] == "knock"
    assert result["deadwood"] == {"Ana": 25, "Ben": 5, "Cy": 1, "Di": 10}
    assert result["penalties"] == {"Ana": 24, "Ben": 4, "Cy": 0, "Di": 9}
    assert result["deltas"] == {"Ana": 0, "Ben": 0, "Cy": 37, "Di": 0}


def test_undercut_tie_goes_to_the_first_after_the_knocker() -> None:
    # Di and Ana both undercut with 1; turn order after Cy is Di, Ana, Ben.
    hands = {
        "Cy": "2S 3S 4S 9C 9D 9H AD",
        "Di": "5C 6C 7C 8D 8S 8H AC",
        "Ana": "10D JD QD KC KH KS AH",
        "Ben": "10H JH QH 4D 4H 4C 5D",
    }
    result = score(FOUR, "Cy", hands)
    assert result["outcome"] == "undercut"
    assert result["winner"] == "Di"
    assert result["deadwood"] == {"Ana": 1, "Ben": 5, "Cy": 1, "Di": 1}
    assert result["penalties"] == {"Ana": 0, "Ben": 4, "Cy": 25, "Di": 0}
    assert result["deltas"] == {"Ana": 0, "Ben": 0, "Cy": 0, "Di": 29}
    # Knocker Ben: the order is Cy, Di, Ana; Cy undercuts Ben's 5 with 1 first.
    hands_ben = {
        "Ben": "10H JH QH 4D 4H 4C 5D",
        "Cy": "2S 3S 4S 9C 9D 9H AD",
        "Di": "5C 6C 7C 8D 8S 8H AC",
        "Ana": "10D JD QD KC KH KS AH",
    }
    result = score(FOUR, "Ben", hands_ben)
    assert result["winner"] == "Cy"
    assert result["penalties"] == {"Ana": 0, "Ben": 4 + 25, "Cy": 0, "Di": 0}


def test_lowest_undercutter_wins_over_an_earlier_one() -> None:
    hands = {
        "Cy": "2S 3S 4S 9C 9D 9H 6S",
        "Di": "5C 6C 7C 8D 8S 8H 3C",
        "Ana": "10D JD QD KC KH KS AH",
        "Ben": "10H JH QH 4D 4H 4C 5D",
    }
    result = score(FOUR, "Cy", hands)
    assert result["winner"] == "Ana"
    assert result["penalties"] == {"Ana": 0, "Ben": 4, "Cy": 6 - 1 + 25, "Di": 2}
    assert result["deltas"]["Ana"] == 36


THREE_HANDS = {
    "A": "5H 6H 7H QC QD QS AS",
    "B": "8H KC KD KH 2C 3C 10S",
    "C": "9H 4H 6S 7S 8S 2D 3D",
}


def test_no_building_on_another_opponents_layoff_by_default() -> None:
    result = score(["A", "B", "C"], "A", THREE_HANDS)
    assert result["layoffs"] == [
        {"player": "B", "cards": ["8H"], "onto": ["5H", "6H", "7H"]},
        {"player": "C", "cards": ["4H"], "onto": ["5H", "6H", "7H"]},
    ]
    assert result["deadwood"] == {"A": 1, "B": 15, "C": 14}
    assert result["penalties"] == {"A": 0, "B": 14, "C": 13}
    assert result["deltas"] == {"A": 27, "B": 0, "C": 0}


def test_layoff_on_layoffs_lets_the_next_opponent_build_on() -> None:
    result = score(["A", "B", "C"], "A", THREE_HANDS, layoff_on_layoffs=True)
    assert result["layoffs"] == [
        {"player": "B", "cards": ["8H"], "onto": ["5H", "6H", "7H"]},
        {"player": "C", "cards": ["4H"], "onto": ["5H", "6H", "7H"]},
        {"player": "C", "cards": ["9H"], "onto": ["5H", "6H", "7H"]},
    ]
    assert result["deadwood"] == {"A": 1, "B": 15, "C": 5}
    assert result["deltas"] == {"A": 14 + 4, "B": 0, "C": 0}
    # With C before B, the 8H is not there yet when C lays off.
    result = score(["A", "C", "B"], "A", THREE_HANDS, layoff_on_layoffs=True)
    assert result["deadwood"] == {"A": 1, "C": 14, "B": 15}


def test_an_opponent_lays_off_only_cards_that_help() -> None:
    # B's 8H sits in a set of four eights: laying it off would not lower B's deadwood, so B
    # keeps it, and C (even with layoff_on_layoffs) has nothing to build 9H on.
    hands = {
        "A": "5H 6H 7H QC QD QS AS",
        "B": "8H 8C 8D 8S 2C 3C 10S",
        "C": "9H 4H KS JS 2S 2D 3D",
    }
    result = score(["A", "B", "C"], "A", hands, layoff_on_layoffs=True)
    assert [layoff["player"] for layoff in result["layoffs"]] == ["C"]
    assert result["layoffs"][0]["cards"] == ["4H"]
    assert result["deadwood"]["C"] == 9 + 10 + 10 + 2 + 2 + 3


# --- impossible hands --------------------------------------------------------------------

TWO = {"Kai": "AH 2H 3H 7C 7D 7S JS QS KS 6D", "Olga": "2C 3C 4C 9D 9H 9C KD QH 8S 2D"}


@pytest.mark.parametrize(
    ("players", "knocker", "hands", "message"),
    [
        (["Kai", "Olga"], "Kai", {**TWO, "Olga": "2C 3C 4C 9D 9H 9C KD QH 8S"}, "9 cards"),
        (
            ["Kai", "Olga", "Pia"],
            "Kai",
            {**TWO, "Pia": "5D 6D 7D 8D 9S 10S JD"},
            "each hand laid down after the discard has 7",
        ),
        (["Kai", "Olga"], "Kai", {**TWO, "Olga": "2C 3C 4C 9D 9H 9C KD QH 8S AH"}, "AH is in"),
        (["Kai", "Olga"], "Kai", {**TWO, "Olga": "2C 3C 4C 9D 9H 9C KD QH 2D 2D"}, "2 times"),
        (["Kai", "Olga"], "Max", TWO, "knocker 'Max' is not one of the players"),
        (["Kai", "Olga"], "Kai", {**TWO, "Max": "AD"}, "'Max', who is not one of the players"),
        (["Kai", "Olga"], "Kai", {"Kai": TWO["Kai"]}, "no cards given for Olga"),
        (["Kai"], "Kai", {"Kai": TWO["Kai"]}, "2 to 4 players, not 1"),
        (["A", "B", "C", "D", "E"], "A", {}, "2 to 4 players, not 5"),
        (["Kai", "Kai"], "Kai", {"Kai": TWO["Kai"]}, "named twice"),
        (
            ["Kai", "Olga"],
            "Olga",
            TWO,
            "Olga cannot knock: deadwood 30 (2D, 8S, QH, KD) is over the limit of 10",
        ),
    ],
)
def test_impossible_hands_are_errors(
    players: list[str], knocker: str, hands: dict[str, str], message: str
) -> None:
    with pytest.raises(HandError, match=message.replace("(", r"\(").replace(")", r"\)")):
        score(players, knocker, hands)


def test_a_joker_in_a_hand_is_an_error() -> None:
    with pytest.raises(PieceError, match="without jokers"):
        score(["Kai", "Olga"], "Kai", {**TWO, "Olga": "2C 3C 4C 9D 9H 9C KD QH 8S JK"})


def test_malformed_hand_json_is_an_error() -> None:
    with pytest.raises(HandError):
        api.score("gin", {}, {"players": "Kai Olga", "knocker": "Kai", "hands": {}})
    with pytest.raises(HandError):
        api.score("gin", {}, {"players": ["Kai", "Olga"], "knocker": "Kai", "hands": []})


# --- CLI ---------------------------------------------------------------------------------


def test_cli_score_prints_the_contract(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hand = {
        "players": ["Kai", "Olga"],
        "knocker": "Kai",
        "hands": {k: v.split() for k, v in TWO.items()},
    }
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(hand)))
    assert meldcam_main(["score", "--game", "gin"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["outcome"] == "knock"
    assert printed["winner"] == "Kai"
    assert printed["deltas"] == {"Kai": 24, "Olga": 0}
    assert printed["deadwood"] == {"Kai": 6, "Olga": 30}
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(hand)))
    assert meldcam_main(["score", "--game", "gin", "--option", "knock_limit=5"]) == 2
    assert "over the limit of 5" in capsys.readouterr().err
