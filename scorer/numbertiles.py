"""Shared rules of the number-tile games (Rummikub, Remik liczbowy): melds, openings, tables, hands.

Choices where RULES.md and the sources are silent (also in docs/choices/number-tiles.md):

- A meld is judged as a multiset: the order in which its tiles are listed does not matter, so
  ``joker red-5 red-6`` may be 4-5-6 or 5-6-7 (readings 15 and 18, value 18).
- A meld of jokers only (3 or more of them, so only with 3-4 jokers in the set) is legal; its
  readings are every group and run it could stand for.
- When one meld can be read both as a run and as a group (``red-5 joker joker``), ``kind`` is
  the kind of the highest reading; on a tie of values, "run".
- A joker may stand for any tile of the set, even one whose copies are all visible elsewhere.
- A table (``arrange_table``) is judged as a multiset too; an empty table is valid.
- Hand end, pool exhausted (both games, RULES.md default): the lowest rack wins; each other
  player scores minus (own - lowest), the winner plus the total. A tie for the lowest rack:
  nobody wins the hand and everybody scores 0, outcome ``tie`` (as RULES.md's Remino default;
  ``scorer.hands.tied_hand``).
- In a hand's JSON a player without a rack is an error, except the winner (empty rack); a loser
  with an empty rack is an error (only one player can go out); unknown keys are an error.
- ``from_hand`` ("remik z reki") exists only in Remik; true in Rummikub is an error, and true
  with no winner is an error.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from meldcam.vocabulary import TILE_COLOURS as COLOURS
from meldcam.vocabulary import tile_name
from scorer.errors import HandError, PieceError
from scorer.game import (
    GameType,
    HandScore,
    MeldVerdict,
    OpeningVerdict,
    TableVerdict,
    judge_opening,
)
from scorer.games import game_type
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
from scorer.pieces import Joker, NumberPiece, Piece, Tile, parse_tile
from scorer.sets import IN_THESE_MELDS, IN_THIS_MELD, ON_THE_TABLE, check_available

JOKER_PENALTY = 30  # a joker left on a rack
JOKER = Joker()
_COLOUR_INDEX = {colour: index for index, colour in enumerate(COLOURS)}


def number_tile_game(
    name: str,
    title: str,
    from_hand: bool,
    options: tuple[OptionSpec, ...],
    presets: Mapping[str, Mapping[str, Any]],
) -> GameType:
    """The descriptor of a number-tile game (Rummikub, Remik): 2-4 players with racks, the
    number-tile set, the number-tile hint finder; what differs is passed."""
    return GameType(
        name=name,
        title=title,
        players=(2, 4),
        hand_style="racks",
        hand_sizes={},
        piece_kind="tile",
        sets=("number-tiles",),
        hints="number-tiles",
        from_hand=from_hand,
        winner_opens=False,
        options=options,
        presets=presets,
    )


def tile_sort_key(piece: Piece) -> tuple[int, int, int]:
    """Jokers last; tiles by number, then colour in the canonical colour order."""
    if isinstance(piece, Tile):
        return (0, piece.number, _COLOUR_INDEX[piece.colour])
    return (1, 0, 0)


def count_grid(pieces: Counter[NumberPiece], width: int) -> list[list[int]]:
    """How many tiles there are of each colour (rows, in COLOURS order) and number (columns)."""
    grid = [[0] * width for _ in COLOURS]
    for piece, count in pieces.items():
        if isinstance(piece, Tile):
            grid[_COLOUR_INDEX[piece.colour]][piece.number] += count
    return grid


def rack_value(pieces: Iterable[NumberPiece]) -> int:
    """Points of tiles left on a rack: the numbers, a joker 30."""
    return sum(p.number if isinstance(p, Tile) else JOKER_PENALTY for p in pieces)


# ---------------------------------------------------------------------------------------------
# One meld


@dataclass(frozen=True)
class Reading:
    """One way to read a meld: a run of ``colour`` from ``start``, or a group of ``start``s."""

    kind: str  # "run" or "group"
    value: int
    start: int
    length: int
    colour: str | None = None  # runs only


def meld_readings(tiles: Sequence[Tile], jokers: int, numbers: int) -> list[Reading]:
    """Every run and group the tiles plus ``jokers`` jokers can stand for (empty: not a meld)."""
    size = len(tiles) + jokers
    readings: list[Reading] = []
    if size < 3:
        return readings
    distinct_colours = len({t.colour for t in tiles}) == len(tiles)
    distinct_numbers = len({t.number for t in tiles}) == len(tiles)
    if size <= len(COLOURS):
        if not tiles:
            readings += [Reading("group", n * size, n, size) for n in range(1, numbers + 1)]
        elif len({t.number for t in tiles}) == 1 and distinct_colours:
            number = tiles[0].number
            readings.append(Reading("group", number * size, number, size))
    if size <= numbers:
        if not tiles:
            for start in range(1, numbers - size + 2):
                value = size * start + size * (size - 1) // 2
                readings += [Reading("run", value, start, size, c) for c in COLOURS]
        elif len({t.colour for t in tiles}) == 1 and distinct_numbers:
            low = min(t.number for t in tiles)
            high = max(t.number for t in tiles)
            for start in range(max(1, high - size + 1), min(low, numbers - size + 1) + 1):
                value = size * start + size * (size - 1) // 2
                readings.append(Reading("run", value, start, size, tiles[0].colour))
    return readings


def _differing_pair(tiles: Sequence[Tile], attribute: str) -> tuple[Tile, Tile]:
    first = tiles[0]
    other = next(t for t in tiles if getattr(t, attribute) != getattr(first, attribute))
    return first, other


def _twice(tiles: Sequence[Tile], attribute: str) -> Tile:
    seen: set[Any] = set()
    for tile in tiles:
        key = getattr(tile, attribute)
        if key in seen:
            return tile
        seen.add(key)
    raise AssertionError("no repeated attribute")


# the tiles' colours as the messages say them
COLOUR_WORDS = {
    "red": say("colour.red", "red"),
    "orange": say("colour.orange", "orange"),
    "blue": say("colour.blue", "blue"),
    "black": say("colour.black", "black"),
}


def too_short(size: int) -> Message:
    return say("meld.too-short", "a meld needs at least 3 tiles; this one has {size}", size=size)


def meld_failure(tiles: Sequence[Tile], jokers: int, numbers: int) -> Message:
    """Why the tiles plus jokers are no meld, in a player's words (call only when they are not)."""
    size = len(tiles) + jokers
    if size < 3:
        return too_short(size)
    if not tiles:
        return say("meld.jokers-alone", "{size} jokers alone make no meld in this set", size=size)
    same_number = len({t.number for t in tiles}) == 1
    same_colour = len({t.colour for t in tiles}) == 1
    if same_number and len(tiles) > 1:
        # Read as a group (a repeated tile like red-5 red-5 lands here too).
        if size > len(COLOURS):
            return say(
                "group.too-long",
                "a group has at most 4 tiles, one of each colour; this one has {size}",
                size=size,
            )
        if len({t.colour for t in tiles}) < len(tiles):
            tile = _twice(tiles, "colour")
            return say(
                "group.colour-twice",
                "groups need different colours: {colour} is there twice ({tile})",
                colour=COLOUR_WORDS[tile.colour],
                tile=tile.name,
            )
    if same_colour:
        colour = tiles[0].colour
        if len({t.number for t in tiles}) < len(tiles):
            return say(
                "run.number-twice",
                "a run cannot hold the same number twice: {tile}",
                tile=_twice(tiles, "number").name,
            )
        if size > numbers:
            return say(
                "run.too-long",
                "a run has at most {most} tiles (1 to {most}); this one has {size}",
                most=numbers,
                size=size,
            )
        present = {t.number for t in tiles}
        low, high = min(present), max(present)
        if low == 1 and high == numbers:
            ends = {"last": tile_name(colour, numbers), "first": tile_name(colour, 1)}
            return say(
                "run.wraps",
                "runs do not wrap around: {last} and {first} cannot sit side by side",
                **ends,
            )
        missing = [n for n in range(low, high + 1) if n not in present]
        gap: Message | str
        if len(missing) > 3:
            gap = say_n(
                "run.gap-between",
                "{count} tile between {low} and {high}",
                "{count} tiles between {low} and {high}",
                "count",
                count=len(missing),
                low=tile_name(colour, low),
                high=tile_name(colour, high),
            )
        else:
            gap = names(tile_name(colour, n) for n in missing)
        filled = (
            say_n(
                "run.jokers-to-fill",
                "only {count} joker to fill",
                "only {count} jokers to fill",
                "count",
                count=jokers,
            )
            if jokers
            else say("run.no-joker", "and no joker to fill")
        )
        return say("run.gap", "the run has a gap: {gap} missing, {filled}", gap=gap, filled=filled)
    distinct_numbers = len({t.number for t in tiles}) == len(tiles)
    distinct_colours = len({t.colour for t in tiles}) == len(tiles)
    a, b = _differing_pair(tiles, "colour")
    c, d = _differing_pair(tiles, "number")
    if distinct_numbers:
        return say(
            "run.colours-differ", "runs need one colour: {a} and {b} differ", a=a.name, b=b.name
        )
    if distinct_colours:
        return say(
            "group.numbers-differ", "groups need one number: {a} and {b} differ", a=c.name, b=d.name
        )
    return say(
        "meld.neither",
        "neither a run (one colour: {a} and {b} differ) nor a group (one number: {c} and {d} "
        "differ)",
        a=a.name,
        b=b.name,
        c=c.name,
        d=d.name,
    )


