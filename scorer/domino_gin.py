"""Domino Gin: gin rummy played with dominoes, two players, 7 tiles (seed 001, RULES.md).

Melds have at least 4 tiles: a **sequence** (tiles sharing one half whose other halves are
consecutive; the double ``[s-s]`` sits at position ``s``), **doubles** (4+ consecutive doubles)
or the **group of 6** (``[0-6][1-5][2-4][3-3]`` exactly; it takes no layoffs). Deadwood is the
pip sum of the tiles outside melds, with the arrangement that makes it least.

Choices where the texts are silent (also in docs/choices/dominoes.md):

- The knocker's melds are the arrangement with the least deadwood. When several arrangements
  tie, the knocker lays down the one that leaves the opponent the most deadwood after the
  opponent's best layoffs (the knocker plays for themselves); a remaining tie goes to the first
  in a fixed order (longest melds first).
- The opponent lays down their own best melds and lays off deadwood onto the knocker's
  sequences and doubles runs, choosing melds and layoffs together to leave the least deadwood.
  A tile may extend a run that an earlier layoff already extended.
- Equal deadwood after layoffs: the opponent scores 20 (RULES.md default).
- With a double-nine set the group of 6 is still the four 6-pip tiles; no other pip total makes
  a group.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from meldcam.vocabulary import DOMINO_SETS
from scorer.errors import HandError, PieceError
from scorer.game import (
    GameType,
    HandScore,
    MeldVerdict,
    OpeningVerdict,
    TableVerdict,
    judge_opening,
)
from scorer.hands import read_holdings, read_pieces, read_player, read_players
from scorer.messages import Message, say, say_n
from scorer.messages import names as listed
from scorer.options import OptionSpec
from scorer.pieces import Domino, Piece, parse_domino
from scorer.sets import (
    IN_THE_TWO_HANDS,
    IN_THESE_MELDS,
    IN_THIS_MELD,
    ON_THE_TABLE,
    check_available,
    domino_photo_set,
    dominoes,
)

GAME = "domino-gin"
SETS: tuple[str, ...] = ("double-six", "double-nine")
MIN_MELD = 4
BONUS = 20  # gin bonus and undercut bonus
GROUP_OF_SIX: frozenset[Domino] = frozenset(
    {Domino(0, 6), Domino(1, 5), Domino(2, 4), Domino(3, 3)}
)

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "set", str, "double-six", "domino set: double-six (28 tiles) or double-nine (55)", SETS
    ),
    OptionSpec(
        "target", int, 100, "the match ends when a player reaches this many points", minimum=1
    ),
)

PRESETS: dict[str, dict[str, Any]] = {"double-six": {}, "double-nine": {"set": "double-nine"}}

GAME_TYPE = GameType(
    name=GAME,
    title="Domino Gin",
    players=(2, 2),
    hand_style="knock",
    hand_sizes={2: 7},
    piece_kind="domino",
    sets=SETS,
    hints=None,
    from_hand=False,
    winner_opens=True,
    options=OPTIONS,
    presets=PRESETS,
    photo_set=domino_photo_set,
)


@dataclass(frozen=True)
class Meld:
    """A legal meld: ``kind`` is ``sequence`` (in ``suit``), ``doubles`` or ``group-of-6``.

    ``low``/``high`` are the first and last positions of a sequence (other halves) or doubles
    run; layoffs extend them by one at either end.
    """

    kind: str
    tiles: tuple[Domino, ...]
    suit: int = -1
    low: int = 0
    high: int = 0

    @property
    def pips(self) -> int:
        return sum(t.pips for t in self.tiles)


def classify(tiles: Sequence[Domino]) -> Meld | None:
    """The meld these tiles make, in display order, or None."""
    if len(tiles) < MIN_MELD or len(set(tiles)) != len(tiles):
        return None
    if frozenset(tiles) == GROUP_OF_SIX:
        return Meld("group-of-6", tuple(sorted(tiles)))
    if all(t.is_double for t in tiles):
        halves = sorted(t.low for t in tiles)
        if halves[-1] - halves[0] == len(tiles) - 1:
            return Meld("doubles", tuple(Domino(h, h) for h in halves), -1, halves[0], halves[-1])
    common = {tiles[0].low, tiles[0].high}
    for tile in tiles[1:]:
        common &= {tile.low, tile.high}
    for suit in sorted(common):
        positions = sorted(t.other_half(suit) for t in tiles)
        if positions[-1] - positions[0] == len(tiles) - 1:
            ordered = tuple(Domino(suit, p) for p in positions)
            return Meld("sequence", ordered, suit, positions[0], positions[-1])
    return None


def meld_reason(tiles: Sequence[Domino]) -> Message:
    """Why these tiles are no Domino Gin meld, in a player's words."""
    if len(tiles) < MIN_MELD:
        return say(
            "meld.too-short-4",
            "a meld needs at least 4 tiles; this one has {size}",
            size=len(tiles),
        )
    repeated = [t for t, n in Counter(tiles).items() if n > 1]
    if repeated:
        return say("meld.twice", "a meld cannot use {tile} twice", tile=repeated[0].name)
    if all(t.is_double for t in tiles):
        halves = sorted(t.low for t in tiles)
        gaps = [h for h in range(halves[0], halves[-1] + 1) if h not in halves]
        return say(
            "doubles.gap",
            "doubles must be consecutive: {tiles} missing",
            tiles=listed(f"{h}-{h}" for h in gaps),
        )
    common = {tiles[0].low, tiles[0].high}
    for tile in tiles[1:]:
        common &= {tile.low, tile.high}
    if common:
        suit = min(common)
        positions = sorted(t.other_half(suit) for t in tiles)
        gaps = [p for p in range(positions[0], positions[-1] + 1) if p not in positions]
        return say(
            "sequence.gap",
            "a sequence of {suit}s needs consecutive tiles: {tiles} missing",
            suit=suit,
            tiles=listed(Domino(suit, p).name for p in gaps),
        )
    if all(t.pips == 6 for t in tiles):
        return say("group6.exact", "the group of 6 is exactly 0-6, 1-5, 2-4 and 3-3")
    first = tiles[0]
    other = next((t for t in tiles[1:] if not {first.low, first.high} & {t.low, t.high}), tiles[1])
    return say(
        "meld.no-shared-half",
        "{a} and {b} share no half (a sequence needs one on every tile), and not all are doubles "
        "or the group of 6",
        a=first.name,
        b=other.name,
    )


