"""Gin Rummy with playing cards (2-4 players): melds, best arrangement, layoffs and scoring.

Source: RULES.md "Gin Rummy (cards)" and seeds/004 (Romanian). Choices where both are silent
(also written down in docs/choices/gin.md):

- Best arrangement = the melds that leave the least deadwood; found exactly by a search over
  the hand's cards (each card in one meld at most, long runs may be split, a card may serve a
  set or a run).
- The knocker lays down an arrangement with the least deadwood. When several have it, the
  knocker picks the one that is best for the knocker once every opponent has laid off
  optimally: a win over an undercut, then the most points won (or the fewest lost). Equal
  ones: the first found.
- Each opponent, in turn after the knocker, lays down melds and lays off so that the
  opponent's own deadwood is as small as possible (searched over every arrangement and every
  layoff, never greedy). Among equally good choices the opponent lays off as few cards as
  possible (a player keeps cards that do not help).
- Layoffs extend a knocker's run at either end with several cards in a row, or complete a
  knocker's three-card set. With ``layoff_on_layoffs`` off (default), a later opponent cannot
  build on an end another opponent laid off; with it on, they can. Nobody lays off onto an
  opponent's melds, and nobody lays off after gin.
- Gin cannot be undercut: an opponent with no deadwood still pays the gin bonus.
- Points: for 2 players the winner scores the loser's penalty (the classic score sheet). For
  3-4 players the winner scores the sum of all the losers' penalties; ``details.penalties``
  keeps the per-loser numbers of the source's table. Losers' deltas are 0.
- Meld kinds are ``set`` and ``run``; gin has no opening threshold (check_opening reports the
  value with threshold 0, and needs at least one meld, as in every game). A meld listing a card
  twice is judged not a meld; a hand, table or group of melds holding a card twice is an error
  (a deck has one of each card).
- The table check (``arrange_table``) runs a dynamic programme over ranks, so a whole deck is
  judged in well under a second; when the cards do not all fit, the reason names the cards
  left over by the best arrangement.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from meldcam.vocabulary import AUTO_SET, LETTER_SETS_BY_PRINT, LETTERS_FROM_PHOTO, SUIT_NAMES
from meldcam.vocabulary import CARD_RANKS as RANKS
from scorer.errors import HandError, PieceError
from scorer.game import (
    GameType,
    HandScore,
    MeldVerdict,
    OpeningVerdict,
    TableVerdict,
    judge_opening,
)
from scorer.hands import read_pieces, read_player, read_players
from scorer.messages import Message, names, say
from scorer.options import OptionSpec
from scorer.pieces import Card, CardJoker, Piece, parse_card
from scorer.sets import cards as card_deck
from scorer.sets import check_available

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("target", int, 100, "the match ends when a player reaches this total", minimum=1),
    OptionSpec("knock_limit", int, 10, "most deadwood a player may knock with", minimum=0),
    OptionSpec("gin_bonus", int, 25, "extra penalty for each loser of a gin", minimum=0),
    OptionSpec("undercut_bonus", int, 25, "extra penalty for a knocker who is undercut", minimum=0),
    OptionSpec(
        "layoff_on_layoffs",
        bool,
        False,
        "3-4 players: a later opponent may build on cards an earlier opponent laid off",
    ),
    # Not a rule: how the deck's photos are read (``vision.cards.letter_sets``).
    OptionSpec(
        "index_letters",
        str,
        LETTERS_FROM_PHOTO,
        "the letters the deck prints on its jacks, queens, kings and aces (English JQKA, "
        "Polish WDKA, German BDKA, French VDRA), for reading photos of it",
        choices=(*LETTER_SETS_BY_PRINT, LETTERS_FROM_PHOTO),
    ),
)

PRESETS: dict[str, dict[str, Any]] = {"classic": {}}


def deck_photo_set(options: Mapping[str, Any]) -> str | None:
    """The letter set the deck's photos are read for (``index_letters``): the set that prints
    them ("WDKA" -> "pl"), or told from each photo (``AUTO_SET``) by default."""
    letters = str(options.get("index_letters"))
    return AUTO_SET if letters == LETTERS_FROM_PHOTO else LETTER_SETS_BY_PRINT.get(letters)


GAME_TYPE = GameType(
    name="gin",
    title="Gin Rummy",
    players=(2, 4),
    hand_style="knock",
    hand_sizes={2: 10, 3: 7, 4: 7},
    piece_kind="card",
    sets=("deck",),
    hints=None,
    from_hand=False,
    winner_opens=False,
    options=OPTIONS,
    presets=PRESETS,
    photo_set=deck_photo_set,
)

NO_JOKERS = say("gin.no-jokers", "Gin Rummy is played without jokers")
# the suits as the messages say them
SUIT_WORDS = {
    "C": say("suit.clubs", "clubs"),
    "D": say("suit.diamonds", "diamonds"),
    "H": say("suit.hearts", "hearts"),
    "S": say("suit.spades", "spades"),
}
ACE_LOW_ONLY = say("run.ace-low", "the ace is low only: A-2-3 is a run, Q-K-A and K-A-2 are not")


# --- melds -------------------------------------------------------------------------------


def _rank_name(rank: int) -> str:
    return RANKS[rank - 1]


def _meld_problem(cards: Sequence[Card]) -> tuple[str | None, Message | None]:
    """(kind, None) for a legal meld, (None, reason) otherwise."""
    if len(cards) < 3:
        return None, say(
            "meld.too-short-cards", "a meld needs at least 3 cards, not {size}", size=len(cards)
        )
    counts = Counter(cards)
    for card, count in counts.items():
        if count > 1:
            return None, say(
                "cards.twice",
                "{card} appears {count} times: a deck has one of each card",
                card=card.name,
                count=count,
            )
    ranks = {c.rank for c in cards}
    suits = {c.suit for c in cards}
    if len(ranks) == 1:
        return "set", None  # distinct cards of one rank: at most 4, one per suit
    if len(suits) == 1:
        ordered = sorted(c.rank for c in cards)
        suit = cards[0].suit
        gaps = [(low, high) for low, high in itertools.pairwise(ordered) if high != low + 1]
        if not gaps:
            return "run", None  # A-2-...-K, all thirteen, too
        turns_corner = ordered[0] == 1 and ordered[-1] == 13
        high_ace = sorted(14 if rank == 1 else rank for rank in ordered)
        if turns_corner and all(b == a + 1 for a, b in itertools.pairwise(high_ace)):
            return None, ACE_LOW_ONLY  # Q-K-A: a run only if the ace were high
        low, high = gaps[0]
        ends = {"low": f"{_rank_name(low)}{suit}", "high": f"{_rank_name(high)}{suit}"}
        if turns_corner:
            return None, say(
                "run.rank-gap-ace",
                "runs need consecutive ranks: {low} and {high} have a gap ({ace})",
                ace=ACE_LOW_ONLY,
                **ends,
            )
        return None, say(
            "run.rank-gap", "runs need consecutive ranks: {low} and {high} have a gap", **ends
        )
    first = cards[0]
    other_rank = next(c for c in cards if c.rank != first.rank)
    other_suit = next(c for c in cards if c.suit != first.suit)
    return None, say(
        "meld.neither-cards",
        "a set needs one rank ({a} and {b} differ) and a run needs one suit ({a} is {a_suit}, "
        "{c} is {c_suit})",
        a=first.name,
        b=other_rank.name,
        c=other_suit.name,
        a_suit=SUIT_WORDS[first.suit],
        c_suit=SUIT_WORDS[other_suit.suit],
    )


def meld_masks(cards: Sequence[Card]) -> list[int]:
    """Every legal meld among ``cards`` (distinct), as bitmasks over their positions.

    Sets: each 3 of a rank and the 4. Runs: every stretch of 3+ consecutive ranks of one suit.
    """
    position = {card: i for i, card in enumerate(cards)}
    masks: list[int] = []
    by_rank: dict[int, list[int]] = {}
    for card, i in position.items():
        by_rank.setdefault(card.rank, []).append(i)
    for indices in by_rank.values():
        for size in (3, 4):
            for combo in itertools.combinations(sorted(indices), size):
                masks.append(sum(1 << i for i in combo))
    for suit in SUIT_NAMES:
        for low in range(1, 12):
            mask = 0
            for rank in range(low, 14):
                at = position.get(Card(rank, suit))
                if at is None:
                    break
                mask |= 1 << at
                if rank - low >= 2:
                    masks.append(mask)
    return masks


class _Search:
    """Least-deadwood arrangements of one hand of distinct cards, memoised over card subsets."""

    def __init__(self, cards: Sequence[Card]) -> None:
        self.cards = tuple(cards)
        self.values = [c.value for c in self.cards]
        melds = sorted(meld_masks(self.cards), key=lambda m: -m.bit_count())
        self.melds_with = [[m for m in melds if m >> i & 1] for i in range(len(self.cards))]
        self.full = (1 << len(self.cards)) - 1
        self._best: dict[int, int] = {0: 0}

    def deadwood(self, mask: int) -> int:
        """The least deadwood the cards in ``mask`` can have."""
        known = self._best.get(mask)
        if known is not None:
            return known
        low = (mask & -mask).bit_length() - 1
        rest = mask & ~(1 << low)
        best = self.values[low] + self.deadwood(rest)
        for meld in self.melds_with[low]:
            if meld & mask == meld and best > 0:
                best = min(best, self.deadwood(mask & ~meld))
        self._best[mask] = best
        return best

    def arrangements(self, mask: int) -> Iterator[tuple[int, ...]]:
        """Every set of disjoint melds (in ``mask``) leaving the least deadwood, melds first."""
        if mask == 0:
            yield ()
            return
        target = self.deadwood(mask)
        low = (mask & -mask).bit_length() - 1
        for meld in self.melds_with[low]:
            if meld & mask == meld and self.deadwood(mask & ~meld) == target:
                for rest in self.arrangements(mask & ~meld):
                    yield (meld, *rest)
        rest_mask = mask & ~(1 << low)
        if self.values[low] + self.deadwood(rest_mask) == target:
            yield from self.arrangements(rest_mask)

    def cards_of(self, mask: int) -> tuple[Card, ...]:
        return tuple(c for i, c in enumerate(self.cards) if mask >> i & 1)


def _sorted_meld(cards: Sequence[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=lambda c: (c.rank, c.suit)))


@dataclass(frozen=True)
class Arrangement:
    """Melds and deadwood cards of one hand, with the deadwood count."""

    melds: tuple[tuple[Card, ...], ...]
    unmatched: tuple[Card, ...]
    deadwood: int


def best_arrangement(cards: Sequence[Card]) -> Arrangement:
    """The arrangement with the least deadwood (exact; a few ms for a hand of 10-11 cards)."""
    if len(cards) > 16:
        return arrange_any(cards)  # the subset search grows too fast beyond a hand
    search = _Search(_distinct(cards))
    melds = next(search.arrangements(search.full))
    return _arrangement(search, search.full, melds)


def _arrangement(search: _Search, mask: int, melds: Sequence[int]) -> Arrangement:
    used = 0
    for meld in melds:
        used |= meld
    return Arrangement(
        melds=tuple(_sorted_meld(search.cards_of(m)) for m in melds),
        unmatched=_sorted_meld(search.cards_of(mask & ~used)),
        deadwood=search.deadwood(mask),
    )


def _distinct(cards: Sequence[Piece]) -> list[Card]:
    result: list[Card] = []
    for card in cards:
        if not isinstance(card, Card):
            raise PieceError(NO_JOKERS)
        result.append(card)
    check_available(result, card_deck())
    return result


# --- layoffs -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _TableMeld:
    """A knocker's meld on the table as opponents extend it."""

    number: int  # position in the knocker's arrangement
    original: tuple[Card, ...]
    kind: str
    suit: str = ""  # runs
    low: int = 0
    high: int = 0
    low_by_knocker: bool = True  # the card at each end is the knocker's own
    high_by_knocker: bool = True
    set_suits: frozenset[str] = frozenset()  # sets


