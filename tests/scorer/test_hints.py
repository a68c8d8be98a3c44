"""The move finder (issue 7): worked positions, opening rules, errors and the CLI contract."""

import io
import json
import sys
from collections import Counter

import pytest

from meldcam.cli import main
from scorer import api
from scorer.errors import HandError, OptionError, PieceError
from scorer.games import make_rules


def hint(game, position, **options):
    return api.hint(game, options, position)


def as_sets(table):
    return Counter(tuple(sorted(meld)) for meld in table)


def assert_legal(game, result, position, **options):
    """The new table is legal melds made of the old table plus exactly the placed pieces."""
    rules = make_rules(game, options)
    for meld in result["table"]:
        verdict = rules.check_meld([rules.parse(name) for name in meld])
        assert verdict.valid, (meld, verdict.reason)
    table = position["table"]
    old = [name for entry in table for name in ([entry] if isinstance(entry, str) else entry)]
    new = [name for meld in result["table"] for name in meld]
    assert Counter(new) == Counter(old) + Counter(result["placed"])
    assert not Counter(result["placed"]) - Counter(position["rack"])
    assert result["count"] == len(result["placed"])


# --- after opening ------------------------------------------------------------------------------


def test_extends_a_run_and_keeps_the_other_meld():
    position = {
        "table": [["red-3", "red-4", "red-5"], ["blue-7", "black-7", "orange-7"]],
        "rack": ["red-6", "blue-1"],
        "opened": True,
    }
    result = hint("rummikub", position)
    assert result["placed"] == ["red-6"] and result["count"] == 1 and result["value"] == 6
    assert ["blue-7", "black-7", "orange-7"] in result["table"]  # untouched, as given
    assert as_sets(result["table"]) == as_sets(
        [["red-3", "red-4", "red-5", "red-6"], ["blue-7", "black-7", "orange-7"]]
    )
    assert_legal("rummikub", result, position)


def test_a_new_meld_from_the_rack_is_preferred_to_changing_the_table():
    # red-6 red-7 joker could extend red-3..5 too: same count and value, fewer melds changed
    position = {
        "table": [["red-3", "red-4", "red-5"], ["blue-7", "black-7", "orange-7"]],
        "rack": ["red-6", "red-7", "joker"],
        "opened": True,
    }
    result = hint("rummikub", position)
    assert result["count"] == 3 and result["value"] == 6 + 7 + 30
    assert result["table"][:2] == position["table"]
    assert_legal("rummikub", result, position)


def test_rearranging_the_table_places_more():
    # red-6 needs red-7 from the group; the group survives with orange-7 and blue-7 + black-7
    position = {
        "table": [["red-7", "blue-7", "black-7", "orange-7"], ["red-8", "red-9", "red-10"]],
        "rack": ["red-6"],
        "opened": True,
    }
    result = hint("rummikub", position)
    assert result["placed"] == ["red-6"]
    assert as_sets(result["table"]) == as_sets(
        [["blue-7", "black-7", "orange-7"], ["red-6", "red-7", "red-8", "red-9", "red-10"]]
    )
    assert_legal("rummikub", result, position)


def test_a_joker_on_the_table_moves_when_its_tile_is_played():
    position = {
        "table": [["red-3", "joker", "red-5"]],
        "rack": ["red-4", "blue-9", "black-9"],
        "opened": True,
    }
    result = hint("rummikub", position)
    assert sorted(result["placed"]) == ["black-9", "blue-9", "red-4"]
    assert as_sets(result["table"]) == as_sets(
        [["red-3", "red-4", "red-5"], ["blue-9", "black-9", "joker"]]
    )
    assert_legal("rummikub", result, position)


@pytest.mark.parametrize(
    "table, rack",
    [
        # where the reference (rummikub-solver) never puts a joker
        ([["red-4", "red-5", "red-6", "red-7"]], ["joker"]),  # the end of a run of 5
        ([["red-5", "blue-5", "black-5"]], ["joker"]),  # a group of 4
        ([["red-1", "red-2", "red-3"]], ["joker", "joker"]),  # both at the top end
    ],
)
def test_jokers_anywhere_the_rules_allow(table, rack):
    position = {"table": table, "rack": rack, "opened": True}
    result = hint("rummikub", position)
    assert result["count"] == len(rack)
    assert_legal("rummikub", result, position)


def test_more_pieces_beat_more_points_and_then_more_points_win():
    position = {
        "table": [],
        "rack": ["joker", "red-1", "red-2", "red-12", "red-13"],
        "opened": True,
    }
    result = hint("rummikub", position)
    # one joker: either 1-2-3 or 11-12-13; the same count, the high one is worth more
    assert sorted(result["placed"]) == ["joker", "red-12", "red-13"]
    assert result["value"] == 30 + 12 + 13