def judge_meld(pieces: Sequence[NumberPiece], numbers: int) -> MeldVerdict:
    """Kind, value and every consistent value of one meld, or the reason it is none."""
    tiles = [p for p in pieces if isinstance(p, Tile)]
    jokers = len(pieces) - len(tiles)
    readings = meld_readings(tiles, jokers, numbers)
    if not readings:
        return MeldVerdict(tuple(pieces), False, reason=meld_failure(tiles, jokers, numbers))
    best = max(readings, key=lambda r: (r.value, r.kind == "run"))
    values = tuple(sorted({r.value for r in readings}))
    return MeldVerdict(tuple(pieces), True, kind=best.kind, value=best.value, readings=values)


# ---------------------------------------------------------------------------------------------
# Tables and best moves: one search by number over open runs per colour (van Rijn, Takes &
# Vis 2016). ``arrange_table`` asks it to lay out the table; the best-move finder
# (scorer.hints) asks it to lay out the table plus the most of the rack.


def build_groups(
    grouped: Sequence[list[NumberPiece]], jokers: int, count: int
) -> list[list[NumberPiece]]:
    """Deal tiles of one number into ``count`` groups (distinct colours each), jokers filling up."""
    if count == 0:
        return []
    groups: list[list[NumberPiece]] = [[] for _ in range(count)]
    for tiles in grouped:
        targets = sorted(groups, key=len)[: len(tiles)]
        for group, tile in zip(targets, tiles, strict=True):
            group.append(tile)
    for _ in range(jokers):
        min(groups, key=len).append(JOKER)
    return [sorted(group, key=tile_sort_key) for group in groups]