def _table(melds: Sequence[Sequence[Card]]) -> tuple[_TableMeld, ...]:
    table = []
    for number, meld in enumerate(melds):
        if len({c.rank for c in meld}) == 1:
            table.append(
                _TableMeld(number, tuple(meld), "set", set_suits=frozenset(c.suit for c in meld))
            )
        else:
            ranks = [c.rank for c in meld]
            table.append(
                _TableMeld(number, tuple(meld), "run", meld[0].suit, min(ranks), max(ranks))
            )
    return tuple(table)


@dataclass(frozen=True)
class _Chain:
    """Cards an opponent could lay off in a row at one place: a prefix of ``cards`` is laid."""

    meld: int  # index into the table
    end: str  # "low", "high" or "set"
    cards: tuple[int, ...]  # positions in the opponent's hand, in laying order


def _chains(
    table: Sequence[_TableMeld], position: Mapping[Card, int], on_layoffs: bool
) -> list[_Chain]:
    chains = []
    for index, meld in enumerate(table):
        if meld.kind == "set":
            if len(meld.set_suits) == 3:
                rank = meld.original[0].rank
                for suit in SUIT_NAMES:
                    if suit not in meld.set_suits and Card(rank, suit) in position:
                        chains.append(_Chain(index, "set", (position[Card(rank, suit)],)))
            continue
        ends = (
            ("low", meld.low - 1, -1, meld.low_by_knocker),
            ("high", meld.high + 1, 1, meld.high_by_knocker),
        )
        for end, start, step, knockers in ends:
            if not (knockers or on_layoffs):
                continue
            run: list[int] = []
            rank = start
            while 1 <= rank <= 13 and Card(rank, meld.suit) in position:
                run.append(position[Card(rank, meld.suit)])
                rank += step
            if run:
                chains.append(_Chain(index, end, tuple(run)))
    return chains


