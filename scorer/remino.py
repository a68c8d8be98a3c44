"""Remino: Rummikub played with dominoes (seed 000, RULES.md "Remino").

A non-double ``[a-b]`` belongs to two suits, ``a`` and ``b``; a double ``[s-s]`` to suit ``s``
only, where it sits at position ``s``. A **run** is 3+ tiles of one suit whose other halves are
consecutive; a **group** is 3 or 4 *different* tiles with the same pip total. The lowest and the
highest double of the set are jokers; a joker takes the value (pip total) of the tile it replaces.

Choices where the texts are silent (also in docs/choices/dominoes.md):

- A meld is judged as a multiset: the order the tiles lie in does not matter. When jokers make
  the meld ambiguous (``[3-8][4-8] joker`` is 2-8 or 5-8), every consistent value is reported in
  ``readings`` and ``value`` is the highest (RULES.md default).
- A joker may stand for any tile of the set at a free position, even one whose twin is a joker
  (``[7-9][8-9]`` + joker may read as ``[9-9]``). A meld of jokers only is legal.
- Runs are at most one whole suit long (positions 0..top), never wrap.
- The table layout returned by ``arrange_table`` merges runs of one suit that touch, places
  jokers at the position they stand for, and attaches spare jokers to melds before it forms
  a meld of jokers only.
- A rack's value is its pip sum with every joker counting 30; that value decides the winner when
  the stock runs out, and it is what the winner scores. ``from_hand`` has no effect in Remino
  (there is no bonus for going out in one turn) but must be a true/false value when given.
- A rack can never hold more than the 8 dealt tiles plus the whole stock at the deal:
  ``tiles in the set - 8 x (players - 1)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
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
from scorer.hands import (
    lowest_racks,
    read_from_hand,
    read_player,
    read_players,
    read_racks,
    tied_hand,
)
from scorer.messages import Message, names, say, say_n
from scorer.options import OptionSpec
from scorer.pieces import Domino, Piece, parse_domino
from scorer.sets import (
    IN_THESE_MELDS,
    IN_THIS_MELD,
    ON_THE_TABLE,
    check_available,
    domino_photo_set,
    dominoes,
)

GAME = "remino"
SETS: tuple[str, ...] = ("double-nine", "double-twelve", "2x-double-six")
JOKER_ON_RACK = 30
MIN_RUN, MIN_GROUP, MAX_GROUP = 3, 3, 4

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "set",
        str,
        "double-nine",
        "domino set: double-nine (55 tiles), double-twelve (91) or 2x-double-six (56)",
        choices=SETS,
    ),
    OptionSpec(
        "target", int, 100, "the match ends when a player reaches this many points", minimum=1
    ),
    OptionSpec(
        "opening", int, 0, "points a first meld must reach (0: any valid meld opens)", minimum=0
    ),
)

PRESETS: dict[str, dict[str, Any]] = {
    "double-nine": {},
    "double-twelve": {"set": "double-twelve"},
    "two-double-six": {"set": "2x-double-six"},
}

GAME_TYPE = GameType(
    name=GAME,
    title="Remino",
    players=(2, 4),
    hand_style="racks",
    hand_sizes={2: 8, 3: 8, 4: 8},
    piece_kind="domino",
    sets=SETS,
    hints="layout",
    from_hand=False,
    winner_opens=False,
    options=OPTIONS,
    presets=PRESETS,
    photo_set=domino_photo_set,
)


@dataclass(frozen=True)
class Reading:
    """One way to read a meld: a run in ``suit`` from position ``start``, or a group of ``total``.

    ``stand_ins`` are the tiles the jokers replace.
    """

    kind: str
    key: int  # suit for a run, pip total for a group
    start: int  # first position of a run; 0 for a group
    value: int
    stand_ins: tuple[Domino, ...]


def run_positions(suit: int, tiles: Sequence[Domino]) -> list[int]:
    """Each tile's position in ``suit``: its other half (a double ``[s-s]`` sits at ``s``)."""
    return [tile.other_half(suit) for tile in tiles]


def group_size_limit(total: int, top: int) -> int:
    """How many different tiles of the set have ``total`` pips."""
    return sum(1 for low in range(top + 1) if low <= total - low <= top)


