"""The integer program behind the move finder's hard positions (scorer.tilemip), and budgets."""

import random
import time
from collections import Counter

import pytest

from scorer import tilemip
from scorer.games import make_rules
from scorer.hints import Position, hint, number_tile_hint
from scorer.numbertiles import judge_meld, rack_value, solve_number_tiles
from scorer.pieces import COLOURS, Joker, Tile
from scorer.sets import number_tiles

JOKER = Joker()


def random_position(rng, numbers, jokers, table_size, rack_size):
    """Valid melds (runs, groups, a joker now and then) until the table holds ~table_size."""
    pool = Counter(number_tiles(numbers, jokers))
    melds = []
    while sum(map(len, melds)) < table_size:
        if rng.random() < 0.5:
            size = rng.choice([3, 4, 5])
            colour, start = rng.choice(COLOURS), rng.randint(1, numbers - size + 1)
            meld = [Tile(colour, n) for n in range(start, start + size)]
        else:
            number = rng.randint(1, numbers)
            meld = [Tile(c, number) for c in rng.sample(COLOURS, rng.choice([3, 4]))]
        if rng.random() < 0.2:
            meld[rng.randrange(len(meld))] = JOKER
        if not Counter(meld) - pool:
            pool -= Counter(meld)
            melds.append(meld)
    return melds, rng.sample(list(pool.elements()), rack_size)


def check(found, table, rack, numbers):
    assert not Counter(found.placed) - Counter(rack)
    assert Counter(p for m in found.melds for p in m) == Counter(table) + Counter(found.placed)
    for meld in found.melds:
        assert judge_meld(meld, numbers).valid, meld


@pytest.mark.parametrize(("numbers", "jokers"), [(13, 2), (17, 4), (13, 0)])
def test_the_integer_program_matches_the_search(numbers, jokers):
    rng = random.Random(numbers * 10 + jokers)
    for _ in range(12):
        melds, rack = random_position(rng, numbers, jokers, 24, 8)
        table = [p for m in melds for p in m]
        search = solve_number_tiles(table, rack, numbers, search_calls=10**9)
        program = solve_number_tiles(table, rack, numbers, search_calls=0)
        assert search is not None and program is not None
        check(program, table, rack, numbers)
        assert program.exact
        assert (len(program.placed), rack_value(program.placed)) == (
            len(search.placed),
            rack_value(search.placed),
        ), (melds, rack)


def test_openings_in_the_integer_program():
    rack = [Tile("red", n) for n in range(1, 7)] + [JOKER]
    found = solve_number_tiles([], rack, 13, (28, 2), search_calls=0)
    assert found is not None
    check(found, [], rack, 13)
    assert len(found.placed) == 7 and len(found.melds) >= 2  # red-4 red-5 red-6 joker: 22
    assert sum(judge_meld(m, 13).value for m in found.melds) >= 28
    assert solve_number_tiles([], rack[:3], 13, (30, 1), search_calls=0) is None


def test_the_relaxation_bounds_the_best():
    rng = random.Random(5)
    for _ in range(10):
        melds, rack = random_position(rng, 13, 2, 40, 10)
        table = [p for m in melds for p in m]
        best = solve_number_tiles(table, rack, 13, search_calls=10**9)
        relaxation = tilemip.relax(table, rack, 13)
        assert relaxation is not None
        assert (len(best.placed), rack_value(best.placed)) <= relaxation.upper_bound()


def test_jokers_only_and_no_layout():
    found = solve_number_tiles([JOKER] * 3, [], 13, search_calls=0)
    assert found is not None and found.melds == ((JOKER,) * 3,)
    assert solve_number_tiles([Tile("red", 1)], [], 13, search_calls=0) is None


def test_a_budget_gives_the_best_found_marked(monkeypatch):
    """When the integer program finds nothing in time, nothing laid down, marked not exact."""

    def too_slow(*args, **kwargs):
        raise TimeoutError

    monkeypatch.setattr(tilemip.Relaxation, "integral", lambda self: None)
    monkeypatch.setattr(tilemip.Relaxation, "branch_and_bound", too_slow)
    monkeypatch.setattr("scorer.numbertiles.SEARCH_CALLS", 0)
    rules = make_rules("rummikub")
    melds = [[Tile("red", 1), Tile("red", 2), Tile("red", 3)]]
    position = Position(tuple(map(tuple, melds)), tuple(melds[0]), (Tile("red", 4),), True)
    found = number_tile_hint(rules, position, deadline=time.perf_counter() + 0.01)
    assert not found.exact and found.placed == ()
    answer = found.to_json()
    assert answer["exact"] is False and "may not be the best" in answer["note"]
    assert answer["table"] == [["red-1", "red-2", "red-3"]]


def test_hard_positions_answer_within_a_budget():
    """Whatever the position, a budget bounds the answer's time (a little over is allowed)."""
    rng = random.Random(3)
    rules = make_rules("rummikub")
    for _ in range(5):
        melds, rack = random_position(rng, 13, 2, 60, 14)
        position = {"table": [[p.name for p in m] for m in melds], "rack": [p.name for p in rack]}
        position["opened"] = True
        start = time.perf_counter()
        answer = hint(rules, position, budget=0.05).to_json()
        assert time.perf_counter() - start < 2.0
        assert answer.get("exact", True) in (True, False)


def test_exact_answers_carry_no_marker():
    rules = make_rules("rummikub")
    answer = hint(rules, {"table": [], "rack": ["red-1", "red-2", "red-3"], "opened": True})
    assert "exact" not in answer.to_json() and answer.exact


def test_remino_hints_stop_at_their_budget():
    rules = make_rules("remino")
    position = {"table": [], "rack": ["1-2", "1-3", "1-4", "5-5"], "opened": True}
    assert hint(rules, position).exact
    late = hint(rules, position, budget=0.0)
    assert not late.exact and late.placed == ()
    assert late.to_json()["note"]


def test_the_solver_prints_nothing_and_leaves_stdout_alone():
    """A fresh process (HiGHS' banner comes with a process's first solver) solves a position by
    the program with file 1 never redirected (the web server's other threads write there) and
    prints nothing on it."""
    import subprocess
    import sys

    program = (
        "import os\n"
        "def refused(*args):\n"
        "    raise AssertionError('file descriptors redirected')\n"
        "os.dup2 = refused\n"
        "from scorer.numbertiles import solve_number_tiles\n"
        "from scorer.pieces import Tile\n"
        "rack = [Tile('red', n) for n in range(1, 7)]\n"
        "assert solve_number_tiles([], rack, 13, search_calls=0) is not None\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