@dataclass(frozen=True)
class _Turn:
    """One opponent's laying down after a knock."""

    player: str
    melds: tuple[tuple[Card, ...], ...]
    unmatched: tuple[Card, ...]
    deadwood: int
    deadwood_before: int
    layoffs: tuple[tuple[int, tuple[Card, ...]], ...]  # (knocker meld number, cards in order)


def _opponent_turn(
    player: str, hand: Sequence[Card], table: tuple[_TableMeld, ...], on_layoffs: bool
) -> tuple[_Turn, tuple[_TableMeld, ...]]:
    """The opponent's best melds and layoffs, and the table afterwards."""
    search = _Search(hand)
    position = {card: i for i, card in enumerate(search.cards)}
    chains = _chains(table, position, on_layoffs)
    best: tuple[int, int, tuple[int, ...]] | None = None
    for lengths in itertools.product(*(range(len(chain.cards) + 1) for chain in chains)):
        laid = 0
        count = 0
        for chain, length in zip(chains, lengths, strict=True):
            for i in chain.cards[:length]:
                laid |= 1 << i
            count += length
        if laid.bit_count() != count:
            continue  # one card offered at two places
        key = (search.deadwood(search.full & ~laid), count, lengths)
        if best is None or key[:2] < best[:2]:
            best = key
    chosen = best[2] if best is not None else ()
    laid = 0
    layoffs = []
    new_table = list(table)
    for chain, length in zip(chains, chosen, strict=True):
        if not length:
            continue
        indices = chain.cards[:length]
        for i in indices:
            laid |= 1 << i
        cards = tuple(search.cards[i] for i in indices)
        meld = new_table[chain.meld]
        if chain.end == "set":
            meld = replace(meld, set_suits=meld.set_suits | {cards[0].suit})
        elif chain.end == "low":
            meld = replace(meld, low=cards[-1].rank, low_by_knocker=False)
        else:
            meld = replace(meld, high=cards[-1].rank, high_by_knocker=False)
        new_table[chain.meld] = meld
        layoffs.append((table[chain.meld].number, cards))
    remaining = search.full & ~laid
    own = _arrangement(search, remaining, next(search.arrangements(remaining)))
    turn = _Turn(
        player=player,
        melds=own.melds,
        unmatched=own.unmatched,
        deadwood=own.deadwood,
        deadwood_before=search.deadwood(search.full),
        layoffs=tuple(layoffs),
    )
    return turn, tuple(new_table)