# A placed piece is worth COUNT_WEIGHT plus its value, so one more piece beats any value.
COUNT_WEIGHT = 1 << 20
# 3 or more leftover jokers form a meld of their own: room for 2 is all parking can need
PARKING_NEEDED = 2
# calls of the search before a position goes to the integer program (about 7 us a call)
SEARCH_CALLS = 2000

ColourState = tuple[int, int, int]  # open runs of length 1, 2, and 3 or more
# The search packs a colour's state in 9 bits (3 per count: at most 2 tiles + 4 jokers a
# number) and the table's state in one int, colour c at bit 9c: cheap to hash and to update.
TableState = int
Extras = tuple[int, int]  # opening: melds formed and opening value so far (capped); else room
_COLOUR_BITS = 9
_SHORT_RUNS = sum(0o77 << (_COLOUR_BITS * c) for c in range(len(COLOURS)))  # the n1, n2 bits
_CLEAR = [~(0o777 << (_COLOUR_BITS * c)) for c in range(len(COLOURS))]


def _pack(cstate: ColourState) -> int:
    n1, n2, n3 = cstate
    return n1 | n2 << 3 | n3 << 6


def _key(
    v: int, c: int, state: TableState, used: int, grouped: int, most: int, extras: Extras
) -> int:
    """One int for a search state (extras[1], an opening value, is unbounded: on top)."""
    high = (((((extras[1] * 4 + extras[0]) * 4 + most) * 16 + grouped) * 8 + used) * 8 + c) * 32
    return (high + v) << (_COLOUR_BITS * len(COLOURS)) | state


@dataclass(frozen=True, slots=True)
class _ColourChoice:
    """What one colour does at one number."""

    jokers: int  # jokers standing in this colour's runs here
    grouped: int  # real tiles sent to groups
    extra: int  # optional tiles used
    extended: int  # runs of 3+ extended (the others end before this number)
    after: int  # the colour's state after this number, packed and shifted into place
    started: int  # runs started here
    in_runs: int  # pieces (tiles and jokers) going into runs here
    room: int  # jokers that runs ending here could take above their last tile


@dataclass(frozen=True)
class Solution:
    """A layout of the required pieces plus ``placed`` optional ones; ``score`` as maximised.

    ``exact`` is false when a time budget ran out first: the best found, maybe not the best.
    """

    melds: tuple[tuple[NumberPiece, ...], ...]
    placed: tuple[NumberPiece, ...]
    score: int
    exact: bool = True


class _OverBudget(Exception):
    """The search went past its calls: the position goes to the integer program."""


