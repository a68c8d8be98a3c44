"""The number-tile move finder against a brute-force solver written here (seeded, small positions).

The brute force knows nothing of the search: a meld is legal when its real tiles fit inside some
concrete run or group of the same size (jokers stand for the rest, value: the best such meld);
a layout exists when some partition into blocks is made of legal melds (all partitions are
enumerated); the best move tries every sub-multiset of the rack, most pieces first.
"""

import random
from collections import Counter
from functools import cache
from itertools import combinations

import pytest

from scorer.games import make_rules
from scorer.hints import Position, number_tile_hint
from scorer.numbertiles import judge_meld, rack_value, solve_number_tiles
from scorer.pieces import COLOURS, Joker, Tile

JOKER = Joker()


# --- the brute force ----------------------------------------------------------------------------


@cache
def concrete_melds(size: int, numbers: int) -> tuple[Counter, ...]:
    """Every run and group of ``size`` tiles that exists in a set numbered 1..numbers."""
    melds = []
    for colour in COLOURS:
        for start in range(1, numbers - size + 2):
            melds.append([Tile(colour, n) for n in range(start, start + size)])
    if size <= 4:
        for number in range(1, numbers + 1):
            for colours in combinations(COLOURS, size):
                melds.append([Tile(c, number) for c in colours])
    return tuple(Counter(meld) for meld in melds)


@cache
def brute_meld_value(pieces: tuple, numbers: int) -> int | None:
    """The best value of a concrete meld these pieces can stand for, None if none."""
    if len(pieces) < 3:
        return None
    real = Counter(p for p in pieces if isinstance(p, Tile))
    values = [
        sum(t.number for t in meld.elements())
        for meld in concrete_melds(len(pieces), numbers)
        if not real - meld
    ]
    return max(values) if values else None


def key(pieces) -> tuple:
    return tuple(
        sorted(pieces, key=lambda p: (isinstance(p, Joker), getattr(p, "number", 0), str(p)))
    )


@cache
def brute_layouts(rest: tuple, numbers: int, cap_melds: int, cap_value: int) -> frozenset:
    """Every (melds, value) a partition of ``rest`` into legal melds reaches, both capped."""
    if not rest:
        return frozenset({(0, 0)})
    first, others = rest[0], rest[1:]
    reached = set()
    seen = set()
    for size in range(2, len(others) + 1):
        for companions in combinations(range(len(others)), size):
            block = key([first, *(others[i] for i in companions)])
            if block in seen:
                continue
            seen.add(block)
            value = brute_meld_value(block, numbers)
            if value is None:
                continue
            left = list(others)
            for i in sorted(companions, reverse=True):
                del left[i]
            for melds, total in brute_layouts(tuple(left), numbers, cap_melds, cap_value):
                reached.add((min(cap_melds, melds + 1), min(cap_value, total + value)))
    return frozenset(reached)


def sub_multisets(pieces):
    counts = Counter(pieces)
    items = list(counts.items())

    def walk(i):
        if i == len(items):
            yield []
            return
        piece, count = items[i]
        for rest in walk(i + 1):
            for k in range(count + 1):
                yield [piece] * k + rest

    yield from walk(0)


def brute_best(table, rack, numbers, opening=None):
    """(pieces placed, value) of the best move, or None when no opening exists."""
    options = sorted(sub_multisets(rack), key=lambda s: (len(s), rack_value(s)), reverse=True)
    for chosen in options:
        if opening is None:
            if brute_layouts(key([*table, *chosen]), numbers, 0, 0):
                return len(chosen), rack_value(chosen)
        elif chosen:
            threshold, min_melds = opening
            if (min_melds, threshold) in brute_layouts(key(chosen), numbers, min_melds, threshold):
                return len(chosen), rack_value(chosen)
    return None if opening is not None else (0, 0)


# --- random small positions ---------------------------------------------------------------------


def random_meld(rng, numbers, low, high):
    size = rng.choice([3, 3, 3, 4, 5])
    if rng.random() < 0.5 and high - low + 1 >= size:
        colour = rng.choice(COLOURS)
        start = rng.randint(low, high - size + 1)
        meld = [Tile(colour, n) for n in range(start, start + size)]
    else:
        number = rng.randint(low, high)
        meld = [Tile(c, number) for c in rng.sample(COLOURS, min(size, 4))]
    for _ in range(rng.choice([0, 0, 0, 1, 2])):
        meld[rng.randrange(len(meld))] = JOKER
    return meld