def candidate_melds(hand: Sequence[Domino]) -> list[Meld]:
    """Every legal meld made of tiles of ``hand`` (distinct tiles), each once."""
    tiles = sorted(set(hand))
    found: dict[frozenset[Domino], Meld] = {}
    if set(tiles) >= GROUP_OF_SIX:
        meld = classify(sorted(GROUP_OF_SIX))
        assert meld is not None
        found[GROUP_OF_SIX] = meld
    suits = {half for t in tiles for half in (t.low, t.high)}
    lines: list[list[Domino]] = [[Domino(h, h) for h in range(13)]]
    lines += [[Domino(s, p) for p in range(13)] for s in sorted(suits)]
    present = set(tiles)
    for line in lines:
        for start in range(len(line)):
            for end in range(start + MIN_MELD, len(line) + 1):
                window = line[start:end]
                if not all(t in present for t in window):
                    break
                meld = classify(window)
                if meld is not None:
                    found.setdefault(frozenset(window), meld)
    return sorted(found.values(), key=lambda m: (-len(m.tiles), m.kind, m.tiles))


def arrangements(hand: Sequence[Domino]) -> list[tuple[Meld, ...]]:
    """Every set of disjoint melds from ``hand``, the empty one included.

    Not only the largest sets: an opponent may do better keeping a tile out of a meld of their
    own when another of their tiles can only be laid off after it.
    """
    melds = candidate_melds(hand)
    results: list[tuple[Meld, ...]] = []

    def extend(index: int, chosen: list[Meld], used: frozenset[Domino]) -> None:
        results.append(tuple(chosen))
        for i in range(index, len(melds)):
            meld = melds[i]
            if used.isdisjoint(meld.tiles):
                extend(i + 1, [*chosen, meld], used | frozenset(meld.tiles))

    extend(0, [], frozenset())
    return results


def deadwood_of(hand: Sequence[Domino], melds: Sequence[Meld]) -> list[Domino]:
    used = {t for meld in melds for t in meld.tiles}
    return [t for t in hand if t not in used]


def best_deadwood(hand: Sequence[Domino]) -> tuple[int, tuple[Meld, ...]]:
    """The least deadwood of ``hand`` and one arrangement that reaches it."""
    best: tuple[int, tuple[Meld, ...]] | None = None
    for arrangement in arrangements(hand):
        value = sum(t.pips for t in deadwood_of(hand, arrangement))
        if best is None or value < best[0]:
            best = (value, arrangement)
    assert best is not None  # the empty arrangement always exists
    return best


@dataclass(frozen=True)
class Layoff:
    tile: Domino
    meld: int  # index into the knocker's melds


def _extends(meld: Meld, tile: Domino, low: int, high: int) -> int | None:
    """The new position if ``tile`` extends ``meld`` (now spanning low..high) at an end."""
    if meld.kind == "doubles":
        if tile.is_double and tile.low in (low - 1, high + 1):
            return tile.low
        return None
    if meld.kind == "sequence" and meld.suit in (tile.low, tile.high):
        position = tile.other_half(meld.suit)
        if position in (low - 1, high + 1):
            return position
    return None