@dataclass
class _Search:
    """Lay out every required piece plus optional ones, maximising (pieces placed, value).

    Numbers go from 1 up and, within a number, colours one at a time (a broken-profile search:
    the state holds the colours already decided at this number and the ones still to decide,
    so the work per number is a sum over colours, not a product). Per colour the state is how
    many runs are open with length 1, 2 and 3+; the rest is the jokers used so far, the tiles
    sent to groups at this number (their sum and the most of one colour) and, for an opening,
    the melds formed and their value. Short runs must be extended; 3+ runs may end. Jokers in
    groups need no colour; leftover jokers may form one meld of jokers only.

    Canonical jokers (not in opening mode, where a joker's place changes the value): any
    layout can be rewritten so that every joker is needed where it stands, plus jokers
    "parked" where there is room (above a run that ends below the top number, or in a group
    of 3). So the search puts a joker only where a meld needs it: extending a short run, in a
    group that would not be legal without it, inside a run (a 3+ run extended by a joker must
    go on), or starting a run that reaches the top number; and it counts the room (up to 2,
    as 3 leftover jokers form their own meld) to park the rest at the end. This cuts the
    states by a large factor; the brute-force tests check that nothing is lost.

    The memoised search is also a branch and bound (a state whose ceiling, every optional
    piece still ahead, cannot beat the best found is cut), asked first for the whole rack, then
    one piece fewer, and so on (``solve``).

    With ``opening`` set (threshold, min_melds) the layout must form at least min_melds melds
    worth at least threshold points (jokers count the number they stand for).
    """

    numbers: int
    required: Counter[NumberPiece]
    optional: Counter[NumberPiece]
    opening: tuple[int, int] | None = None
    max_calls: int | None = None  # OverBudget past this many calls of ``best``
    # canonical jokers (above); never with an opening, where a joker's place changes its value
    canonical: bool = True
    memo: dict[int, tuple[int | None, Any, bool]] = field(default_factory=dict)
    calls: int = 0

    def __post_init__(self) -> None:
        width = self.numbers + 3
        colours = len(COLOURS)
        self.req = count_grid(self.required, width)
        self.opt = count_grid(self.optional, width)
        self.avail = [
            [r + o for r, o in zip(self.req[c], self.opt[c], strict=True)] for c in range(colours)
        ]
        self.req_jokers = self.required[JOKER]
        self.opt_jokers = self.optional[JOKER]
        self.total_jokers = self.req_jokers + self.opt_jokers
        self.joker_score = COUNT_WEIGHT + JOKER_PENALTY
        # ceiling[v][c]: the optional tiles' score from colour c at number v on, plus jokers
        self.ceiling = [[0] * (colours + 1) for _ in range(width + 1)]
        following = self.opt_jokers * self.joker_score
        for v in range(self.numbers + 1, 0, -1):
            self.ceiling[v][colours] = following
            for c in range(colours - 1, -1, -1):
                here = self.opt[c][v] * (COUNT_WEIGHT + v) if v <= self.numbers else 0
                self.ceiling[v][c] = self.ceiling[v][c + 1] + here
            following = self.ceiling[v][0]
        # next_tile[c][v]: the first number above v holding a tile of colour c (or a big number)
        self.next_tile = [[width * 2] * (width + 1) for _ in COLOURS]
        for c in range(colours):
            for v in range(width - 2, -1, -1):
                ahead = v + 1
                self.next_tile[c][v] = ahead if self.avail[c][ahead] else self.next_tile[c][ahead]
        # gaps_above[c][v]: numbers above v (up to the top) without a tile of colour c
        self.gaps_above = [[0] * (width + 1) for _ in COLOURS]
        for c in range(colours):
            for v in range(self.numbers - 1, 0, -1):
                self.gaps_above[c][v] = self.gaps_above[c][v + 1] + (not self.avail[c][v + 1])
        self.canonical = self.canonical and self.opening is None
        self.colour_memo: dict[tuple[int, int, int, int], list[_ColourChoice]] = {}
        self.threshold, self.min_melds = self.opening if self.opening else (0, 0)

    # -- search --------------------------------------------------------------------------

    def best(
        self,
        v: int,
        c: int,
        state: TableState,
        used: int,
        grouped: int,
        most: int,
        extras: Extras,
        need: int = 0,
    ) -> int | None:
        """Best score of optional pieces placeable from (number v, colour c) on, or None.

        ``grouped``/``most``: real tiles sent to groups at v so far, and the most of one colour.
        Branch and bound: only a score of ``need`` or more matters to the caller. The answer is
        exact when it is ``need`` or more; below that it is only an upper bound (None: no
        layout at all). The memo keeps exact answers and bounds apart.
        """
        self.calls += 1
        if self.max_calls is not None and self.calls > self.max_calls:
            raise _OverBudget
        key = _key(v, c, state, used, grouped, most, extras)
        found = self.memo.get(key)
        if found is not None:
            score, _, exact = found
            if exact or score is None or score < need:
                return score
        if v > self.numbers:
            result = self._finish(state, used, extras)
            self.memo[key] = (*result, True)
            return result[0]
        budget = self.total_jokers - used
        if c == 0 and self._deficit(v, state) > budget:
            self.memo[key] = (None, None, True)
            return None
        ceiling = self.ceiling[v][c]
        if ceiling < need:
            return ceiling
        best_score: int | None = None
        best_move: _ColourChoice | tuple[int, int] | None = None
        bound: int | None = None
        if c == len(COLOURS):
            for group_jokers in range(budget + 1 if grouped else 1):
                groups = _group_count(grouped, most, group_jokers)
                if groups is None:
                    continue
                if self.canonical:
                    # a joker the groups could do without is parked at the end instead
                    if group_jokers and _group_count(grouped, most, group_jokers - 1) is not None:
                        continue
                    after = self._park(
                        extras, 4 * groups - grouped - group_jokers, used + group_jokers
                    )
                else:
                    after = self._add(extras, groups, (grouped + group_jokers) * v)
                target = need if best_score is None else best_score + 1
                score = self.best(v + 1, 0, state, used + group_jokers, 0, 0, after, target)
                if score is None:
                    continue
                if score >= target:
                    best_score, best_move = score, (group_jokers, groups)
                    if score >= ceiling:
                        break
                elif bound is None or score > bound:
                    bound = score
        else:
            gain = COUNT_WEIGHT + v
            code = state >> (_COLOUR_BITS * c) & 0o777
            for choice in self._colour_choices(c, v, code, budget):
                if self.canonical:
                    after = self._park(extras, choice.room, used + choice.jokers)
                else:
                    after = self._add(extras, choice.started, choice.in_runs * v)
                target = need if best_score is None else best_score + 1
                gained = choice.extra * gain
                following = self.best(
                    v,
                    c + 1,
                    state & _CLEAR[c] | choice.after,
                    used + choice.jokers,
                    grouped + choice.grouped,
                    max(most, choice.grouped),
                    after,
                    target - gained,
                )
                if following is None:
                    continue
                score = following + gained
                if score >= target:
                    best_score, best_move = score, choice
                    if score >= ceiling:
                        break
                elif bound is None or score > bound:
                    bound = score
        if best_score is not None:
            self.memo[key] = (best_score, best_move, True)
            return best_score
        self.memo[key] = (bound, None, bound is None)
        return bound

    def _deficit(self, v: int, state: TableState) -> int:
        """Jokers needed at number ``v`` to extend the short runs open, beyond the tiles there."""
        needed = 0
        for colour in range(len(COLOURS)):
            code = state >> (_COLOUR_BITS * colour)
            short = (code & 7) + (code >> 3 & 7) - self.avail[colour][v]
            if short > 0:
                needed += short
        return needed

    def _park(self, extras: Extras, room: int, used: int) -> Extras:
        """Canonical mode: the room for parked jokers, capped at what can still be needed.

        That is the jokers not yet used, and at most 2 (3 or more form their own meld).
        """
        needed = min(PARKING_NEEDED, self.total_jokers - used)
        return (min(needed, extras[0] + room), 0)

    def _add(self, extras: Extras, melds: int, value: int) -> Extras:
        return (min(self.min_melds, extras[0] + melds), min(self.threshold, extras[1] + value))

    def _finish(
        self, state: TableState, used: int, extras: Extras
    ) -> tuple[int | None, int | None]:
        """No short run may stay open; leftover jokers form a meld of their own or are parked.

        The second value is the number of leftover jokers laid down.
        """
        if state & _SHORT_RUNS:
            return None, None
        left = self.total_jokers - used
        if self.canonical:
            laid = left if 3 <= left <= max(self.numbers, len(COLOURS)) else min(left, extras[0])
            if used + laid < self.req_jokers:
                return None, None
            return (used + laid - self.req_jokers) * self.joker_score, laid
        melds, value = extras
        if 3 <= left <= max(self.numbers, len(COLOURS)):
            melds, value = melds + 1, value + self._jokers_only_value(left)
            if melds >= self.min_melds and value >= self.threshold:
                return (used + left - self.req_jokers) * self.joker_score, left
            return None, None
        if used >= self.req_jokers and melds >= self.min_melds and value >= self.threshold:
            return (used - self.req_jokers) * self.joker_score, 0
        return None, None

    def _jokers_only_value(self, count: int) -> int:
        if count <= len(COLOURS):
            return count * self.numbers  # a group of the highest number
        return sum(range(self.numbers - count + 1, self.numbers + 1))

    def _colour_choices(self, c: int, v: int, code: int, budget: int) -> list[_ColourChoice]:
        key = (c, v, code, budget)
        cached = self.colour_memo.get(key)
        if cached is not None:
            return cached
        n1, n2, n3 = code & 7, code >> 3 & 7, code >> 6
        shift = _COLOUR_BITS * c
        must_extend = n1 + n2
        # A joker starting a run here needs a real tile of this colour within reach.
        reachable = must_extend + n3 > 0 or self.next_tile[c][v] <= v + budget
        joker_limit = budget if reachable else 0
        splitting = self.min_melds > 1  # ending a run to start another makes one more meld
        next_tiles, later_tiles = self.avail[c][v + 1], self.avail[c][v + 2]
        choices: list[_ColourChoice] = []
        # most optional tiles first: good layouts are found early and the ceiling cuts sooner
        for extra in range(self.opt[c][v], -1, -1):
            real = self.req[c][v] + extra
            for jokers in range(joker_limit + 1):
                spare = budget - jokers
                # jokers extend the short runs first: there they add no obligation
                jokers_short = min(jokers, must_extend)
                jokers_free = jokers - jokers_short
                for grouped in range(real + 1):
                    tiles_free = real - grouped - (must_extend - jokers_short)
                    if tiles_free < 0:
                        continue
                    most = min(n3, tiles_free + jokers_free)
                    for extended in range(0 if splitting else most, most + 1):
                        started = tiles_free + jokers_free - extended
                        by_tile = min(extended, tiles_free)
                        # canonical runs start with a joker only when they end at the top
                        joker_starts = started - (tiles_free - by_tile)
                        if joker_starts and self.canonical and self.gaps_above[c][v] > spare:
                            continue
                        if self.canonical:
                            # a 3+ run extended by a joker must go on (no joker ends a run)
                            pending, long = n1 + extended - by_tile, n2 + by_tile
                        else:
                            pending, long = n1, n2 + extended
                        # open short runs need tiles (or jokers) at the next numbers
                        if started + pending > next_tiles + spare or started > later_tiles + spare:
                            continue
                        # a run that ends leaves room for jokers above it
                        room = (n3 - extended) * (self.numbers - v + 1)
                        # 3+ runs beyond what the next number can extend are all alike: they end
                        fit = max(0, next_tiles + spare - started - pending)
                        if long > fit:
                            room += (long - fit) * (self.numbers - v)
                            long = fit
                        choices.append(
                            _ColourChoice(
                                jokers,
                                grouped,
                                extra,
                                extended,
                                _pack((started, pending, long)) << shift,
                                started,
                                real - grouped + jokers,
                                room,
                            )
                        )
        self.colour_memo[key] = choices
        return choices

    # -- the layout ----------------------------------------------------------------------

    def solve(self) -> Solution | None:
        start: TableState = 0
        # aspiration: ask for every optional piece first, then one fewer, ... (the memo keeps
        # what each round learnt); most positions place all or nearly all of the rack
        pieces = sum(self.optional.values())
        for count in range(pieces, -1, -1):
            score = self.best(1, 0, start, 0, 0, 0, (0, 0), count * COUNT_WEIGHT)
            if score is None or score >= count * COUNT_WEIGHT:
                break
        if score is None:
            return None
        return self._solution(score)

    def _solution(self, score: int) -> Solution:
        """Follow the memo's moves from the start to the layout scoring ``score``."""
        start: TableState = 0
        layout = _Layout(self.numbers)
        placed: list[NumberPiece] = []
        state, used, extras = start, 0, (0, 0)
        for v in range(1, self.numbers + 1):
            grouped: list[list[NumberPiece]] = []
            in_groups, most = 0, 0
            for c in range(len(COLOURS)):
                choice = self.memo[_key(v, c, state, used, in_groups, most, extras)][1]
                assert isinstance(choice, _ColourChoice)
                tile = Tile(COLOURS[c], v)
                placed += [tile] * choice.extra
                real = self.req[c][v] + choice.extra
                grouped.append([tile] * choice.grouped)
                layout.runs_step(c, v, tile, real - choice.grouped, choice, self.canonical)
                if self.canonical:
                    extras = self._park(extras, choice.room, used + choice.jokers)
                else:
                    extras = self._add(extras, choice.started, choice.in_runs * v)
                state = state & _CLEAR[c] | choice.after
                used += choice.jokers
                in_groups += choice.grouped
                most = max(most, choice.grouped)
            move = self.memo[_key(v, len(COLOURS), state, used, in_groups, most, extras)][1]
            assert isinstance(move, tuple)
            group_jokers, groups = move
            layout.groups(v, build_groups(grouped, group_jokers, groups))
            if self.canonical:
                extras = self._park(
                    extras, 4 * groups - in_groups - group_jokers, used + group_jokers
                )
            else:
                extras = self._add(extras, groups, (in_groups + group_jokers) * v)
            used += group_jokers
        laid = self.memo[_key(self.numbers + 1, 0, state, used, 0, 0, extras)][1]
        assert isinstance(laid, int)
        melds = layout.finish(laid)
        placed += [JOKER] * max(0, used + laid - self.req_jokers)
        return Solution(melds, tuple(placed), score)


