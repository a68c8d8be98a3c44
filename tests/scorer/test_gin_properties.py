"""Gin Rummy against a brute-force oracle written here, independently of scorer/gin.py.

The oracle knows only what a meld is. Deadwood: try every set of pairwise disjoint melds.
Layoffs: try every card onto every knocker meld in every order (a card may join a meld when
the meld stays legal; without ``layoff_on_layoffs`` a run may only grow from an end card that
is the knocker's or the laying player's own).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from functools import cache
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scorer import api
from scorer.gin import arrange_any, best_arrangement
from scorer.pieces import SUITS, Card, parse_card

DECK = tuple(Card(rank, suit) for suit in SUITS for rank in range(1, 14))
KNOCKER = "P0"
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)  # a seed for random.Random

# --- oracle ------------------------------------------------------------------------------


def is_meld(cards: frozenset[Card]) -> bool:
    if len(cards) < 3:
        return False
    if len({c.rank for c in cards}) == 1:
        return True
    if len({c.suit for c in cards}) != 1:
        return False
    ranks = sorted(c.rank for c in cards)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


@cache
def all_melds(hand: frozenset[Card]) -> tuple[frozenset[Card], ...]:
    found = []
    for size in range(3, len(hand) + 1):
        for combo in itertools.combinations(sorted(hand), size):
            if is_meld(frozenset(combo)):
                found.append(frozenset(combo))
    return tuple(found)


def value(cards: frozenset[Card] | Sequence[Card]) -> int:
    return sum(min(c.rank, 10) for c in cards)


@cache
def meld_collections(hand: frozenset[Card]) -> tuple[tuple[frozenset[Card], ...], ...]:
    """Every set of pairwise disjoint melds of ``hand`` (including none)."""
    melds = all_melds(hand)
    found: list[tuple[frozenset[Card], ...]] = []

    def extend(start: int, used: frozenset[Card], chosen: tuple[frozenset[Card], ...]) -> None:
        found.append(chosen)
        for i in range(start, len(melds)):
            if not melds[i] & used:
                extend(i + 1, used | melds[i], (*chosen, melds[i]))

    extend(0, frozenset(), ())
    return tuple(found)


@cache
def oracle_deadwood(hand: frozenset[Card]) -> int:
    return value(hand) - max(sum(value(m) for m in c) for c in meld_collections(hand))


def optimal_collections(hand: frozenset[Card]) -> list[tuple[frozenset[Card], ...]]:
    best = oracle_deadwood(hand)
    return [c for c in meld_collections(hand) if value(hand) - sum(value(m) for m in c) == best]


# A table meld: frozenset of (card, owner) pairs.
Table = tuple[frozenset[tuple[Card, str]], ...]


def may_attach(
    meld: frozenset[tuple[Card, str]], card: Card, player: str, on_layoffs: bool
) -> bool:
    cards = frozenset(c for c, _ in meld)
    if not is_meld(cards | {card}):
        return False
    if len({c.rank for c in cards}) == 1 or on_layoffs:
        return True
    neighbour = next(owner for c, owner in meld if abs(c.rank - card.rank) == 1)
    return neighbour in (KNOCKER, player)


def reachable_layoffs(
    hand: frozenset[Card], table: Table, player: str, on_layoffs: bool
) -> set[frozenset[Card]]:
    """Every set of cards ``player`` can lay off, in some order, onto ``table``."""
    seen: set[tuple[frozenset[Card], Table]] = set()
    results: set[frozenset[Card]] = set()

    def walk(laid: frozenset[Card], state: Table) -> None:
        if (laid, state) in seen:
            return
        seen.add((laid, state))
        results.add(laid)
        for card in hand - laid:
            for i, meld in enumerate(state):
                if may_attach(meld, card, player, on_layoffs):
                    grown = (*state[:i], meld | {(card, player)}, *state[i + 1 :])
                    walk(laid | {card}, grown)

    walk(frozenset(), table)
    return results


def best_layoff(
    hand: frozenset[Card], table: Table, player: str, on_layoffs: bool
) -> tuple[int, int]:
    """(least deadwood after laying off, fewest cards laid off to reach it)."""
    return min(
        (oracle_deadwood(hand - laid), len(laid))
        for laid in reachable_layoffs(hand, table, player, on_layoffs)
    )


def scores_from_deadwood(
    order: Sequence[str], deadwood: dict[str, int], gin: bool
) -> tuple[str, str, dict[str, int]]:
    """(outcome, winner, penalties) by the source's table, from each player's deadwood."""
    knocker_dw = deadwood[KNOCKER]
    if gin:
        return "gin", KNOCKER, {p: (deadwood[p] + 25 if p != KNOCKER else 0) for p in deadwood}
    under = [p for p in order if deadwood[p] <= knocker_dw]
    if not under:
        return "knock", KNOCKER, {p: deadwood[p] - knocker_dw for p in deadwood}
    winner = min(under, key=lambda p: deadwood[p])  # first of the lowest in turn order
    penalties = {p: deadwood[p] - deadwood[winner] for p in deadwood}
    penalties[KNOCKER] += 25
    return "undercut", winner, penalties


def knocker_utility(outcome: tuple[str, str, dict[str, int]]) -> int:
    _, winner, penalties = outcome
    return sum(penalties.values()) if winner == KNOCKER else -penalties[KNOCKER]


# --- generators --------------------------------------------------------------------------


def random_meld(rng: random.Random) -> list[Card]:
    if rng.random() < 0.5:
        rank = rng.randint(1, 13)
        return [Card(rank, s) for s in rng.sample(SUITS, rng.choice((3, 3, 4)))]
    suit = rng.choice(SUITS)
    length = rng.choice((3, 3, 4, 5))
    low = rng.randint(1, 14 - length)
    return [Card(r, suit) for r in range(low, low + length)]


def meldy_hand(rng: random.Random, size: int, pool: Sequence[Card]) -> list[Card]:
    """``size`` cards from ``pool``, built from random melds topped up with random cards."""
    hand: list[Card] = []
    for _ in range(rng.randint(0, 3)):
        for card in random_meld(rng):
            if card in pool and card not in hand and len(hand) < size:
                hand.append(card)
    rest = [c for c in pool if c not in hand]
    hand += rng.sample(rest, size - len(hand))
    return hand


def neighbours(cards: Sequence[Card]) -> list[Card]:
    """Cards that could join melds made of ``cards``: same rank or next rank in the suit."""
    near = set()
    for card in cards:
        near.update(Card(card.rank, s) for s in SUITS)
        for step in (-2, -1, 1, 2):
            if 1 <= card.rank + step <= 13:
                near.add(Card(card.rank + step, card.suit))
    return sorted(near - set(cards))


def knock_position(rng: random.Random, players: int) -> dict[str, list[Card]] | None:
    size = 10 if players == 2 else 7
    knocker: list[Card] = []
    while len(knocker) < size - 3:
        knocker += [c for c in random_meld(rng) if c not in knocker]
    knocker = knocker[: size - rng.randint(0, 3)]
    low_cards = [c for c in DECK if c.rank <= 5 and c not in knocker]
    knocker += rng.sample(low_cards, size - len(knocker))
    if oracle_deadwood(frozenset(knocker)) > 10:
        return None
    hands = {KNOCKER: knocker}
    left = [c for c in DECK if c not in knocker]
    for number in range(1, players):
        near = [c for c in neighbours(knocker) if c in left]
        mine = rng.sample(near, min(len(near), rng.randint(1, 4)))
        pool = [c for c in left if c not in mine]
        hand = mine + meldy_hand(rng, size - len(mine), pool)
        hands[f"P{number}"] = hand
        left = [c for c in left if c not in hand]
    return hands


def run_score(hands: dict[str, list[Card]], **options: Any) -> dict[str, Any]:
    names = list(hands)
    hand = {
        "players": names,
        "knocker": KNOCKER,
        "hands": {p: [c.name for c in cards] for p, cards in hands.items()},
    }
    return api.score("gin", options, hand)


# --- properties --------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(SEEDS, st.integers(min_value=3, max_value=11))
def test_best_arrangement_matches_oracle(seed: int, size: int) -> None:
    rng = random.Random(seed)
    hand = meldy_hand(rng, size, DECK)
    best = best_arrangement(hand)
    assert best.deadwood == oracle_deadwood(frozenset(hand))
    assert arrange_any(hand).deadwood == best.deadwood
    melds = [frozenset(m) for m in best.melds]
    assert all(is_meld(m) for m in melds)
    assert sorted([*(c for m in melds for c in m), *best.unmatched]) == sorted(hand)
    assert value(best.unmatched) == best.deadwood


@settings(max_examples=200, deadline=None)
@given(SEEDS, st.integers(min_value=3, max_value=16))
def test_table_partition_matches_oracle(seed: int, size: int) -> None:
    rng = random.Random(seed)
    pieces = meldy_hand(rng, size, DECK)
    if rng.random() < 0.5:  # often a real table: melds only
        pieces = []
        while len(pieces) < size:
            pieces += [c for c in random_meld(rng) if c not in pieces]
    result = api.table("gin", {}, [c.name for c in pieces])
    can = oracle_deadwood(frozenset(pieces)) == 0 if len(pieces) <= 13 else None
    if can is not None:
        assert result["valid"] is can
    if result["valid"]:
        melds = [frozenset(parse_card(n) for n in m) for m in result["melds"]]
        assert all(is_meld(m) for m in melds)
        assert sorted(c for m in melds for c in m) == sorted(pieces)
    else:
        assert result["reason"]


def check_replay(hands: dict[str, list[Card]], result: dict[str, Any], on_layoffs: bool) -> Table:
    """The reported play is legal and each opponent's choice is optimal; returns the table."""
    order = list(hands)[1:]
    knocker = frozenset(hands[KNOCKER])
    knocker_melds = [frozenset(parse_card(n) for n in m) for m in result["melds"][KNOCKER]]
    assert all(is_meld(m) for m in knocker_melds)
    assert sum(len(m) for m in knocker_melds) == len(frozenset().union(*knocker_melds))
    assert frozenset().union(*knocker_melds) <= knocker
    assert result["deadwood"][KNOCKER] == oracle_deadwood(knocker)
    assert value(knocker - frozenset().union(*knocker_melds)) == oracle_deadwood(knocker)
    table: Table = tuple(frozenset((c, KNOCKER) for c in m) for m in knocker_melds)
    names = result["melds"][KNOCKER]
    gin = result["deadwood"][KNOCKER] == 0
    for player in order:
        hand = frozenset(hands[player])
        laid: list[Card] = []
        for layoff in (entry for entry in result["layoffs"] if entry["player"] == player):
            index = names.index(layoff["onto"])
            for name in layoff["cards"]:
                card = parse_card(name)
                assert card in hand and card not in laid
                assert may_attach(table[index], card, player, on_layoffs)
                table = (*table[:index], table[index] | {(card, player)}, *table[index + 1 :])
                laid.append(card)
        own = [frozenset(parse_card(n) for n in m) for m in result["melds"][player]]
        kept = hand - frozenset(laid)
        assert all(is_meld(m) for m in own)
        assert frozenset().union(*own) <= kept
        assert sum(len(m) for m in own) == len(frozenset().union(*own))
        assert result["deadwood"][player] == value(kept - frozenset().union(*own))
        if gin:
            assert not laid
            assert result["deadwood"][player] == oracle_deadwood(hand)
    return table


