"""Property tests for the domino games against brute-force oracles written here, apart from scorer/.

Domino Gin: deadwood by enumerating every set of disjoint melds; layoffs by playing out every
order of layoffs step by step; the whole hand score from those. Remino: table layouts of small
random tables with jokers against an enumeration of every partition.
"""

from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.domino_gin import best_deadwood
from scorer.games import make_rules
from scorer.pieces import Domino

# ---- Domino Gin oracle ------------------------------------------------------------------------

SIX_PIPS = {Domino(0, 6), Domino(1, 5), Domino(2, 4), Domino(3, 3)}


def gin_meld(tiles):
    """('doubles' | 'sequence' | 'six', suit, positions) if the tiles are a meld, else None."""
    if len(tiles) < 4 or len(set(tiles)) < len(tiles):
        return None
    if set(tiles) == SIX_PIPS:
        return ("six", None, None)
    if all(t.low == t.high for t in tiles):
        halves = sorted(t.low for t in tiles)
        if halves == list(range(halves[0], halves[0] + len(tiles))):
            return ("doubles", None, set(halves))
    for suit in range(13):
        if all(suit in (t.low, t.high) for t in tiles):
            others = sorted(t.high if t.low == suit else t.low for t in tiles)
            if others == list(range(others[0], others[0] + len(tiles))):
                return ("sequence", suit, set(others))
    return None


def meld_sets(tiles):
    """Every way to pick disjoint melds from ``tiles`` (as lists of tuples), empty included."""
    tiles = sorted(tiles)
    found = [[]]

    def grow(rest, chosen):
        for size in range(4, len(rest) + 1):
            for combo in combinations(rest, size):
                if gin_meld(list(combo)) is not None:
                    left = [t for t in rest if t not in combo]
                    new = [*chosen, combo]
                    key = sorted(new)
                    if key not in found:
                        found.append(key)
                        grow(left, new)

    grow(tiles, [])
    return found


def pips(tiles):
    return sum(t.low + t.high for t in tiles)


def oracle_deadwood(tiles):
    return min(pips(tiles) - sum(pips(m) for m in melds) for melds in meld_sets(tiles))


def extends(meld, tile):
    kind, suit, positions = meld
    if kind == "doubles":
        return tile.low == tile.high and tile.low in (min(positions) - 1, max(positions) + 1)
    if kind == "sequence" and suit in (tile.low, tile.high):
        other = tile.high if tile.low == suit else tile.low
        return other in (min(positions) - 1, max(positions) + 1)
    return False


def placed(meld, tile):
    kind, suit, positions = meld
    other = tile.low if kind == "doubles" else (tile.high if tile.low == suit else tile.low)
    return (kind, suit, positions | {other})


def reachable_layoffs(melds, tiles):
    """Every set of tiles that can be laid off, one at a time, in some order."""
    seen = set()

    def walk(state, left, laid):
        key = (laid, tuple((k, s, tuple(sorted(p or ()))) for k, s, p in state))
        if key in seen:
            return
        seen.add(key)
        for tile in left:
            for i, meld in enumerate(state):
                if extends(meld, tile):
                    grown = list(state)
                    grown[i] = placed(meld, tile)
                    walk(tuple(grown), left - {tile}, laid | {tile})

    walk(tuple(melds), frozenset(tiles), frozenset())
    return {laid for laid, _ in seen}


def oracle_defence(knocker_melds, hand):
    described = [gin_meld(list(m)) for m in knocker_melds]
    best = None
    for laid in reachable_layoffs(described, hand):
        rest = [t for t in hand if t not in laid]
        value = oracle_deadwood(rest)
        best = value if best is None else min(best, value)
    return best


def oracle_score(knocker_hand, opponent_hand):
    sets = meld_sets(knocker_hand)
    values = [pips(knocker_hand) - sum(pips(m) for m in melds) for melds in sets]
    least = min(values)
    best_sets = [melds for melds, value in zip(sets, values, strict=True) if value == least]
    if any(sum(len(m) for m in melds) == len(knocker_hand) for melds in best_sets):
        return "gin", oracle_deadwood(opponent_hand) + 20, 0, oracle_deadwood(opponent_hand)
    opponent = max(oracle_defence(melds, opponent_hand) for melds in best_sets)
    if least < opponent:
        return "knock", opponent - least, least, opponent
    return "undercut", least - opponent + 20, least, opponent


def _gin_meld_strategy(draw, top, kind):
    if kind == "six":
        return sorted(SIX_PIPS)
    length = draw(st.integers(4, 5))
    start = draw(st.integers(0, top + 1 - length))
    if kind == "doubles":
        return [Domino(h, h) for h in range(start, start + length)]
    suit = draw(st.integers(0, top))
    return [Domino(suit, p) for p in range(start, start + length)]