class _Layout:
    """Builds the melds of a solution number by number, following the search's choices."""

    def __init__(self, numbers: int) -> None:
        self.numbers = numbers
        self.melds: list[tuple[int, int, list[NumberPiece]]] = []  # (first number, order, meld)
        # per colour: runs that must be extended (short, or a 3+ run ending with a joker that
        # has to go on) and runs of 3+ that may end
        self.must: list[list[tuple[int, list[NumberPiece]]]] = [[] for _ in COLOURS]
        self.free: list[list[tuple[int, list[NumberPiece]]]] = [[] for _ in COLOURS]

    def runs_step(
        self, c: int, v: int, tile: Tile, tiles: int, choice: _ColourChoice, canonical: bool
    ) -> None:
        jokers = choice.jokers
        must, free = self.must[c], self.free[c]
        next_must: list[tuple[int, list[NumberPiece]]] = []
        next_free: list[tuple[int, list[NumberPiece]]] = []
        for start, run in must:  # jokers first: on a short run they add no obligation
            if jokers:
                run.append(JOKER)
                jokers -= 1
            else:
                run.append(tile)
                tiles -= 1
            (next_free if len(run) >= 3 else next_must).append((start, run))
        for index, (start, run) in enumerate(free):
            if index >= choice.extended:
                self.melds.append((start, c, run))
            elif tiles:
                run.append(tile)
                tiles -= 1
                next_free.append((start, run))
            else:
                run.append(JOKER)
                jokers -= 1
                (next_must if canonical else next_free).append((start, run))
        fresh: list[NumberPiece] = [tile] * tiles + [JOKER] * jokers
        next_must += [(v, [piece]) for piece in fresh]
        assert tiles >= 0 and jokers >= 0 and len(fresh) == choice.started
        self.must[c], self.free[c] = next_must, next_free

    def groups(self, v: int, groups: list[list[NumberPiece]]) -> None:
        self.melds += [(v, len(COLOURS), group) for group in groups]

    def finish(self, jokers: int) -> tuple[tuple[NumberPiece, ...], ...]:
        """Close every run; lay ``jokers`` leftover jokers as a meld of their own or parked."""
        for c in range(len(COLOURS)):
            assert not self.must[c]
            self.melds += [(start, c, run) for start, run in self.free[c]]
        if jokers >= 3:
            self.melds.append((self.numbers + 1, 0, [JOKER] * jokers))
        else:
            for _ in range(jokers):
                self._park()
        self.melds.sort(key=lambda item: (item[0], item[1]))
        return tuple(tuple(meld) for _, _, meld in self.melds)

    def _park(self) -> None:
        """One joker into a group of 3, else above or below a run with room."""
        for _, order, meld in self.melds:
            if order == len(COLOURS) and len(meld) == 3:
                meld.append(JOKER)
                return
        for index, (start, order, meld) in enumerate(self.melds):
            if order < len(COLOURS) and start + len(meld) - 1 < self.numbers:
                meld.append(JOKER)
                return
            if order < len(COLOURS) and start > 1:
                meld.insert(0, JOKER)
                self.melds[index] = (start - 1, order, meld)
                return
        raise AssertionError("no room for a parked joker")


