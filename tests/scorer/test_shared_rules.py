"""One rule, one answer in every game (issue 23 item 2): the opening check and the tie when
the stock runs out are each written once (scorer.game.judge_opening, scorer.hands.tied_hand)."""

from __future__ import annotations

import pytest

from scorer import api

# per game: two valid melds and an invalid one
MELDS = {
    "rummikub": (
        ["red-10", "red-11", "red-12"],
        ["blue-9", "black-9", "red-9"],
        ["red-1", "blue-2", "red-3"],
    ),
    "remik": (
        ["red-10", "red-11", "red-12"],
        ["blue-9", "black-9", "red-9"],
        ["red-1", "blue-2", "red-3"],
    ),
    "remino": (["3-8", "4-8", "5-8"], ["0-7", "1-6", "3-4"], ["2-9", "4-9", "5-9"]),
    "domino-gin": (
        ["0-6", "1-5", "2-4", "3-3"],
        ["2-6", "3-6", "4-6", "5-6"],
        ["1-1", "1-2", "2-5", "2-6"],
    ),
    "gin": (["AH", "2H", "3H"], ["5C", "5D", "5S"], ["7C", "8D", "9S"]),
}


@pytest.mark.parametrize("game", list(MELDS))
def test_an_opening_is_judged_the_same_way_in_every_game(game):
    good, other, bad = MELDS[game]
    verdict = api.check(game, {}, [good, other], opening=True)["opening"]
    assert verdict["valid"] is True and "reason" not in verdict
    verdict = api.check(game, {}, [good, bad], opening=True)["opening"]
    assert verdict["valid"] is False
    assert verdict["reason"].startswith("meld 2 is not valid: ")


@pytest.mark.parametrize("game", list(MELDS))
def test_no_meld_is_no_opening_in_any_game(game):
    """Gin has no opening threshold, but an opening of no melds lays nothing down: not valid,
    as in every other game (docs/choices/gin.md)."""
    rules = api.make_rules(game, {})
    verdict = rules.check_opening([])
    assert (verdict.value, verdict.valid) == (0, False)
    assert verdict.reason == "an opening needs at least one meld"


@pytest.mark.parametrize(
    "game, racks",
    [
        ("rummikub", {"ann": ["red-5"], "bob": ["blue-5"], "cy": ["joker"]}),
        ("remik", {"ann": ["red-5"], "bob": ["blue-5"], "cy": ["joker"]}),
        ("remino", {"ann": ["1-4"], "bob": ["0-5"], "cy": ["4-5"]}),
    ],
)
def test_a_tie_when_the_stock_runs_out_is_the_same_outcome_in_every_game(game, racks):
    hand = {"players": ["ann", "bob", "cy"], "winner": None, "racks": racks}
    result = api.score(game, {}, hand)
    assert (result["outcome"], result["winner"]) == ("tie", None)
    assert result["deltas"] == {"ann": 0, "bob": 0, "cy": 0}
    assert result["tied"] == ["ann", "bob"]