def meld_readings(naturals: Sequence[Domino], jokers: int, top: int) -> list[Reading]:
    """Every legal reading of ``naturals`` plus ``jokers`` jokers as one meld."""
    size = len(naturals) + jokers
    readings: list[Reading] = []
    if size < MIN_RUN or len(set(naturals)) != len(naturals):
        return readings
    if naturals:
        suits = {naturals[0].low, naturals[0].high}
        for tile in naturals[1:]:
            suits &= {tile.low, tile.high}
    else:
        suits = set(range(top + 1))
    if size <= top + 1:
        for suit in sorted(suits):
            positions = run_positions(suit, naturals)
            lowest = min(positions, default=top)
            highest = max(positions, default=0)
            for start in range(max(0, highest - size + 1), min(lowest, top - size + 1) + 1):
                window = range(start, start + size)
                stand_ins = tuple(Domino(suit, p) for p in window if p not in positions)
                value = sum(suit + p for p in window)
                readings.append(Reading("run", suit, start, value, stand_ins))
    if MIN_GROUP <= size <= MAX_GROUP:
        totals = {tile.pips for tile in naturals} if naturals else set(range(2 * top + 1))
        if len(totals) == 1:
            for total in sorted(totals):
                if size <= group_size_limit(total, top):
                    free = [
                        Domino(low, total - low)
                        for low in range(top + 1)
                        if low <= total - low <= top and Domino(low, total - low) not in naturals
                    ]
                    readings.append(Reading("group", total, 0, size * total, tuple(free[:jokers])))
    return readings


def meld_reason(naturals: Sequence[Domino], jokers: int, top: int) -> Message:
    """Why ``naturals`` plus ``jokers`` jokers is no meld, in a player's words."""
    size = len(naturals) + jokers
    if size < MIN_RUN:
        return say(
            "meld.too-short", "a meld needs at least 3 tiles; this one has {size}", size=size
        )
    counts = Counter(naturals)
    for tile, count in counts.items():
        if count > 1:
            return say(
                "meld.tile-twice",
                "a meld cannot use {tile} twice (runs and groups need different tiles)",
                tile=tile.name,
            )
    if not naturals:
        return say("meld.jokers-only", "no run or group can be made of these jokers")
    common = {naturals[0].low, naturals[0].high}
    for tile in naturals[1:]:
        common &= {tile.low, tile.high}
    if common:
        suit = max(common) if len(common) == 1 else min(common)
        if size > top + 1:
            return say(
                "run.too-long-suit",
                "a run of {suit}s has at most {most} tiles in this set; this one has {size}",
                suit=suit,
                most=top + 1,
                size=size,
            )
        positions = sorted(run_positions(suit, naturals))
        missing = [p for p in range(positions[0], positions[-1] + 1) if p not in positions]
        if len(missing) > jokers:
            values = {"suit": suit, "tiles": names(Domino(suit, p).name for p in missing)}
            values["count"] = len(missing)
            if not jokers:
                return say_n(
                    "run.gap-no-joker",
                    "a run of {suit}s needs consecutive tiles: {tiles} is missing "
                    "(no joker to fill the gap)",
                    "a run of {suit}s needs consecutive tiles: {tiles} are missing "
                    "(no joker to fill the gap)",
                    "count",
                    **values,
                )
            help_ = say_n(
                "run.only-jokers",
                "only {jokers} joker",
                "only {jokers} jokers",
                "jokers",
                jokers=jokers,
            )
            return say_n(
                "run.gap-jokers",
                "a run of {suit}s needs consecutive tiles: {tiles} is missing "
                "({help} to fill the gap)",
                "a run of {suit}s needs consecutive tiles: {tiles} are missing "
                "({help} to fill the gap)",
                "count",
                help=help_,
                **values,
            )
        return say(
            "run.beyond-ends",
            "a run of {suit}s cannot reach beyond 0 and {top}",
            suit=suit,
            top=top,
        )
    totals = {tile.pips for tile in naturals}
    if len(totals) == 1:
        total = totals.pop()
        if size > MAX_GROUP:
            return say(
                "group.too-long-dominoes",
                "a group has at most 4 tiles; this one has {size}",
                size=size,
            )
        limit = group_size_limit(total, top)
        return say_n(
            "group.too-few-tiles",
            "only {count} different tile of this set has {total} pips: too few for a group of "
            "{size}",
            "only {count} different tiles of this set have {total} pips: too few for a group of "
            "{size}",
            "count",
            count=limit,
            total=total,
            size=size,
        )
    first = naturals[0]
    for other in naturals[1:]:
        if not {first.low, first.high} & {other.low, other.high} and first.pips != other.pips:
            return say(
                "meld.neither-dominoes",
                "{a} and {b} share no number (a run needs one) and have different pip totals, "
                "{a_pips} and {b_pips} (a group needs one)",
                a=first.name,
                b=other.name,
                a_pips=first.pips,
                b_pips=other.pips,
            )
    return say(
        "meld.neither-dominoes-all",
        "no number is on every tile (a run needs one) and the pip totals differ "
        "(a group needs one): {tiles}",
        tiles=names(f"{t.name} ({t.pips})" for t in naturals),
    )