def check_optimal_opponents(
    hands: dict[str, list[Card]], result: dict[str, Any], on_layoffs: bool
) -> None:
    """Each opponent's deadwood and number of cards laid off are the best possible, given the
    table as the earlier opponents left it."""
    if result["deadwood"][KNOCKER] == 0:
        return
    knocker_melds = [frozenset(parse_card(n) for n in m) for m in result["melds"][KNOCKER]]
    names = result["melds"][KNOCKER]
    table: Table = tuple(frozenset((c, KNOCKER) for c in m) for m in knocker_melds)
    for player in list(hands)[1:]:
        hand = frozenset(hands[player])
        entries = [entry for entry in result["layoffs"] if entry["player"] == player]
        count = sum(len(entry["cards"]) for entry in entries)
        assert (result["deadwood"][player], count) == best_layoff(hand, table, player, on_layoffs)
        for entry in entries:
            index = names.index(entry["onto"])
            for name in entry["cards"]:
                grown = table[index] | {(parse_card(name), player)}
                table = (*table[:index], grown, *table[index + 1 :])


def oracle_best_utility(hands: dict[str, list[Card]]) -> int:
    """The knocker's best result over every least-deadwood arrangement, when opponents do not
    interact (2 players, or no building on layoffs)."""
    knocker = frozenset(hands[KNOCKER])
    order = list(hands)[1:]
    best = None
    for collection in optimal_collections(knocker):
        table: Table = tuple(frozenset((c, KNOCKER) for c in m) for m in collection)
        deadwood = {KNOCKER: oracle_deadwood(knocker)}
        gin = deadwood[KNOCKER] == 0
        for player in order:
            hand = frozenset(hands[player])
            deadwood[player] = (
                oracle_deadwood(hand) if gin else best_layoff(hand, table, player, False)[0]
            )
        utility = knocker_utility(scores_from_deadwood(order, deadwood, gin))
        best = utility if best is None else max(best, utility)
    assert best is not None
    return best