def _group_count(grouped: int, most: int, jokers: int) -> int | None:
    """The most groups of 3-4 pieces one number makes (``most``: tiles of one colour), or None.

    ``total // 3`` groups is the most; when it fails, fewer fail too (0 for no pieces).
    """
    total = grouped + jokers
    count = total // 3
    if total and (4 * count < total or most > count):
        return None
    return count


def solve_number_tiles(
    required: Sequence[NumberPiece],
    optional: Sequence[NumberPiece],
    numbers: int,
    opening: tuple[int, int] | None = None,
    deadline: float | None = None,
    search_calls: int | None = None,
) -> Solution | None:
    """Lay out all ``required`` pieces and the best choice of ``optional`` ones (None: no way).

    ``opening`` = (threshold, min_melds) asks for an opening: at least min_melds melds worth
    threshold points or more (the empty layout then does not count).

    The search runs first; past ``search_calls`` calls (SEARCH_CALLS: tens of milliseconds)
    the position goes to the integer program of ``scorer.tilemip``, which bounds the tail.
    Both are exact. ``deadline`` (a ``time.perf_counter`` time) stops the integer program
    there: the best layout found so far comes back with ``exact`` false, or TimeoutError
    when there is none.
    """
    limit = SEARCH_CALLS if search_calls is None else search_calls
    search = _Search(numbers, Counter(required), Counter(optional), opening, max_calls=limit)
    with suppress(_OverBudget):
        return search.solve()
    from scorer import tilemip

    relaxation = tilemip.relax(required, optional, numbers, opening)
    if relaxation is None:
        return None
    # its vertex when integral (then the best), else HiGHS's branch and bound
    found = relaxation.integral() or relaxation.branch_and_bound(deadline)
    if found is None:
        return None
    score = found.count * COUNT_WEIGHT + found.value
    return Solution(found.melds, found.placed, score, found.exact)