def layoff_plan(melds: Sequence[Meld], tiles: Sequence[Domino]) -> list[Layoff] | None:
    """An order to lay off all of ``tiles`` onto ``melds`` (a layoff may build on another), or None.

    The tiles given to one meld must continue it outwards without a gap on either side, so each
    tile is tried on each meld it could join and every meld's share is checked.
    """
    targets = [[i for i, m in enumerate(melds) if m.kind != "group-of-6"] for _ in tiles]
    for choice in product(*targets):
        plan: list[Layoff] = []
        ok = True
        for index, meld in enumerate(melds):
            share = [t for t, m in zip(tiles, choice, strict=True) if m == index]
            order = _chain(meld, share)
            if order is None:
                ok = False
                break
            plan.extend(Layoff(t, index) for t in order)
        if ok:
            return plan
    return None


def _chain(meld: Meld, share: list[Domino]) -> list[Domino] | None:
    """``share`` in an order in which each tile extends ``meld`` at an end, or None."""
    low, high = meld.low, meld.high
    left = list(share)
    order: list[Domino] = []
    while left:
        for tile in left:
            position = _extends(meld, tile, low, high)
            if position is not None:
                low, high = min(low, position), max(high, position)
                order.append(tile)
                left.remove(tile)
                break
        else:
            return None
    return order


@dataclass(frozen=True)
class Defence:
    """The opponent's best answer to a knock: own melds, layoffs, deadwood left."""

    deadwood: int
    melds: tuple[Meld, ...]
    layoffs: tuple[Layoff, ...]


def best_defence(knocker_melds: Sequence[Meld], hand: Sequence[Domino]) -> Defence:
    """Least deadwood for the opponent over own melds and layoffs together (not greedy)."""
    best: Defence | None = None
    for arrangement in arrangements(hand):
        loose = deadwood_of(hand, arrangement)
        # Try the layoff sets with the most pips first; stop at the first that can be laid off.
        subsets = sorted(
            (
                [t for bit, t in enumerate(loose) if mask >> bit & 1]
                for mask in range(1 << len(loose))
            ),
            key=lambda s: -sum(t.pips for t in s),
        )
        for subset in subsets:
            plan = layoff_plan(knocker_melds, subset) if subset else []
            if plan is None:
                continue
            value = sum(t.pips for t in loose) - sum(t.pips for t in subset)
            if best is None or value < best.deadwood:
                best = Defence(value, arrangement, tuple(plan))
            break
    assert best is not None
    return best