@dataclass(frozen=True)
class ReminoRules:
    """Remino with its options fixed (see the module docstring for the choices made)."""

    options: Mapping[str, Any]
    game: str = GAME
    universe: Counter[Piece] = field(default_factory=Counter)
    target: int | None = 100
    hands_limit: int | None = None
    top: int = 9
    jokers: frozenset[Domino] = frozenset()

    # ---- pieces -----------------------------------------------------------------------------

    def parse(self, text: str) -> Domino:
        return parse_domino(text, max_pip=self.top)

    def is_joker(self, piece: Domino) -> bool:
        return piece in self.jokers

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

    def _split(self, pieces: Sequence[Domino]) -> tuple[list[Domino], int]:
        naturals = [p for p in pieces if not self.is_joker(p)]
        return naturals, len(pieces) - len(naturals)

    def rack_value(self, rack: Sequence[Domino]) -> int:
        return sum(JOKER_ON_RACK if self.is_joker(p) else p.pips for p in rack)

    # ---- melds ------------------------------------------------------------------------------

    def check_meld(self, pieces: Sequence[Piece]) -> MeldVerdict:
        tiles = self._dominoes(pieces, IN_THIS_MELD)
        naturals, jokers = self._split(tiles)
        readings = meld_readings(naturals, jokers, self.top)
        if not readings:
            return MeldVerdict(tuple(tiles), False, reason=meld_reason(naturals, jokers, self.top))
        best = max(readings, key=lambda r: (r.value, r.kind == "run"))
        values = tuple(sorted({r.value for r in readings}))
        return MeldVerdict(tuple(tiles), True, kind=best.kind, value=best.value, readings=values)

    def check_opening(self, melds: Sequence[Sequence[Piece]]) -> OpeningVerdict:
        self._dominoes([p for meld in melds for p in meld], IN_THESE_MELDS)
        verdicts = [self.check_meld(meld) for meld in melds]
        return judge_opening(verdicts, int(self.options["opening"]))

    # ---- table ------------------------------------------------------------------------------

    def arrange_table(self, pieces: Sequence[Piece]) -> TableVerdict:
        tiles = self._dominoes(pieces, ON_THE_TABLE)
        if not tiles:
            return TableVerdict(True, ())
        naturals, jokers = self._split(tiles)
        search = _TableSearch(self.top, Counter(naturals), jokers)
        layout = search.solve()
        if layout is None:
            stuck = search.stuck_tiles()
            if stuck:  # every one of them, so a player sees all that is wrong at once
                reason = say_n(
                    "table.stuck",
                    "{tiles} fits in no run or group with the other tiles on the table",
                    "{tiles} fit in no run or group with the other tiles on the table",
                    "count",
                    tiles=names(tile.name for tile in stuck),
                    count=len(stuck),
                )
            elif not naturals:
                reason = say_n(
                    "table.jokers-alone",
                    "{count} joker alone cannot form a meld",
                    "{count} jokers alone cannot form a meld",
                    "count",
                    count=jokers,
                )
            else:
                reason = say(
                    "table.no-layout-dominoes",
                    "these tiles cannot all be laid out as runs and groups at the same time",
                )
            return TableVerdict(False, None, reason)
        spare = sorted(p for p in tiles if self.is_joker(p))
        shown = tuple(
            tuple(spare.pop(0) if piece == _JOKER else piece for piece in meld.pieces)
            for meld in _merge_runs(layout)
        )
        return TableVerdict(True, shown)

    # ---- hand end ---------------------------------------------------------------------------

    def score_hand(self, hand: Mapping[str, Any]) -> HandScore:
        players = read_players(hand, GAME_TYPE.title, *GAME_TYPE.players)
        winner = read_player(hand, "winner", players, optional=True)
        read_from_hand(hand)  # accepted, no effect (module docstring)
        racks = read_racks(hand, players, winner, self.parse, self.universe)
        dealt = GAME_TYPE.hand_sizes[len(players)]
        limit = sum(self.universe.values()) - dealt * (len(players) - 1)
        for name in players:
            if len(racks[name]) > limit:
                raise HandError(
                    say(
                        "hand.rack-too-big",
                        "{name} holds {count} tiles, but with {players} players a rack can hold "
                        "at most {most} (8 dealt plus the whole stock)",
                        name=name,
                        count=len(racks[name]),
                        players=len(players),
                        most=limit,
                    )
                )
        values = {name: self.rack_value(racks[name]) for name in players}
        details: dict[str, Any] = {"rack_values": dict(values)}
        if winner is None:
            leaders = lowest_racks(values)
            if len(leaders) > 1:
                return tied_hand(values, leaders)
            winner = leaders[0]
            outcome = "stock-exhausted"
        else:
            outcome = "out"
        points = sum(values[name] for name in players if name != winner)
        deltas = {name: (points if name == winner else 0) for name in players}
        return HandScore(outcome, winner, deltas, None, details)