def arrange(pieces: Iterable[NumberPiece], numbers: int = 13) -> Solution | None:
    """Lay out all ``pieces`` as melds (None when they cannot all be): ``arrange_table``'s
    question, the best-move search with nothing optional. Its jokers are not made canonical:
    with nothing optional that buys no speed, and a table keeps its jokers in the melds the
    search finds for them instead of parked at the end."""
    return _Search(numbers, Counter(pieces), Counter(), canonical=False).solve()


def lonely_tile(pieces: Sequence[NumberPiece], numbers: int) -> Tile | None:
    """A tile that no run or group of these pieces could hold, even ignoring the others' needs."""
    return next(_lonely(pieces, numbers), None)  # stops at the first (the move finder's quick no)


def lonely_tiles(pieces: Sequence[NumberPiece], numbers: int) -> list[Tile]:
    """Every tile (once, lowest number first) that no run or group of these pieces could hold."""
    return list(_lonely(pieces, numbers))


def _lonely(pieces: Sequence[NumberPiece], numbers: int) -> Iterator[Tile]:
    jokers = sum(1 for p in pieces if not isinstance(p, Tile))
    if jokers >= 2:
        return
    present = {(p.colour, p.number) for p in pieces if isinstance(p, Tile)}
    for colour, number in sorted(present, key=lambda cn: (cn[1], _COLOUR_INDEX[cn[0]])):
        partners = sum(1 for c in COLOURS if c != colour and (c, number) in present)
        if partners + jokers >= 2:
            continue
        windows = [range(s, s + 3) for s in range(number - 2, number + 1)]
        if any(
            w.start >= 1
            and w.stop - 1 <= numbers
            and sum(1 for n in w if n != number and (colour, n) not in present) <= jokers
            for w in windows
        ):
            continue
        yield Tile(colour, number)


# ---------------------------------------------------------------------------------------------
# The rules object