def test_nothing_to_lay_down():
    position = {
        "table": [["red-3", "red-4", "red-5"]],
        "rack": ["blue-9", "red-11"],
        "opened": True,
    }
    result = hint("rummikub", position)
    assert result == {
        "placed": [],
        "table": [["red-3", "red-4", "red-5"]],
        "count": 0,
        "value": 0,
    }


def test_a_flat_table_is_laid_out_for_the_player():
    position = {"table": ["red-5", "red-3", "red-4", "blue-8", "black-8", "red-8"],
                "rack": ["red-6", "orange-8"], "opened": True}  # fmt: skip
    result = hint("rummikub", position)
    assert result["count"] == 2
    assert as_sets(result["table"]) == as_sets(
        [["red-3", "red-4", "red-5", "red-6"], ["blue-8", "black-8", "red-8", "orange-8"]]
    )
    assert_legal("rummikub", result, position)


def test_remik_extended_tiles():
    position = {
        "table": [["red-14", "red-15", "red-16"]],
        "rack": ["red-17", "blue-17"],
        "opened": True,
    }
    result = hint("remik", position, numbers=17)
    assert result["placed"] == ["red-17"]
    assert_legal("remik", result, position, numbers=17)


# --- openings -----------------------------------------------------------------------------------


def test_an_opening_uses_the_rack_alone_and_leaves_the_table():
    position = {
        "table": [["red-3", "red-4", "red-5"]],
        "rack": ["red-6", "blue-10", "red-10", "black-10"],
        "opened": False,
    }
    result = hint("rummikub", position)
    # red-6 would fit on the table, but before opening the table may not be touched
    assert sorted(result["placed"]) == ["black-10", "blue-10", "red-10"]  # 30: enough
    assert result["table"][0] == ["red-3", "red-4", "red-5"]
    assert_legal("rummikub", result, position)


def test_an_opening_below_the_threshold_is_no_move():
    position = {"table": [], "rack": ["red-1", "red-2", "red-3", "blue-9", "black-9"]}
    assert hint("rummikub", position)["count"] == 0  # 6 < 30; opened defaults to false
    assert hint("rummikub", position, opening=6)["count"] == 3


def test_an_opening_counts_jokers_at_the_number_they_stand_for():
    # red-9 red-10 joker: 9-10-11 = 30 (joker as 11)
    position = {"table": [], "rack": ["red-9", "red-10", "joker"], "opened": False}
    result = hint("rummikub", position)
    assert result["count"] == 3
    assert hint("remik", position)["count"] == 0  # Remik basic needs 36


def test_remik_three_melds():
    rack = ["red-1", "red-2", "red-3", "red-4", "red-5", "red-6", "blue-12", "black-12",
            "orange-12", "red-12"]  # fmt: skip
    position = {"table": [], "rack": rack, "opened": False}
    one = hint("remik", position, min_melds=3)
    # 1-6 split in two runs, plus the 12s: three melds worth 6 + 15 + 48
    assert one["count"] == 10 and len(one["table"]) == 3
    short = {"table": [], "rack": [*rack[:6], "blue-12"], "opened": False}
    assert hint("remik", short, min_melds=3)["count"] == 0  # two melds only: 1-3 and 4-6
    assert hint("remik", short, min_melds=1, opening=21)["count"] == 6