# ---- table layout search ------------------------------------------------------------------

# The search works with a placeholder for "some joker"; real joker tiles are put back at the end.
# [0-0] is a joker in every Remino set, so no natural tile is ever equal to it.
_JOKER = Domino(0, 0)
# Runs longer than this can always be split into runs of 3..5 (a piece of only jokers is a
# legal meld), so the search never needs longer windows; the layout is merged afterwards.
MAX_SEARCH_RUN = 5
# 3 or more spare jokers form a meld of their own: room for 2 is all they can need
PARKING_NEEDED = 2


@dataclass(frozen=True)
class _Meld:
    """A meld in a table layout: pieces in display order (runs by position)."""

    kind: str  # "run", "group" or "jokers"
    key: int  # suit or pip total
    start: int  # first position of a run
    pieces: tuple[Domino, ...]

    @property
    def end(self) -> int:
        return self.start + len(self.pieces) - 1


def _merge_runs(layout: list[_Meld]) -> list[_Meld]:
    """Join runs of one suit that touch (the search only builds runs of 3..5)."""
    runs = sorted((m for m in layout if m.kind == "run"), key=lambda m: (m.key, m.start))
    merged: list[_Meld] = []
    for meld in runs:
        last = merged[-1] if merged else None
        if last is not None and last.key == meld.key and last.end + 1 == meld.start:
            merged[-1] = _Meld("run", last.key, last.start, last.pieces + meld.pieces)
        else:
            merged.append(meld)
    others = [m for m in layout if m.kind != "run"]
    return merged + sorted(others, key=lambda m: (m.kind, m.key))


State = tuple[int, ...]  # how many of each natural tile are left, by index
# a meld, the indices of the naturals it uses (each once) and as a bit mask, the jokers it uses,
# the jokers it could still take
Option = tuple[_Meld, tuple[int, ...], int, int, int]