# --- scoring -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Outcome:
    kind: str  # gin, knock, undercut
    winner: str
    penalties: dict[str, int]
    deadwood: dict[str, int]
    turns: tuple[_Turn, ...]
    knocker_melds: tuple[tuple[Card, ...], ...]
    knocker_unmatched: tuple[Card, ...]

    def knocker_utility(self, knocker: str) -> int:
        """Points the knocker wins (positive) or pays (negative) with this outcome."""
        if self.winner == knocker:
            return sum(self.penalties.values())
        return -self.penalties[knocker]


@dataclass(frozen=True)
class GinRules:
    """Gin Rummy with its options fixed."""

    options: Mapping[str, Any]
    game: str = GAME_TYPE.name
    universe: Counter[Piece] = field(default_factory=card_deck)
    hands_limit: int | None = None

    @property
    def target(self) -> int | None:
        return int(self.options["target"])

    def parse(self, text: str) -> Piece:
        piece = parse_card(text)
        if isinstance(piece, CardJoker):
            raise PieceError(NO_JOKERS)
        return piece

    def check_meld(self, pieces: Sequence[Piece]) -> MeldVerdict:
        played = tuple(pieces)
        if any(not isinstance(p, Card) for p in played):
            return MeldVerdict(played, False, reason=NO_JOKERS)
        cards = [p for p in played if isinstance(p, Card)]
        kind, reason = _meld_problem(cards)
        if kind is None:
            return MeldVerdict(played, False, reason=reason)
        return MeldVerdict(played, True, kind=kind, value=sum(c.value for c in cards))

    def check_opening(self, melds: Sequence[Sequence[Piece]]) -> OpeningVerdict:
        """Gin has no opening threshold: the melds' total value, threshold 0."""
        _distinct([p for meld in melds for p in meld])
        return judge_opening([self.check_meld(meld) for meld in melds])

    def arrange_table(self, pieces: Sequence[Piece]) -> TableVerdict:
        cards = _distinct(pieces)
        if not cards:
            return TableVerdict(True, ())
        best = arrange_any(cards)
        if best.unmatched:
            reason = say(
                "table.cards-left",
                "these cards do not all fit in melds: at best {cards} left over",
                cards=names(c.name for c in best.unmatched),
            )
            return TableVerdict(False, None, reason)
        return TableVerdict(True, best.melds)

    def score_hand(self, hand: Mapping[str, Any]) -> HandScore:
        players, knocker, hands = self._read_hand(hand)
        knocker_search = _Search(hands[knocker])
        knocker_deadwood = knocker_search.deadwood(knocker_search.full)
        limit = int(self.options["knock_limit"])
        if knocker_deadwood > limit:
            best = _arrangement(
                knocker_search,
                knocker_search.full,
                next(knocker_search.arrangements(knocker_search.full)),
            )
            raise HandError(
                say(
                    "knock.over-limit",
                    "{name} cannot knock: deadwood {deadwood} ({cards}) is over the limit of "
                    "{limit}",
                    name=knocker,
                    deadwood=knocker_deadwood,
                    cards=names(c.name for c in best.unmatched),
                    limit=limit,
                )
            )
        start = players.index(knocker)
        order = players[start + 1 :] + players[:start]
        outcome: _Outcome | None = None
        seen: set[tuple[Any, ...]] = set()
        for melds in knocker_search.arrangements(knocker_search.full):
            arrangement = _arrangement(knocker_search, knocker_search.full, melds)
            signature = _table_signature(arrangement.melds)
            if signature in seen:
                continue
            seen.add(signature)
            candidate = self._play_out(knocker, order, hands, arrangement)
            if outcome is None or candidate.knocker_utility(knocker) > outcome.knocker_utility(
                knocker
            ):
                outcome = candidate
            if knocker_deadwood == 0:
                break  # gin: nobody lays off, so every arrangement scores the same
        assert outcome is not None
        return self._hand_score(players, knocker, outcome)

    # -- helpers --

    def _read_hand(self, hand: Mapping[str, Any]) -> tuple[list[str], str, dict[str, list[Card]]]:
        players = read_players(hand, GAME_TYPE.title, *GAME_TYPE.players)
        knocker = str(read_player(hand, "knocker", players))
        given = hand.get("hands")
        if not isinstance(given, Mapping):
            raise HandError(
                say(
                    "hand.not-a-map-cards", "hands must map each player to the cards they laid down"
                )
            )
        for name in given:
            if name not in players:
                raise HandError(
                    say(
                        "hand.unknown-hand",
                        "a hand is given for {name}, who is not one of the players",
                        name=repr(name),
                    )
                )
        size = GAME_TYPE.hand_sizes[len(players)]
        hands: dict[str, list[Card]] = {}
        for name in players:
            if name not in given:
                raise HandError(say("hand.no-cards", "no cards given for {name}", name=name))
            what = say("hand.hand-of", "{name}'s hand", name=name)
            cards = read_pieces(given[name], what, self.parse, "cards")
            if len(cards) != size:
                raise HandError(
                    say(
                        "hand.size-cards",
                        "{name} has {count} cards; with {players} players each hand laid down "
                        "after the discard has {size}",
                        name=name,
                        count=len(cards),
                        players=len(players),
                        size=size,
                    )
                )
            hands[name] = [c for c in cards if isinstance(c, Card)]
        everything = [c for name in players for c in hands[name]]
        for card, count in Counter(everything).items():
            if count > 1:
                holders = [name for name in players if card in hands[name]]
                if len(holders) > 1:
                    raise HandError(
                        say(
                            "cards.in-two-hands",
                            "{card} is in the hands of both {a} and {b}: a deck has one of each "
                            "card",
                            card=card.name,
                            a=holders[0],
                            b=holders[1],
                        )
                    )
                raise HandError(
                    say(
                        "cards.twice-in-hand",
                        "{card} appears {count} times in {name}'s hand",
                        card=card.name,
                        count=count,
                        name=holders[0],
                    )
                )
        return players, knocker, hands

    def _play_out(
        self,
        knocker: str,
        order: Sequence[str],
        hands: Mapping[str, Sequence[Card]],
        arrangement: Arrangement,
    ) -> _Outcome:
        knocker_deadwood = arrangement.deadwood
        table = _table(arrangement.melds)
        on_layoffs = bool(self.options["layoff_on_layoffs"])
        turns = []
        for player in order:
            if knocker_deadwood == 0:
                search = _Search(hands[player])
                own = _arrangement(search, search.full, next(search.arrangements(search.full)))
                turns.append(
                    _Turn(player, own.melds, own.unmatched, own.deadwood, own.deadwood, ())
                )
            else:
                turn, table = _opponent_turn(player, hands[player], table, on_layoffs)
                turns.append(turn)
        deadwood = {knocker: knocker_deadwood} | {t.player: t.deadwood for t in turns}
        penalties = {name: 0 for name in deadwood}
        if knocker_deadwood == 0:
            kind, winner = "gin", knocker
            for turn in turns:
                penalties[turn.player] = turn.deadwood + int(self.options["gin_bonus"])
        else:
            under = [t for t in turns if t.deadwood <= knocker_deadwood]
            if under:
                kind = "undercut"
                winner = min(under, key=lambda t: t.deadwood).player  # first of the lowest
                for name, points in deadwood.items():
                    if name != winner:
                        penalties[name] = points - deadwood[winner]
                penalties[knocker] += int(self.options["undercut_bonus"])
            else:
                kind, winner = "knock", knocker
                for turn in turns:
                    penalties[turn.player] = turn.deadwood - knocker_deadwood
        return _Outcome(
            kind,
            winner,
            penalties,
            deadwood,
            tuple(turns),
            arrangement.melds,
            arrangement.unmatched,
        )

    def _hand_score(self, players: Sequence[str], knocker: str, outcome: _Outcome) -> HandScore:
        deltas = {name: 0 for name in players}
        deltas[outcome.winner] = sum(outcome.penalties.values())
        turns = {t.player: t for t in outcome.turns}
        melds = {
            name: [
                [c.name for c in meld]
                for meld in (outcome.knocker_melds if name == knocker else turns[name].melds)
            ]
            for name in players
        }
        unmatched = {
            name: [
                c.name
                for c in (outcome.knocker_unmatched if name == knocker else turns[name].unmatched)
            ]
            for name in players
        }
        layoffs = [
            {
                "player": turn.player,
                "cards": [c.name for c in cards],
                "onto": [c.name for c in outcome.knocker_melds[number]],
            }
            for turn in outcome.turns
            for number, cards in turn.layoffs
        ]
        before = {knocker: outcome.deadwood[knocker]} | {
            t.player: t.deadwood_before for t in outcome.turns
        }
        return HandScore(
            outcome=outcome.kind,
            winner=outcome.winner,
            deltas=deltas,
            deadwood={name: outcome.deadwood[name] for name in players},
            details={
                "penalties": {name: outcome.penalties[name] for name in players},
                "melds": melds,
                "layoffs": layoffs,
                "unmatched": unmatched,
                "deadwood_before_layoffs": {name: before[name] for name in players},
            },
        )