@dataclass(frozen=True, eq=False)
class NumberTileRules:
    """Rummikub or Remik liczbowy with its options fixed (the Rules protocol of scorer.game)."""

    game: str
    options: Mapping[str, Any]
    numbers: int
    jokers: int
    threshold: int
    min_melds: int
    target: int | None
    hands_limit: int | None
    from_hand_doubles: bool  # Remik's "remik z reki"
    universe: Counter[Piece] = field(default_factory=Counter, repr=False)

    # -- pieces --------------------------------------------------------------------------

    def parse(self, text: str) -> NumberPiece:
        try:
            piece = parse_tile(text)
        except PieceError:
            parse_tile(text, max_number=self.numbers)  # raises, naming this set's own range
            raise
        self._check_piece(piece)
        return piece

    def _check_piece(self, piece: Piece) -> None:
        if isinstance(piece, Joker):
            if not self.jokers:
                raise PieceError(
                    say("piece.no-jokers", "joker: this game is played without jokers (jokers=0)")
                )
        elif isinstance(piece, Tile):
            if piece.number > self.numbers:
                if "numbers" in self.options:
                    raise PieceError(
                        say(
                            "piece.tile-out-of-set-extended",
                            "{tile}: tiles in this set run from 1 to {most} (numbers=17 for the "
                            "extended set)",
                            tile=piece.name,
                            most=self.numbers,
                        )
                    )
                raise PieceError(
                    say(
                        "piece.tile-out-of-set",
                        "{tile}: tiles in this set run from 1 to {most}",
                        tile=piece.name,
                        most=self.numbers,
                    )
                )
        else:
            raise PieceError(
                say(
                    "piece.not-a-tile-piece",
                    "{piece} is not a number tile (like red-7 or joker)",
                    piece=piece.name,
                )
            )

    def _checked(self, pieces: Iterable[Piece], where: Message | None = None) -> list[NumberPiece]:
        result: list[NumberPiece] = []
        for piece in pieces:
            self._check_piece(piece)
            assert isinstance(piece, Tile | Joker)
            result.append(piece)
        check_available(result, self.universe, where)
        return result

    # -- melds ---------------------------------------------------------------------------

    def check_meld(self, pieces: Sequence[Piece]) -> MeldVerdict:
        return judge_meld(self._checked(pieces, IN_THIS_MELD), self.numbers)

    def check_opening(self, melds: Sequence[Sequence[Piece]]) -> OpeningVerdict:
        self._checked([p for meld in melds for p in meld], IN_THESE_MELDS)
        verdicts = [self.check_meld(meld) for meld in melds]
        return judge_opening(verdicts, self.threshold, self.min_melds)

    # -- tables --------------------------------------------------------------------------

    def arrange_table(self, pieces: Sequence[Piece]) -> TableVerdict:
        tiles = self._checked(pieces, ON_THE_TABLE)
        if not tiles:
            return TableVerdict(True, ())
        if len(tiles) < 3:
            too_few = say(
                "table.too-few",
                "a meld needs at least 3 tiles; the table has {count}",
                count=len(tiles),
            )
            return TableVerdict(False, None, too_few)
        found = arrange(tiles, numbers=self.numbers)
        if found is not None:
            return TableVerdict(True, found.melds)
        alone = lonely_tiles(tiles, self.numbers)
        if alone:  # every one of them, so a player sees all that is wrong at once
            reason = say_n(
                "table.lonely",
                "{tiles} fits in no run or group with these tiles",
                "{tiles} fit in no run or group with these tiles",
                "count",
                tiles=names(tile.name for tile in alone),
                count=len(alone),
            )
        else:
            reason = say(
                "table.no-layout", "these tiles cannot all be laid out as runs and groups at once"
            )
        return TableVerdict(False, None, reason)

    # -- hands ---------------------------------------------------------------------------

    def score_hand(self, hand: Mapping[str, Any]) -> HandScore:
        players, winner, racks, from_hand = self._read_hand(hand)
        values = {name: rack_value(racks[name]) for name in players}
        details: dict[str, Any] = {"rack_values": values}
        if winner is not None:
            factor = 2 if from_hand else 1
            deltas = {name: -values[name] * factor for name in players if name != winner}
            deltas[winner] = sum(values.values()) * factor
            outcome = "remik-from-hand" if from_hand else "out"
            return HandScore(outcome, winner, {p: deltas[p] for p in players}, details=details)
        leaders = lowest_racks(values)
        if len(leaders) > 1:
            return tied_hand(values, leaders)
        best, lowest = leaders[0], values[leaders[0]]
        deltas = {name: -(values[name] - lowest) for name in players if name != best}
        deltas[best] = -sum(deltas.values())
        return HandScore("stock-exhausted", best, {p: deltas[p] for p in players}, details=details)

    def _read_hand(
        self, hand: Mapping[str, Any]
    ) -> tuple[list[str], str | None, dict[str, list[NumberPiece]], bool]:
        unknown_keys = set(hand) - {"players", "winner", "racks", "from_hand"}
        if unknown_keys:
            raise HandError(
                say(
                    "hand.unknown-keys",
                    "unknown key(s) in the hand: {keys} (use players, winner, racks, from_hand)",
                    keys=names(sorted(unknown_keys)),
                )
            )
        players = read_players(hand, self.game, *game_type(self.game).players)
        winner = read_player(hand, "winner", players, optional=True)
        from_hand = read_from_hand(hand)
        if from_hand and not self.from_hand_doubles:
            raise HandError(
                say(
                    "hand.no-from-hand",
                    "{game} has no 'remik z reki': from_hand must be false",
                    game=self.game,
                )
            )
        if from_hand and winner is None:
            raise HandError(
                say(
                    "hand.from-hand-no-winner",
                    "from_hand needs a winner: someone laid out all tiles at once",
                )
            )
        racks = read_racks(hand, players, winner, self.parse, self.universe)
        return players, winner, racks, from_hand