# --- errors and the CLI -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "position, error, words",
    [
        ({"table": [["red-3", "red-4", "blue-5"]], "rack": ["red-6"], "opened": True},
         HandError, "meld 1 (red-3 red-4 blue-5)"),
        ({"table": ["red-3", "red-4", "red-4"], "rack": ["red-6"], "opened": True},
         HandError, "the table is not valid"),
        ({"table": [], "rack": ["red-6", "red-6", "red-6"], "opened": True},
         HandError, "red-6 appears 3 times"),
        ({"table": [["red-6", "joker", "joker"]], "rack": ["joker"], "opened": True},
         HandError, "joker appears 3 times"),
        ({"table": [], "rack": ["red-14"], "opened": True}, PieceError, "1 to 13"),
        ({"table": [], "rack": ["red-1"], "opened": "yes"}, HandError, "true or false"),
        ({"table": [], "rack": ["red-1"], "turn": 3}, HandError, "unknown key"),
        ({"table": []}, HandError, "needs a rack"),
        ({"table": ["red-1", ["red-2"]], "rack": []}, HandError, "not a mix"),
        (["red-1"], HandError, "JSON object"),
    ],
)  # fmt: skip
def test_bad_positions_are_explained(position, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        hint("rummikub", position)


def test_games_without_hints():
    with pytest.raises(OptionError, match="hints exist for"):
        hint("gin", {"table": [], "rack": ["QH"]})


def run_cli(capsys, monkeypatch, stdin, *argv):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["hint", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_prints_the_contract(capsys, monkeypatch):
    position = {"table": [["red-3", "red-4", "red-5"]], "rack": ["red-6", "red-7"], "opened": True}
    code, out, _ = run_cli(capsys, monkeypatch, json.dumps(position), "--game", "rummikub")
    assert code == 0
    assert json.loads(out) == {
        "placed": ["red-6", "red-7"],
        "table": [["red-3", "red-4", "red-5", "red-6", "red-7"]],
        "count": 2,
        "value": 13,
    }


def test_cli_options_and_errors(capsys, monkeypatch):
    position = {"table": [], "rack": ["red-15", "red-16", "red-17"], "opened": True}
    code, out, _ = run_cli(
        capsys, monkeypatch, json.dumps(position), "--game", "remik", "--option", "numbers=17"
    )
    assert code == 0 and json.loads(out)["count"] == 3
    code, out, err = run_cli(capsys, monkeypatch, "{not json", "--game", "rummikub")
    assert code == 2 and out == "" and "not valid JSON" in err
    bad = {"table": [["red-1", "blue-2", "red-3"]], "rack": ["red-4"], "opened": True}
    code, out, err = run_cli(capsys, monkeypatch, json.dumps(bad), "--game", "rummikub")
    assert code == 2 and "the table is not valid: meld 1" in err


# --- Remino -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rack, table, expected",
    [
        # RULES.md "Remino", the source's three worked manipulations
        (
            ["2-5", "6-8"],
            [["3-8", "4-8", "5-8"], ["0-7", "1-6", "3-4"]],
            [["3-8", "4-8", "5-8", "6-8"], ["2-5", "0-7", "1-6", "3-4"]],
        ),
        (
            ["1-4", "3-4"],
            [["0-6", "1-5", "2-4", "3-3"]],
            [["1-4", "2-4", "3-4"], ["0-6", "1-5", "3-3"]],
        ),
        (
            ["4-5", "1-5", "3-3"],
            [["2-4", "3-4", "4-4"]],
            [["3-4", "4-4", "4-5"], ["2-4", "1-5", "3-3"]],
        ),
    ],
)
def test_remino_the_sources_manipulations_are_found(rack, table, expected):
    position = {"table": table, "rack": rack, "opened": True}
    result = hint("remino", position)
    assert sorted(result["placed"]) == sorted(rack)
    assert result["count"] == len(rack)
    assert result["value"] == sum(int(a) + int(b) for a, b in (p.split("-") for p in rack))
    assert as_sets(result["table"]) == as_sets(expected)
    assert_legal("remino", result, position)
    # the same table given flat
    flat = {"table": [p for meld in table for p in meld], "rack": rack, "opened": True}
    assert hint("remino", flat)["count"] == len(rack)


def test_remino_jokers_and_openings():
    table = [["2-4", "3-4", "4-4"]]
    # 9-9 is a joker in double-nine: it joins the group of 6 (value 30 on the rack)
    opened = hint("remino", {"table": table, "rack": ["4-5", "1-5", "3-3", "9-9"], "opened": True})
    assert opened["count"] == 4 and opened["value"] == 9 + 6 + 6 + 30
    # before opening only the rack counts: 1-5 3-3 and a joker make a group of 6
    rack = ["4-5", "1-5", "3-3", "0-0", "7-8"]
    first = hint("remino", {"table": table, "rack": rack, "opened": False})
    assert sorted(first["placed"]) == ["0-0", "1-5", "3-3"]
    assert first["table"][0] == ["2-4", "3-4", "4-4"]
    assert hint("remino", {"table": [], "rack": ["1-5", "3-3", "7-8"]})["count"] == 0
    assert hint("remino", {"table": [], "rack": ["1-5", "3-3", "2-4"]}, opening=20)["count"] == 0


def test_remino_errors():
    with pytest.raises(HandError, match="meld 1"):
        hint("remino", {"table": [["1-2", "5-6", "7-8"]], "rack": ["1-3"], "opened": True})
    with pytest.raises(HandError, match="appears 2 times"):
        hint("remino", {"table": [["1-2", "2-2", "3-2"]], "rack": ["1-2"], "opened": True})