@st.composite
def gin_deals(draw):
    """Two 7-tile hands; the knocker's holds a meld, the opponent often tiles that lay off."""
    set_name = draw(st.sampled_from(["double-six", "double-six", "double-nine"]))
    top = 6 if set_name == "double-six" else 9
    kind = draw(st.sampled_from(["sequence", "sequence", "doubles", "six"]))
    meld = _gin_meld_strategy(draw, top, kind)
    universe = [Domino(a, b) for a in range(top + 1) for b in range(a, top + 1)]
    rest = [t for t in universe if t not in meld]
    opponent: list[Domino] = []
    if draw(st.booleans()):  # the opponent holds a meld of their own (if it fits)
        own = _gin_meld_strategy(draw, top, draw(st.sampled_from(["sequence", "doubles"])))
        if not set(own) & set(meld):
            opponent = own[:5]
    halves = {h for m in meld for h in (m.low, m.high)}
    near = [t for t in rest if {t.low, t.high} & halves and t not in opponent]
    opponent += draw(st.lists(st.sampled_from(near), max_size=7 - len(opponent), unique=True))
    order = draw(st.permutations([t for t in rest if t not in opponent]))
    need = 7 - len(opponent)
    opponent += order[:need]
    knocker = meld + order[need:][: 7 - len(meld)]
    assert len(set(knocker + opponent)) == 14
    return set_name, knocker, opponent


@settings(max_examples=150, deadline=None)
@given(gin_deals())
def test_gin_deadwood_matches_brute_force(deal):
    _set_name, knocker, opponent = deal
    for hand in (knocker, opponent):
        assert best_deadwood(hand)[0] == oracle_deadwood(hand)


@settings(max_examples=150, deadline=None)
@given(gin_deals())
def test_gin_score_with_layoffs_matches_brute_force(deal):
    set_name, knocker, opponent = deal
    rules = make_rules("domino-gin", {"set": set_name})
    result = rules.score_hand(
        {
            "players": ["k", "o"],
            "knocker": "k",
            "hands": {"k": [t.name for t in knocker], "o": [t.name for t in opponent]},
        }
    )
    outcome, points, knocker_deadwood, opponent_deadwood = oracle_score(knocker, opponent)
    assert result.outcome == outcome
    assert result.deadwood == {"k": knocker_deadwood, "o": opponent_deadwood}
    winner = "o" if outcome == "undercut" else "k"
    assert result.winner == winner and result.deltas[winner] == points
    # The layoffs shown are playable in the order given.
    melds = [gin_meld([rules.parse(n) for n in m]) for m in result.details["melds"]["k"]]
    for lay in result.details["layoffs"]:
        tile = rules.parse(lay["piece"])
        index = result.details["melds"]["k"].index(lay["onto"])
        assert extends(melds[index], tile)
        melds[index] = placed(melds[index], tile)


# ---- Remino oracle ----------------------------------------------------------------------------


def remino_meld(tiles, top, jokers):
    """Brute force: can the naturals plus the jokers among ``tiles`` be one run or group?"""
    naturals = [t for t in tiles if t not in jokers]
    n = len(tiles)
    if n < 3 or len(set(naturals)) < len(naturals):
        return False
    for suit in range(top + 1):
        if not all(suit in (t.low, t.high) for t in naturals):
            continue
        places = {t.high if t.low == suit else t.low for t in naturals}
        for start in range(top + 2 - n):
            if places <= set(range(start, start + n)):
                return True
    if n <= 4:
        for total in range(2 * top + 1):
            members = {Domino(a, total - a) for a in range(top + 1) if 0 <= total - a <= top}
            if all(t in members for t in naturals) and n <= len(members):
                return True
    return False


def remino_partitions_exist(tiles, top, jokers):
    tiles = sorted(tiles)
    if not tiles:
        return True
    first, rest = tiles[0], tiles[1:]
    tried = set()
    for size in range(2, len(rest) + 1):
        for combo in combinations(range(len(rest)), size):
            group = (first, *(rest[i] for i in combo))
            if group in tried:
                continue
            tried.add(group)
            if remino_meld(group, top, jokers):
                left = [t for i, t in enumerate(rest) if i not in combo]
                if remino_partitions_exist(left, top, jokers):
                    return True
    return False


@st.composite
def remino_tables(draw):
    set_name = draw(st.sampled_from(["double-nine", "2x-double-six", "double-twelve"]))
    rules = make_rules("remino", {"set": set_name})
    top = rules.top
    stock = Counter(rules.universe)
    jokers = sorted(rules.jokers)
    table = []
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            suit = draw(st.integers(0, top))
            start = draw(st.integers(0, top - 2))
            meld = [Domino(suit, p) for p in range(start, start + 3)]
        else:
            total = draw(st.integers(4, 2 * top - 4))
            members = [Domino(a, total - a) for a in range(top + 1) if a <= total - a <= top]
            meld = draw(st.lists(st.sampled_from(members), min_size=3, max_size=3, unique=True))
        table += meld
    table += draw(st.lists(st.sampled_from(sorted(stock)), max_size=2))
    swaps = draw(st.integers(0, 2))
    for _ in range(swaps):
        if table:
            table[draw(st.integers(0, len(table) - 1))] = draw(st.sampled_from(jokers))
    kept = []
    for tile in table[:9]:
        if stock[tile] > 0:
            stock[tile] -= 1
            kept.append(tile)
    return rules, kept


@settings(max_examples=300, deadline=None)
@given(remino_tables())
def test_remino_layout_agrees_with_brute_force(case):
    rules, table = case
    verdict = rules.arrange_table(table)
    assert verdict.valid == remino_partitions_exist(table, rules.top, rules.jokers)
    if verdict.valid:
        assert Counter(p for m in verdict.melds for p in m) == Counter(table)
        for meld in verdict.melds:
            assert remino_meld(meld, rules.top, rules.jokers), meld
            assert rules.check_meld(list(meld)).valid
