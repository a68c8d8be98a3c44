"""Shared number-tile logic: meld readings and reasons, the table search, the best-layout engine."""

import time
from collections import Counter

import pytest

from scorer.errors import HandError, PieceError
from scorer.games import make_rules
from scorer.numbertiles import judge_meld, lonely_tile, rack_value, solve_number_tiles
from scorer.pieces import Joker, Tile, parse_tile


def tiles(text: str) -> list:
    return [parse_tile(name) for name in text.split()]


@pytest.fixture
def rummikub():
    return make_rules("rummikub")


@pytest.fixture
def remik4():
    return make_rules("remik", {"jokers": 4})


# --- melds ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "meld, kind, value, readings",
    [
        ("red-1 red-2 red-3", "run", 6, (6,)),
        ("red-3 red-1 red-2", "run", 6, (6,)),  # order does not matter
        ("blue-11 blue-12 blue-13", "run", 36, (36,)),
        ("red-5 blue-5 black-5", "group", 15, (15,)),
        ("red-5 blue-5 black-5 orange-5", "group", 20, (20,)),
        ("red-5 joker red-7", "run", 18, (18,)),  # unambiguous: the joker is red-6
        ("joker red-5 red-6", "run", 18, (15, 18)),  # 4 or 7: highest reading
        ("red-12 red-13 joker", "run", 36, (36,)),  # no wrap: only 11
        ("joker red-1 red-2", "run", 6, (6,)),  # only 3
        ("red-9 blue-9 joker", "group", 27, (27,)),
        ("red-9 blue-9 joker joker", "group", 36, (36,)),
        ("red-5 joker joker", "run", 18, (12, 15, 18)),  # 3-4-5 ... 5-6-7 or a group of 5s
        ("red-1 joker joker", "run", 6, (3, 6)),  # run 1-2-3 or the group of 1s
        ("red-2 joker red-4 joker", "run", 14, (10, 14)),  # 1-4 or 2-5
    ],
)
def test_valid_melds(rummikub, meld, kind, value, readings):
    verdict = rummikub.check_meld(tiles(meld))
    assert verdict.valid and verdict.reason is None
    assert (verdict.kind, verdict.value, verdict.readings) == (kind, value, readings)


def test_kind_is_the_kind_of_the_highest_reading():
    # red-2 joker joker: run 2-3-4 = 9, run 1-2-3 = 6, or the group of 2s = 6
    verdict = judge_meld(tiles("red-2 joker joker"), 13)
    assert verdict.readings == (6, 9) and verdict.kind == "run"
    verdict = judge_meld(tiles("blue-4 joker joker"), 4)  # 2-3-4 = 9, group of 4s = 12
    assert verdict.kind == "group" and verdict.value == 12
    verdict = judge_meld(tiles("blue-3 joker joker"), 3)  # 1-2-3 = 6, group of 3s = 9
    assert verdict.kind == "group"
    verdict = judge_meld(tiles("blue-3 joker joker"), 4)  # 2-3-4 = 9 ties the group of 3s
    assert verdict.kind == "run" and verdict.readings == (6, 9)
    # red-13 joker joker: run 11-12-13 = 36 or the group of 13s = 39
    verdict = judge_meld(tiles("red-13 joker joker"), 13)
    assert verdict.readings == (36, 39) and verdict.kind == "group" and verdict.value == 39


def test_jokers_only_meld_is_legal_with_every_reading(remik4):
    three = remik4.check_meld(tiles("joker joker joker"))
    assert three.valid and three.value == 39 and three.kind == "group"
    assert 6 in three.readings and 36 in three.readings
    four = remik4.check_meld(tiles("joker joker joker joker"))
    assert four.valid and four.value == 52  # four 13s


def test_extended_set_runs_go_to_17():
    remik17 = make_rules("remik", {"numbers": 17})
    verdict = remik17.check_meld(tiles("red-15 red-16 red-17 joker"))
    assert verdict.valid and verdict.readings == (62,)
    long_run = tiles(" ".join(f"blue-{n}" for n in range(1, 18)))
    assert remik17.check_meld(long_run).value == sum(range(1, 18))