@dataclass(frozen=True)
class DominoGinRules:
    """Domino Gin with its options fixed (choices in the module docstring)."""

    options: Mapping[str, Any]
    game: str = GAME
    universe: Counter[Piece] = field(default_factory=Counter)
    target: int | None = 100
    hands_limit: int | None = None
    top: int = 6

    def parse(self, text: str) -> Domino:
        return parse_domino(text, max_pip=self.top)

    def _dominoes(self, pieces: Sequence[Piece], where: Message) -> list[Domino]:
        dominoes: list[Domino] = []
        for piece in pieces:
            if not isinstance(piece, Domino):
                raise PieceError(
                    say(
                        "piece.not-a-domino",
                        "{piece} is not a domino: {game} is played with dominoes",
                        piece=piece.name,
                        game=GAME_TYPE.title,
                    )
                )
            dominoes.append(piece)
        check_available(pieces, self.universe, where)
        return dominoes

    def check_meld(self, pieces: Sequence[Piece]) -> MeldVerdict:
        tiles = self._dominoes(pieces, IN_THIS_MELD)
        meld = classify(tiles)
        if meld is None:
            return MeldVerdict(tuple(tiles), False, reason=meld_reason(tiles))
        return MeldVerdict(tuple(tiles), True, meld.kind, meld.pips, readings=(meld.pips,))

    def check_opening(self, melds: Sequence[Sequence[Piece]]) -> OpeningVerdict:
        """Domino Gin has no opening threshold: the melds' total value, threshold 0."""
        self._dominoes([p for meld in melds for p in meld], IN_THESE_MELDS)
        return judge_opening([self.check_meld(meld) for meld in melds])

    def arrange_table(self, pieces: Sequence[Piece]) -> TableVerdict:
        tiles = self._dominoes(pieces, ON_THE_TABLE)
        if not tiles:
            return TableVerdict(True, ())
        for arrangement in arrangements(tiles):
            if not deadwood_of(tiles, arrangement):
                return TableVerdict(True, tuple(meld.tiles for meld in arrangement))
        value, arrangement = best_deadwood(tiles)
        left = deadwood_of(tiles, arrangement)
        reason = say_n(
            "table.deadwood",
            "{tiles} fit in no meld (deadwood {value} at best)",
            "{tiles} fit in no meld (deadwood {value} at best)",
            "count",
            tiles=listed(t.name for t in left),
            value=value,
            count=len(left),
        )
        return TableVerdict(False, None, reason)

    def score_hand(self, hand: Mapping[str, Any]) -> HandScore:
        players = read_players(hand, GAME_TYPE.title, *GAME_TYPE.players)
        knocker = str(read_player(hand, "knocker", players))
        opponent = players[1] if knocker == players[0] else players[0]
        size = GAME_TYPE.hand_sizes[len(players)]
        laid = say("hand.tiles-laid-down", "the {size} tiles laid down", size=size)
        hands_in = read_holdings(hand, "hands", players, laid)
        hands: dict[str, list[Domino]] = {}
        for name in players:
            names = hands_in.get(name)
            if names is None:
                raise HandError(
                    say(
                        "hand.no-hand-dominoes",
                        "{name} has no hand: list the {size} tiles laid down",
                        name=name,
                        size=size,
                    )
                )
            tiles = read_pieces(names, say("hand.hand-of", "{name}'s hand", name=name), self.parse)
            if len(tiles) != size:
                raise HandError(
                    say(
                        "hand.size-dominoes",
                        "{name} lays down {count} tiles; a Domino Gin hand after the discard has "
                        "{size}",
                        name=name,
                        count=len(tiles),
                        size=size,
                    )
                )
            hands[name] = tiles
        self._dominoes(hands[knocker] + hands[opponent], IN_THE_TWO_HANDS)

        knocker_hand = tuple(sorted(hands[knocker]))
        opponent_hand = tuple(sorted(hands[opponent]))
        if not candidate_melds(knocker_hand):
            raise HandError(
                say(
                    "knock.no-meld",
                    "{name} cannot knock without a meld of at least 4 tiles",
                    name=knocker,
                )
            )
        knock_value, _ = best_deadwood(knocker_hand)
        options = [
            a
            for a in arrangements(knocker_hand)
            if sum(t.pips for t in deadwood_of(knocker_hand, a)) == knock_value
        ]
        gin = next((a for a in options if not deadwood_of(knocker_hand, a)), None)
        if gin is not None:
            melds = gin
            defence = best_defence((), opponent_hand)
            return self._result(
                "gin",
                knocker,
                defence.deadwood + BONUS,
                {knocker: 0, opponent: defence.deadwood},
                {knocker: melds, opponent: defence.melds},
                (),
                (),
                {knocker: knocker_hand, opponent: opponent_hand},
                opponent,
            )
        # The knocker's best among equal deadwood: the layout that leaves the opponent most.
        scored = [(best_defence(a, opponent_hand), a) for a in options]
        defence, melds = max(scored, key=lambda pair: pair[0].deadwood)
        deadwood = {knocker: knock_value, opponent: defence.deadwood}
        shown = {knocker: melds, opponent: defence.melds}
        if knock_value < defence.deadwood:
            outcome, winner, points = "knock", knocker, defence.deadwood - knock_value
        else:
            outcome, winner, points = "undercut", opponent, knock_value - defence.deadwood + BONUS
        return self._result(
            outcome,
            winner,
            points,
            deadwood,
            shown,
            melds,
            defence.layoffs,
            {knocker: knocker_hand, opponent: opponent_hand},
            opponent,
        )

    def _result(
        self,
        outcome: str,
        winner: str,
        points: int,
        deadwood: dict[str, int],
        melds: dict[str, tuple[Meld, ...]],
        knocker_melds: tuple[Meld, ...],
        layoffs: tuple[Layoff, ...],
        hands: Mapping[str, Sequence[Domino]],
        opponent: str,
    ) -> HandScore:
        # each player's deadwood tiles: in no meld of their own and not laid off (the
        # page listed none); a layoff names its player, as Gin's do
        unmatched = {name: deadwood_of(hands[name], ms) for name, ms in melds.items()}
        for lay in layoffs:
            unmatched[opponent].remove(lay.tile)
        details = {
            "melds": {name: [[t.name for t in m.tiles] for m in ms] for name, ms in melds.items()},
            "layoffs": [
                {
                    "player": opponent,
                    "piece": lay.tile.name,
                    "cards": [lay.tile.name],
                    "onto": [t.name for t in knocker_melds[lay.meld].tiles],
                }
                for lay in layoffs
            ],
            "unmatched": {name: [t.name for t in tiles] for name, tiles in unmatched.items()},
        }
        deltas = {name: (points if name == winner else 0) for name in deadwood}
        return HandScore(outcome, winner, deltas, dict(deadwood), details)


def make_rules(options: dict[str, Any]) -> DominoGinRules:
    set_name = str(options["set"])
    top, _copies = DOMINO_SETS[set_name]
    return DominoGinRules(
        options=dict(options),
        universe=dominoes(set_name),
        target=int(options["target"]),
        top=top,
    )