def random_position(rng):
    """A table of valid melds (up to 7 pieces) and a rack of 1-4 from what is left (4 jokers)."""
    numbers = rng.choice([5, 7, 13])
    low = rng.randint(1, max(1, numbers - 5))
    high = min(numbers, low + 5)
    pool = Counter({Tile(c, n): 2 for c in COLOURS for n in range(low, high + 1)})
    pool[JOKER] = 4
    table: list = []
    for _ in range(rng.choice([0, 1, 1, 2])):
        meld = random_meld(rng, numbers, low, high)
        if len(table) + len(meld) > 7 or Counter(meld) - pool:
            continue
        pool -= Counter(meld)
        table += meld
    rest = list(pool.elements())
    # racks that can do something: mostly neighbours of table tiles (same number or +-2)
    near = [
        p
        for p in rest
        if p == JOKER
        or any(
            isinstance(t, Tile)
            and (t.number == p.number or (t.colour == p.colour and abs(t.number - p.number) <= 2))
            for t in table
        )
    ]
    source = near if near and rng.random() < 0.7 else rest
    rack = rng.sample(source, min(len(source), rng.randint(1, 4)))
    return table, rack, numbers


def check_layout(solution, table, rack, numbers):
    assert not Counter(solution.placed) - Counter(rack)
    laid = Counter(p for meld in solution.melds for p in meld)
    assert laid == Counter(table) + Counter(solution.placed)
    for meld in solution.melds:
        assert judge_meld(meld, numbers).valid, meld


# --- the properties -----------------------------------------------------------------------------

POSITIONS = 300


# search_calls=0 sends every position to the integer program (scorer.tilemip) at once
ENGINES = pytest.mark.parametrize("search_calls", [None, 0], ids=["search", "integer-program"])


@ENGINES
@pytest.mark.parametrize("seed", range(3))
def test_best_move_matches_brute_force(seed, search_calls):
    rng = random.Random(seed)
    for _ in range(POSITIONS // 3):
        table, rack, numbers = random_position(rng)
        expected = brute_best(table, rack, numbers)
        found = solve_number_tiles(table, rack, numbers, search_calls=search_calls)
        assert found is not None, (table, rack)
        check_layout(found, table, rack, numbers)
        got = (len(found.placed), rack_value(found.placed))
        assert got == expected, (table, rack, numbers, found.melds)


@ENGINES
@pytest.mark.parametrize("seed", range(3))
def test_opening_matches_brute_force(seed, search_calls):
    rng = random.Random(100 + seed)
    for _ in range(POSITIONS // 3):
        _, rack, numbers = random_position(rng)
        rack = rack + rng.sample(
            [Tile(c, n) for c in COLOURS for n in range(1, numbers + 1)], rng.randint(0, 3)
        )
        opening = (rng.choice([0, 10, 20, 30]), rng.choice([1, 1, 2, 3]))
        expected = brute_best([], rack, numbers, opening)
        found = solve_number_tiles([], rack, numbers, opening, search_calls=search_calls)
        if expected is None:
            assert found is None, (rack, opening, found)
            continue
        assert found is not None, (rack, opening, expected)
        check_layout(found, [], rack, numbers)
        assert (len(found.placed), rack_value(found.placed)) == expected, (rack, opening)
        threshold, min_melds = opening
        assert len(found.melds) >= min_melds
        assert sum(judge_meld(m, numbers).value for m in found.melds) >= threshold


def test_whole_hints_keep_count_value_and_legality():
    """The melds-changed tie-break never costs a piece or a point, and its table is legal."""
    rules = make_rules("rummikub")
    rng = random.Random(11)
    for _ in range(30):
        pool = Counter({Tile(c, n): 2 for c in COLOURS for n in range(1, 14)})
        pool[JOKER] = 2
        melds: list = []
        while sum(map(len, melds)) < 24:
            meld = random_meld(rng, 13, 1, 13)
            if Counter(meld) - pool:
                continue
            pool -= Counter(meld)
            melds.append(meld)
        table = [p for m in melds for p in m]
        rack = rng.sample(list(pool.elements()), 8)
        best = solve_number_tiles(table, rack, 13)
        position = Position(tuple(map(tuple, melds)), tuple(table), tuple(rack), True)
        found = number_tile_hint(rules, position)
        assert (len(found.placed), found.value) == (len(best.placed), rack_value(best.placed))
        laid = Counter(p for meld in found.table for p in meld)
        assert laid == Counter(table) + Counter(found.placed)
        assert all(judge_meld(meld, 13).valid for meld in found.table)
        kept = sum(1 for meld in melds if tuple(meld) in found.table)
        assert found.table[:kept] == tuple(tuple(m) for m in melds if tuple(m) in found.table)