@pytest.mark.parametrize(
    "meld, reason",
    [
        ("red-1 red-2", "a meld needs at least 3 tiles; this one has 2"),
        ("joker red-2", "a meld needs at least 3 tiles; this one has 2"),
        ("blue-1 red-2 black-3", "runs need one colour: blue-1 and red-2 differ"),
        ("red-5 blue-6 black-5", "groups need one number: red-5 and blue-6 differ"),
        (
            "red-5 blue-5 red-6",
            "neither a run (one colour: red-5 and blue-5 differ) "
            "nor a group (one number: red-5 and red-6 differ)",
        ),
        ("red-5 red-5 blue-5", "groups need different colours: red is there twice (red-5)"),
        ("red-5 blue-5 black-5 orange-5 joker", "a group has at most 4 tiles"),
        ("red-4 red-5 red-5 red-6", "a run cannot hold the same number twice: red-5"),
        ("red-4 red-7 red-8", "the run has a gap: red-5, red-6 missing, and no joker to fill"),
        (
            "red-2 joker red-6",
            "the run has a gap: red-3, red-4, red-5 missing, only 1 joker to fill",
        ),
        ("red-2 red-9 red-10", "the run has a gap: 6 tiles between red-2 and red-10 missing"),
        (
            "red-12 red-13 red-1",
            "runs do not wrap around: red-13 and red-1 cannot sit side by side",
        ),
    ],
)
def test_reasons(rummikub, meld, reason):
    verdict = rummikub.check_meld(tiles(meld))
    assert not verdict.valid
    assert verdict.kind is None and verdict.value is None
    assert verdict.reason.startswith(reason)


def test_run_longer_than_the_numbers():
    run14 = tiles(" ".join(f"red-{n}" for n in range(1, 14)) + " joker")
    verdict = judge_meld(run14, 13)
    assert verdict.reason == "a run has at most 13 tiles (1 to 13); this one has 14"


def test_jokers_alone_too_many_for_any_meld():
    assert judge_meld([Joker()] * 5, 4).reason == "5 jokers alone make no meld in this set"


def test_meld_pieces_are_checked_against_the_set(rummikub):
    with pytest.raises(HandError, match="joker appears 3 times"):
        rummikub.check_meld(tiles("joker joker joker"))
    with pytest.raises(PieceError, match="red-15: tiles in this set run from 1 to 13"):
        rummikub.check_meld([Tile("red", 15), Tile("red", 14), Tile("red", 13)])
    with pytest.raises(PieceError, match="played without jokers"):
        make_rules("rummikub", {"jokers": 0}).check_meld([Joker(), Tile("red", 1), Tile("red", 2)])


def test_rack_value_counts_a_joker_30():
    assert rack_value(tiles("red-7 joker blue-13")) == 50


# --- openings ---------------------------------------------------------------------------------


def test_opening_sums_the_melds(rummikub):
    verdict = rummikub.check_opening([tiles("red-8 red-9 red-10"), tiles("blue-1 blue-2 blue-3")])
    assert (verdict.value, verdict.threshold, verdict.valid, verdict.reason) == (33, 30, True, None)


def test_opening_short_of_points(rummikub):
    verdict = rummikub.check_opening([tiles("red-1 red-2 red-3"), tiles("red-5 blue-5 black-5")])
    assert not verdict.valid and verdict.value == 21
    assert verdict.reason == "21 of 30 points: an opening needs 30"


def test_opening_counts_a_joker_at_its_highest_reading(rummikub):
    verdict = rummikub.check_opening([tiles("joker red-9 red-10")])  # 8-9-10 = 27 or 9-10-11 = 30
    assert verdict.valid and verdict.value == 30


def test_opening_with_an_invalid_meld(rummikub):
    verdict = rummikub.check_opening([tiles("red-10 red-11 red-12"), tiles("red-1 blue-2 red-3")])
    assert not verdict.valid and verdict.value == 33
    assert verdict.reason.startswith("meld 2 is not valid: runs need one colour")


def test_opening_pieces_across_melds_are_checked(rummikub):
    with pytest.raises(HandError, match="red-5 appears 3 times"):
        rummikub.check_opening(
            [
                tiles("red-5 blue-5 black-5"),
                tiles("red-5 blue-5 orange-5"),
                tiles("red-4 red-5 red-6"),
            ]
        )


def test_opening_needs_a_meld(rummikub):
    verdict = rummikub.check_opening([])
    assert not verdict.valid and verdict.reason == "an opening needs at least one meld"


# --- tables -----------------------------------------------------------------------------------


def assert_layout(rules, pieces, melds):
    assert Counter(p for meld in melds for p in meld) == Counter(pieces)
    for meld in melds:
        assert rules.check_meld(list(meld)).valid, meld


def test_table_layout_puts_jokers_where_they_stand(rummikub):
    pieces = tiles("red-9 red-1 red-2 red-3 red-4 blue-4 black-4 joker red-7")
    verdict = rummikub.arrange_table(pieces)
    assert verdict.valid and verdict.reason is None
    assert_layout(rummikub, pieces, verdict.melds)
    assert tiles("red-7 joker red-9") in [list(m) for m in verdict.melds]


