"""Property tests: the number-tile engine against a brute-force oracle written here.

The oracle knows nothing of the engine: a meld is legal when its real tiles fit inside some
concrete run or group of the same size (jokers stand for the rest); a table is legal when some
partition of it into blocks is made of legal melds (all partitions are enumerated).
"""

from collections import Counter
from functools import cache
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.games import make_rules
from scorer.numbertiles import arrange, judge_meld, solve_number_tiles
from scorer.pieces import COLOURS, Joker, Tile

JOKER = Joker()
SETTINGS = settings(max_examples=100, deadline=None)


# --- the oracle ---------------------------------------------------------------------------------


@cache
def concrete_melds(size: int, numbers: int) -> list[tuple[Tile, ...]]:
    """Every run and group of ``size`` tiles that exists in a set numbered 1..numbers."""
    melds = []
    for colour in COLOURS:
        for start in range(1, numbers - size + 2):
            melds.append(tuple(Tile(colour, n) for n in range(start, start + size)))
    if size <= 4:
        for number in range(1, numbers + 1):
            for colours in combinations(COLOURS, size):
                melds.append(tuple(Tile(c, number) for c in colours))
    return melds


def oracle_values(pieces, numbers: int) -> set[int]:
    """Values of every concrete meld the pieces can stand for (empty: not a meld)."""
    if len(pieces) < 3:
        return set()
    real = Counter(p for p in pieces if isinstance(p, Tile))
    return {
        sum(t.number for t in meld)
        for meld in concrete_melds(len(pieces), numbers)
        if not real - Counter(meld)
    }


def oracle_table_ok(pieces, numbers: int) -> bool:
    """Enumerate partitions: the first piece's block is every sub-multiset containing it."""

    @cache
    def ok(rest: tuple) -> bool:
        if not rest:
            return True
        first, others = rest[0], rest[1:]
        tried = set()
        for size in range(2, len(others) + 1):
            for picked in combinations(range(len(others)), size):
                block = (first, *(others[i] for i in picked))
                key = tuple(sorted(block, key=repr))
                if key in tried:
                    continue
                tried.add(key)
                if not oracle_values(block, numbers):
                    continue
                left = tuple(p for i, p in enumerate(others) if i not in picked)
                if ok(left):
                    return True
        return False

    return ok(tuple(sorted(pieces, key=repr)))


# --- strategies ---------------------------------------------------------------------------------


@st.composite
def crowded_tables(draw, max_size=10):
    """Tiles from a narrow window of numbers and few colours, so that melds are likely."""
    numbers = draw(st.sampled_from([4, 5, 6, 13]))
    colours = COLOURS[: draw(st.integers(2, 4))]
    low = draw(st.integers(1, max(1, numbers - 4)))
    window = [Tile(c, n) for c in colours for n in range(low, min(numbers, low + 4) + 1)]
    size = draw(st.integers(0, max_size))
    jokers = draw(st.integers(0, min(4, size)))
    pool = [t for t in window for _ in range(2)]
    chosen = draw(st.permutations(pool))[: size - jokers]
    return numbers, [*chosen, *([JOKER] * jokers)]


@st.composite
def built_tables(draw, max_size=10):
    """A union of legal melds, with jokers swapped in, then maybe one tile taken or added."""
    numbers = draw(st.sampled_from([5, 13]))
    pieces: list = []
    jokers_left = 4
    while len(pieces) < max_size - 3 and draw(st.booleans()):
        meld = list(draw(st.sampled_from(concrete_melds(draw(st.integers(3, 5)), numbers))))
        for i in range(len(meld)):
            if jokers_left and draw(st.integers(0, 4)) == 0:
                meld[i], jokers_left = JOKER, jokers_left - 1
        pieces += meld
    pieces = pieces[:max_size]
    change = draw(st.sampled_from(["keep", "drop", "add"]))
    if change == "drop" and pieces:
        pieces.pop(draw(st.integers(0, len(pieces) - 1)))
    elif change == "add" and len(pieces) < max_size:
        pieces.append(Tile(draw(st.sampled_from(COLOURS)), draw(st.integers(1, numbers))))
    return numbers, pieces


def fits_the_set(pieces) -> bool:
    counts = Counter(pieces)
    return counts[JOKER] <= 4 and all(n <= 2 for p, n in counts.items() if p != JOKER)


# --- properties ---------------------------------------------------------------------------------


def check_layout(numbers, pieces, found):
    assert Counter(p for meld in found.melds for p in meld) == Counter(pieces)
    for meld in found.melds:
        assert oracle_values(meld, numbers), meld


@SETTINGS
@given(st.one_of(crowded_tables(), built_tables()))
def test_arrange_agrees_with_the_oracle(case):
    numbers, pieces = case
    found = arrange(pieces, numbers=numbers)
    assert (found is not None) == oracle_table_ok(pieces, numbers)
    if found is not None:
        check_layout(numbers, pieces, found)
        assert found.placed == ()


@SETTINGS
@given(st.one_of(crowded_tables(), built_tables()).filter(lambda case: case[0] == 13))
def test_rules_arrange_table_agrees_with_the_oracle(case):
    _, pieces = case
    if not fits_the_set(pieces):
        return
    verdict = make_rules("remik", {"jokers": 4}).arrange_table(pieces)
    assert verdict.valid == oracle_table_ok(pieces, 13)
    assert (verdict.melds is None) == (not verdict.valid)
    assert (verdict.reason is None) == verdict.valid
    if verdict.valid:
        assert Counter(p for meld in verdict.melds for p in meld) == Counter(pieces)
        for meld in verdict.melds:
            assert oracle_values(meld, 13), meld


@SETTINGS
@given(st.one_of(crowded_tables(max_size=6), built_tables(max_size=6)))
def test_meld_readings_agree_with_the_oracle(case):
    numbers, pieces = case
    verdict = judge_meld(pieces, numbers)
    values = oracle_values(pieces, numbers)
    assert verdict.valid == bool(values)
    if values:
        assert verdict.readings == tuple(sorted(values))
        assert verdict.value == max(values)
        assert verdict.reason is None
    else:
        assert verdict.reason and verdict.value is None


@settings(max_examples=60, deadline=None)
@given(crowded_tables(max_size=7), st.data())
def test_best_layout_places_the_most_optional_pieces(case, data):
    numbers, pieces = case
    split = data.draw(st.integers(0, min(4, len(pieces))))
    optional, required = pieces[:split], pieces[split:]
    found = solve_number_tiles(required, optional, numbers)
    best = None
    for size in range(len(optional), -1, -1):
        if any(
            oracle_table_ok([*required, *subset], numbers)
            for subset in combinations(optional, size)
        ):
            best = size
            break
    assert (found is None) == (best is None)
    if found is not None:
        assert len(found.placed) == best
        assert not Counter(found.placed) - Counter(optional)
        check_layout(numbers, [*required, *found.placed], found)