def check_scoring(hands: dict[str, list[Card]], result: dict[str, Any]) -> None:
    order = list(hands)[1:]
    gin = result["deadwood"][KNOCKER] == 0
    outcome, winner, penalties = scores_from_deadwood(order, result["deadwood"], gin)
    assert result["outcome"] == outcome
    assert result["winner"] == winner
    assert result["penalties"] == penalties
    assert result["deltas"] == {p: (sum(penalties.values()) if p == winner else 0) for p in hands}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(SEEDS)
def test_two_player_layoffs_match_oracle(seed: int) -> None:
    hands = knock_position(random.Random(seed), 2)
    assume(hands is not None)
    assert hands is not None
    result = run_score(hands)
    check_replay(hands, result, on_layoffs=False)
    check_optimal_opponents(hands, result, on_layoffs=False)
    check_scoring(hands, result)
    assert knocker_utility(("", result["winner"], result["penalties"])) == oracle_best_utility(
        hands
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(SEEDS, st.sampled_from((3, 4)), st.booleans())
def test_several_players_layoffs_match_oracle(seed: int, players: int, on_layoffs: bool) -> None:
    hands = knock_position(random.Random(seed), players)
    assume(hands is not None)
    assert hands is not None
    result = run_score(hands, layoff_on_layoffs=on_layoffs)
    check_replay(hands, result, on_layoffs)
    check_optimal_opponents(hands, result, on_layoffs)
    check_scoring(hands, result)
    if not on_layoffs:
        utility = knocker_utility(("", result["winner"], result["penalties"]))
        assert utility == oracle_best_utility(hands)


def test_generators_make_layoff_positions() -> None:
    """The knock positions are not all trivial: many let an opponent lay off."""
    rng = random.Random(7)
    with_layoffs = 0
    made = 0
    for _ in range(60):
        hands = knock_position(rng, 2)
        if hands is None:
            continue
        made += 1
        with_layoffs += bool(run_score(hands)["layoffs"])
    assert made >= 20
    assert with_layoffs >= made // 4