def test_table_with_a_tile_that_fits_nowhere(rummikub):
    verdict = rummikub.arrange_table(tiles("red-1 red-2 red-3 red-4 blue-4 black-4 red-9"))
    assert not verdict.valid and verdict.melds is None
    assert verdict.reason == "red-9 fits in no run or group with these tiles"


def test_table_names_every_tile_that_fits_nowhere(rummikub):
    verdict = rummikub.arrange_table(tiles("red-1 red-2 red-3 blue-9 black-5 orange-12"))
    assert verdict.reason == "black-5, blue-9, orange-12 fit in no run or group with these tiles"
    assert lonely_tile(tiles("red-1 red-2 red-3 blue-9 black-5"), 13) == Tile("black", 5)


def test_table_where_every_tile_fits_somewhere_but_not_all_at_once(rummikub):
    # red-4 is wanted by the run 2-3-4 and the group of 4s at once
    verdict = rummikub.arrange_table(tiles("red-2 red-3 red-4 blue-4 black-4"))
    assert not verdict.valid
    assert verdict.reason == "these tiles cannot all be laid out as runs and groups at once"


def test_table_runs_need_no_wrap(rummikub):
    assert not rummikub.arrange_table(tiles("red-12 red-13 red-1")).valid


def test_table_edge_cases(rummikub, remik4):
    assert rummikub.arrange_table([]).valid
    verdict = rummikub.arrange_table(tiles("red-1 red-2"))
    assert verdict.reason == "a meld needs at least 3 tiles; the table has 2"
    with pytest.raises(HandError, match="blue-3 appears 3 times on the table"):
        rummikub.arrange_table(tiles("blue-3 blue-3 blue-3 red-3 black-3"))
    all_jokers = remik4.arrange_table(tiles("joker joker joker joker"))
    assert all_jokers.valid and all_jokers.melds == (tuple(tiles("joker joker joker joker")),)


def test_table_with_two_copies_makes_parallel_runs(rummikub):
    pieces = tiles("red-1 red-1 red-2 red-2 red-3 red-3 red-4 joker")
    verdict = rummikub.arrange_table(pieces)
    assert verdict.valid
    assert_layout(rummikub, pieces, verdict.melds)


def test_groups_of_a_number_with_both_copies(rummikub):
    pieces = tiles("red-7 red-7 blue-7 blue-7 black-7 orange-7 joker")
    verdict = rummikub.arrange_table(pieces)
    assert verdict.valid
    assert_layout(rummikub, pieces, verdict.melds)
    assert all(len(m) in (3, 4) for m in verdict.melds)


def test_full_set_is_fast():
    remik = make_rules("remik", {"numbers": 17, "jokers": 4})
    pieces = list(remik.universe.elements())
    started = time.perf_counter()
    verdict = remik.arrange_table(pieces)
    assert verdict.valid
    assert_layout(remik, pieces, verdict.melds)
    without_one = pieces[:]
    without_one.remove(Tile("red", 8))
    assert remik.arrange_table(without_one).valid
    assert time.perf_counter() - started < 5


def test_lonely_tile():
    assert lonely_tile(tiles("red-1 red-2 red-3 blue-9"), 13) == Tile("blue", 9)
    assert lonely_tile(tiles("red-1 red-2 red-3 blue-9 joker"), 13) == Tile("blue", 9)
    assert lonely_tile(tiles("red-1 red-2 red-3 blue-9 joker joker"), 13) is None
    assert lonely_tile(tiles("red-9 blue-9 joker"), 13) is None
    assert lonely_tile(tiles("blue-9 blue-11 joker"), 13) is None


# --- the one search, as the best-move finder asks it: table required, rack optional ----------


def test_arrange_places_as_much_of_the_rack_as_possible():
    table = tiles("red-3 red-4 red-5 blue-7 black-7 orange-7")
    rack = tiles("red-6 red-7 blue-1 joker")
    found = solve_number_tiles(table, rack, 13)
    assert found is not None
    # red-6 and red-7 extend the run (red-7 could also join the 7s); the joker can go anywhere
    assert Counter(found.placed) == Counter(tiles("red-6 red-7 joker"))
    laid = Counter(p for meld in found.melds for p in meld)
    assert laid == Counter(table) + Counter(found.placed)
    for meld in found.melds:
        assert judge_meld(list(meld), 13).valid


def test_arrange_rejects_an_impossible_table_whatever_the_rack():
    assert solve_number_tiles(tiles("red-1 red-2"), tiles("red-3"), 13) is not None
    assert solve_number_tiles(tiles("red-1 blue-2"), tiles("red-3 joker"), 13) is None


def test_arrange_may_place_nothing():
    found = solve_number_tiles(tiles("red-1 red-2 red-3"), tiles("blue-9"), 13)
    assert found is not None and found.placed == ()