class _TableSearch:
    """Exact search for a partition of a multiset of dominoes (plus jokers) into melds.

    At each step the natural tile with the fewest candidate melds (first those without jokers)
    is covered first; a tile with none, or a tile left twice with no two melds that can hold
    both copies, ends the branch at once; states that failed are remembered. Candidate runs are
    3..5 long (longer runs split into those), so a layout is found whenever one exists. Tiles
    are numbered and the tiles left kept as counts and bit masks: the search runs on integers.

    Candidates hold only the jokers they need: inside a run's gaps, or to bring a run or group
    up to 3 tiles. Any layout becomes one of those by taking out its other jokers, and those
    fit back where they were; so at the end the spare jokers join melds with room for them, or,
    3 or more, form a meld of their own. A state is remembered with the room for jokers in the
    melds already laid (capped at 2, all that 1 or 2 spare jokers can need), which makes the
    memory exact.
    """

    def __init__(self, top: int, naturals: Counter[Domino], jokers: int) -> None:
        self.top = top
        self.start = naturals
        self.jokers = jokers
        self.failed: set[tuple[State, int, int]] = set()
        self.tiles = sorted(tile for tile, count in naturals.items() if count)
        self.index = {tile: index for index, tile in enumerate(self.tiles)}
        self.options = [self._options(tile) for tile in self.tiles]

    def solve(self) -> list[_Meld] | None:
        state = tuple(self.start[tile] for tile in self.tiles)
        return self._search(state, self.jokers, 0, [])

    def stuck_tiles(self) -> list[Domino]:
        """Every tile that fits in no meld at all with the other tiles."""
        state = tuple(self.start[tile] for tile in self.tiles)
        return [
            tile
            for index, tile in enumerate(self.tiles)
            if next(self.candidates(index, state, self.jokers), None) is None
        ]

    def candidates(self, index: int, state: State, jokers: int) -> Iterator[Option]:
        """Melds holding tile ``index``, made of the tiles left and up to ``jokers`` jokers."""
        present = _mask(state, 1)
        for option in self.options[index]:
            if option[3] <= jokers and option[2] & present == option[2]:
                yield option

    @staticmethod
    def _twice(options: list[Option], twice: int, jokers: int) -> bool:
        """Can two of ``options`` hold two copies of a tile at once?

        ``twice`` has the tiles left at least twice; both copies may go into equal melds.
        """
        for i, (_meld, _used, first, first_jokers, _room) in enumerate(options):
            for _meld2, _used2, second, second_jokers, _room2 in options[i:]:
                if first_jokers + second_jokers <= jokers and first & second & ~twice == 0:
                    return True
        return False

    def _options(self, tile: Domino) -> list[Option]:
        """Every meld holding ``tile`` with the tiles at the start; fewest jokers, longest first.

        Melds that use the same tiles and as many jokers are listed once.
        """
        counts = dict(self.start)
        found: dict[tuple[tuple[Domino, ...], int], Option] = {}
        melds = [m for suit in sorted({tile.low, tile.high}) for m in self._runs(tile, suit)]
        total = tile.pips
        limit = min(MAX_GROUP, group_size_limit(total, self.top))
        if limit >= MIN_GROUP:
            partners = [
                Domino(low, total - low)
                for low in range(self.top + 1)
                if low <= total - low <= self.top
                and Domino(low, total - low) != tile
                and counts.get(Domino(low, total - low), 0) > 0
            ]
            for size in range(MIN_GROUP, limit + 1):
                for chosen in combinations(partners, size - 1):
                    melds.append(_Meld("group", total, 0, (tile, *chosen)))
            for partner_count in range(MIN_GROUP - 1):
                for chosen in combinations(partners, partner_count):
                    spent = MIN_GROUP - 1 - partner_count
                    melds.append(_Meld("group", total, 0, (tile, *chosen, *(_JOKER,) * spent)))
        for meld in melds:
            used = tuple(sorted(p for p in meld.pieces if p != _JOKER))
            spent = len(meld.pieces) - len(used)
            if spent <= self.jokers and (used, spent) not in found:
                indices = tuple(self.index[p] for p in used)
                mask = sum(1 << i for i in indices)
                found[(used, spent)] = (meld, indices, mask, spent, self._room(meld))
        return sorted(found.values(), key=lambda option: (option[3], -len(option[1])))

    def _runs(self, tile: Domino, suit: int) -> Iterator[_Meld]:
        """Runs of 3..5 in ``suit`` through ``tile``; a run of 4 or 5 has tiles at both ends."""
        pos = tile.other_half(suit)
        top = self.top
        for length in range(MIN_RUN, MAX_SEARCH_RUN + 1):
            for start in range(max(0, pos - length + 1), min(pos, top - length + 1) + 1):
                choices: list[list[Domino]] = []
                for p in range(start, start + length):
                    natural = Domino(suit, p)
                    if p == pos:
                        choices.append([tile])
                        continue
                    end = p in (start, start + length - 1)
                    choice = [natural] if self.start.get(natural, 0) > 0 else []
                    if self.jokers and not (end and length > MIN_RUN):
                        choice.append(_JOKER)
                    if not choice:
                        break
                    choices.append(choice)
                else:
                    fillings: list[tuple[Domino, ...]] = [()]
                    for choice in choices:
                        fillings = [(*f, c) for f in fillings for c in choice]
                    for filling in fillings:
                        yield _Meld("run", suit, start, filling)

    def _room(self, meld: _Meld) -> int:
        """How many more jokers ``meld`` could take."""
        if meld.kind == "run":
            return self.top + 1 - len(meld.pieces)
        return min(MAX_GROUP, group_size_limit(meld.key, self.top)) - len(meld.pieces)

    def _search(
        self, state: State, jokers: int, room: int, path: list[_Meld]
    ) -> list[_Meld] | None:
        if not any(state):
            return self._finish(path, jokers) if jokers >= MIN_RUN or jokers <= room else None
        room = min(room, jokers)  # room beyond the jokers left is never used
        key = (state, jokers, room)
        if key in self.failed:
            return None
        # The tile with the fewest melds without jokers (then fewest melds) goes first. The
        # branch ends when a tile left twice has no two melds that can hold both copies.
        present, twice = _mask(state, 1), _mask(state, 2)
        best: list[Option] | None = None
        best_choice = (0, 0)
        for index, count in enumerate(state):
            if not count:
                continue
            options = [
                option
                for option in self.options[index]
                if option[3] <= jokers and option[2] & present == option[2]
            ]
            if count > 1 and not self._twice(options, twice, jokers):
                best = []
                break
            choice = (sum(1 for option in options if option[3] == 0), len(options))
            if best is None or choice < best_choice:
                best, best_choice = options, choice
                if len(best) <= 1:
                    break
        for meld, used, _used_mask, spent, more in best or []:
            left = list(state)
            for index in used:
                left[index] -= 1
            found = self._search(
                tuple(left), jokers - spent, min(PARKING_NEEDED, room + more), [*path, meld]
            )
            if found is not None:
                return found
        self.failed.add(key)
        return None

    def _finish(self, path: list[_Meld], jokers: int) -> list[_Meld]:
        """Every natural is placed: spare jokers join melds with room, or form their own meld."""
        layout = list(path)
        for _ in range(jokers):
            for index, meld in enumerate(layout):
                grown = self._grow(meld)
                if grown is not None:
                    layout[index] = grown
                    break
            else:
                return [*path, _Meld("jokers", 0, 0, (_JOKER,) * jokers)]
        return layout

    def _grow(self, meld: _Meld) -> _Meld | None:
        if meld.kind == "run":
            if meld.end < self.top:
                return _Meld("run", meld.key, meld.start, (*meld.pieces, _JOKER))
            if meld.start > 0:
                return _Meld("run", meld.key, meld.start - 1, (_JOKER, *meld.pieces))
        if meld.kind == "group" and self._room(meld) > 0:
            return _Meld("group", meld.key, 0, (*meld.pieces, _JOKER))
        return None


def _mask(state: State, least: int) -> int:
    """The tiles left at least ``least`` times, as a bit mask of their indices."""
    mask = 0
    for index, count in enumerate(state):
        if count >= least:
            mask |= 1 << index
    return mask


def make_rules(options: dict[str, Any]) -> ReminoRules:
    set_name = str(options["set"])
    top, _copies = DOMINO_SETS[set_name]
    universe = dominoes(set_name)
    jokers = frozenset({Domino(0, 0), Domino(top, top)})
    return ReminoRules(
        options=dict(options),
        universe=universe,
        target=int(options["target"]),
        top=top,
        jokers=jokers,
    )