def _table_signature(melds: Sequence[Sequence[Card]]) -> tuple[Any, ...]:
    """What opponents can lay off onto: runs merged where they touch, and the sets."""
    sets = sorted(tuple(sorted(c.name for c in m)) for m in melds if len({c.rank for c in m}) == 1)
    runs = sorted(
        (m[0].suit, min(c.rank for c in m), max(c.rank for c in m))
        for m in melds
        if len({c.rank for c in m}) > 1
    )
    merged: list[list[Any]] = []
    for suit, low, high in runs:
        if merged and merged[-1][0] == suit and merged[-1][2] + 1 == low:
            merged[-1][2] = high
        else:
            merged.append([suit, low, high])
    return (tuple(sets), tuple(tuple(r) for r in merged))


def arrange_any(cards: Sequence[Card]) -> Arrangement:
    """The least-deadwood arrangement of any number of distinct cards (a whole table).

    Dynamic programme over ranks A..K: the state is, per suit, the length of the run being
    built (0, 1, 2 or 3+). A card joins its suit's run, a set of its rank, or the deadwood;
    a run of 1-2 must go on, and a set takes 3-4 cards. Polynomial, unlike a subset search.
    """
    present = {(c.rank, c.suit) for c in _distinct(cards)}
    suits = tuple(SUIT_NAMES)
    start = (0, 0, 0, 0)
    # state -> (deadwood, choices so far: per rank, per suit "run"/"set"/"dead"/"")
    layer: dict[tuple[int, ...], tuple[int, tuple[tuple[str, ...], ...]]] = {start: (0, ())}
    for rank in range(1, 14):
        options = []
        for suit in suits:
            options.append(("run", "set", "dead") if (rank, suit) in present else ("",))
        following: dict[tuple[int, ...], tuple[int, tuple[tuple[str, ...], ...]]] = {}
        for state, (cost, history) in layer.items():
            for roles in itertools.product(*options):
                in_set = roles.count("set")
                if in_set in (1, 2):
                    continue
                lengths = []
                for length, role in zip(state, roles, strict=True):
                    if role == "run":
                        lengths.append(min(length + 1, 3))
                    elif length in (1, 2):
                        break  # a run of one or two cards cannot stop here
                    else:
                        lengths.append(0)
                else:
                    added = min(rank, 10) * roles.count("dead")
                    key = tuple(lengths)
                    if key not in following or following[key][0] > cost + added:
                        following[key] = (cost + added, (*history, roles))
        layer = following
    cost, history = min(
        (value for state, value in layer.items() if all(n in (0, 3) for n in state)),
        key=lambda value: value[0],
    )
    melds: list[tuple[Card, ...]] = []
    unmatched: list[Card] = []
    for rank, roles in enumerate(history, start=1):
        set_cards = [
            Card(rank, suit) for suit, role in zip(suits, roles, strict=True) if role == "set"
        ]
        if set_cards:
            melds.append(tuple(set_cards))
        unmatched += [
            Card(rank, suit) for suit, role in zip(suits, roles, strict=True) if role == "dead"
        ]
    for index, suit in enumerate(suits):
        run: list[Card] = []
        for rank, roles in enumerate([*history, ("",) * len(suits)], start=1):
            if roles[index] == "run":
                run.append(Card(rank, suit))
            elif run:
                melds.append(tuple(run))
                run = []
    return Arrangement(tuple(melds), _sorted_meld(unmatched), cost)


def make_rules(options: Mapping[str, Any]) -> GinRules:
    return GinRules(options=dict(options))
