"""The best-move finder ("what is the most I can lay down?") for Rummikub, Remik and Remino.

A hint lays down the most rack pieces possible; among those, the highest value (the rack points
the player gets rid of: a tile's number or pips, a joker 30); among those, the one that changes
the fewest table melds. The whole new table is legal melds. A player who has not opened gets only
an opening from the rack alone (the game's threshold and, in Remik, its ``min_melds``), with the
table untouched. Jokers on the table may move; they stay on the table.

Number tiles: an exact search by number and, within a number, colour by colour (after van Rijn,
Takes & Vis 2016, as ``scorer.numbertiles``' table layout), with the rack as optional pieces and
(pieces placed, value) maximised together; in opening mode the state also carries the melds
formed and the opening value (both capped at what the rules ask). A position the search does
not finish within SEARCH_CALLS steps (tables holding jokers where some rack tile cannot be
placed: seconds, before) goes to an exact integer program (``scorer.tilemip``), which bounds the
tail. Remino: the rack choices are tried most pieces first on ``ReminoRules.arrange_table``.
A time budget (``hint(..., budget=)``) gives the best found so far, marked not exact.

Choices where RULES.md and the issue are silent (also in docs/choices/hints.md):

- ``table`` may be a flat list of pieces (as a photo reads it) or a list of melds. Melds given
  are checked one by one and an invalid one is named; a flat table is checked as a whole. The
  "melds changed" tie-break compares with the melds given, or, for a flat table, with the
  layout ``table`` would show for it.
- ``value`` is the rack points laid down (a joker 30): what the player's rack no longer counts.
  Openings are judged by meld values (a joker counts the tile it stands for), as check_opening.
- "Fewest melds changed": a table meld is unchanged when it is still on the new table as the
  same pieces. Keeping every meld and keeping all but one are searched exactly; otherwise the
  hint keeps the melds its best layout happens to keep and then keeps back, one meld at a time,
  every other meld whose pieces can be taken out of the layout by rebuilding only the melds
  around them (up to REPAIR_LIMIT pieces): a local optimum, fast; count and value stay
  optimal. This tie-break lays down the pieces the search chose; another choice of the same
  count and value might change fewer melds (Remino compares every such choice).
- ``opened`` defaults to false (the safe answer: an opening from the rack alone).
- No legal move: ``placed`` is empty, ``count`` and ``value`` 0, ``table`` the table as given.
- Remino openings: the rack choice must lay out as melds (``arrange_table``) and that layout
  must pass ``check_opening`` (the threshold is 0 unless the ``opening`` option is set).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from scorer.errors import HandError, OptionError
from scorer.games import GAME_MODULES, game_type
from scorer.numbertiles import (
    JOKER,
    JOKER_PENALTY,
    NumberTileRules,
    build_groups,
    count_grid,
    lonely_tile,
    tile_sort_key,
)
from scorer.pieces import COLOURS, NumberPiece, Piece, Tile
from scorer.sets import check_available

# A placed piece is worth COUNT_WEIGHT plus its value, so one more piece beats any value.
COUNT_WEIGHT = 1 << 20
# 3 or more leftover jokers form a meld of their own: room for 2 is all parking can need
PARKING_NEEDED = 2
# the most pieces the melds-changed tie-break lays out again to keep one more table meld
REPAIR_LIMIT = 40
# calls of the search before a position goes to the integer program (about 7 us a call)
SEARCH_CALLS = 2000
INEXACT_NOTE = "may not be the best: the time budget ran out first"

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
        # Without an opening to judge, jokers are kept canonical (see the class docstring).
        self.canonical = self.opening is None
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


# ---------------------------------------------------------------------------------------------
# Hints: the JSON position, the tie-breaks


@dataclass(frozen=True)
class Hint:
    """The best move: rack pieces to lay down and the whole new table."""

    placed: tuple[Piece, ...]
    table: tuple[tuple[Piece, ...], ...]
    value: int
    exact: bool = True  # false: a time budget ran out, the best found so far

    def to_json(self) -> dict[str, Any]:
        """The hint's JSON; ``"exact": false`` and a note only when the budget ran out."""
        answer: dict[str, Any] = {
            "placed": [p.name for p in self.placed],
            "table": [[p.name for p in meld] for meld in self.table],
            "count": len(self.placed),
            "value": self.value,
        }
        if not self.exact:
            answer["exact"] = False
            answer["note"] = INEXACT_NOTE
        return answer


@dataclass(frozen=True)
class Position:
    """A position read from JSON: the table (as melds when given so), the rack, opened or not."""

    table: tuple[tuple[Piece, ...], ...] | None  # melds, when the table was given as melds
    table_pieces: tuple[Piece, ...]
    rack: tuple[Piece, ...]
    opened: bool


def read_position(rules: Any, position: Mapping[str, Any]) -> Position:
    """Parse ``{"table": [...], "rack": [...], "opened": bool}``; HandError when malformed."""
    if not isinstance(position, Mapping):
        raise HandError('a position must be a JSON object: {"table": [...], "rack": [...]}')
    unknown = set(position) - {"table", "rack", "opened"}
    if unknown:
        raise HandError(
            f"unknown key(s) in the position: {', '.join(sorted(map(str, unknown)))} "
            "(use table, rack, opened)"
        )
    opened = position.get("opened", False)
    if not isinstance(opened, bool):
        raise HandError("opened must be true or false")
    table = position.get("table", [])
    rack = position.get("rack")
    if rack is None:
        raise HandError("the position needs a rack: the pieces the player holds")
    if isinstance(rack, str) or not isinstance(rack, Sequence):
        raise HandError("rack must be a list of piece names")
    if isinstance(table, str) or not isinstance(table, Sequence):
        raise HandError("table must be a list of piece names or a list of melds")
    melds: tuple[tuple[Piece, ...], ...] | None = None
    if table and all(isinstance(entry, str) for entry in table):
        table_pieces = tuple(rules.parse(name) for name in table)
    elif all(isinstance(entry, Sequence) and not isinstance(entry, str) for entry in table):
        for entry in table:
            if not all(isinstance(name, str) for name in entry):
                raise HandError("each table meld must be a list of piece names")
        melds = tuple(tuple(rules.parse(name) for name in entry) for entry in table)
        table_pieces = tuple(p for meld in melds for p in meld)
    else:
        raise HandError("table must be a list of piece names or a list of melds, not a mix")
    rack_pieces = tuple(rules.parse(name) for name in rack)
    check_available([*table_pieces, *rack_pieces], rules.universe, "on the table and the rack")
    return Position(melds, table_pieces, rack_pieces, opened)


def _names(pieces: Sequence[Piece]) -> str:
    return " ".join(p.name for p in pieces)


def checked_table(rules: Any, position: Position) -> tuple[tuple[Piece, ...], ...]:
    """The table's melds (given, or a layout of the flat table); HandError naming what is wrong."""
    if position.table is not None:
        for number, meld in enumerate(position.table, start=1):
            verdict = rules.check_meld(meld)
            if not verdict.valid:
                raise HandError(
                    f"the table is not valid: meld {number} ({_names(meld)}) is no meld: "
                    f"{verdict.reason}"
                )
        return position.table
    verdict = rules.arrange_table(position.table_pieces)
    if not verdict.valid:
        raise HandError(f"the table is not valid: {verdict.reason}")
    assert verdict.melds is not None
    return verdict.melds


def _value(score: int) -> int:
    return score % COUNT_WEIGHT


def number_tile_hint(
    rules: NumberTileRules, position: Position, deadline: float | None = None
) -> Hint:
    """The best move in Rummikub or Remik (see the module docstring for the order of merit).

    Past ``deadline`` (a ``time.perf_counter`` time) the best move found so far, not exact.
    """
    table = checked_table(rules, position)
    rack = [p for p in position.rack if isinstance(p, Tile) or p == JOKER]
    try:
        if not position.opened:
            opening = (rules.threshold, rules.min_melds)
            found = solve_number_tiles([], rack, rules.numbers, opening, deadline)
            if found is None:
                return Hint((), table, 0)
            return Hint(found.placed, table + found.melds, _value(found.score), found.exact)
        pieces = [p for meld in table for p in meld]
        best = solve_number_tiles(pieces, rack, rules.numbers, deadline=deadline)
    except TimeoutError:  # nothing found in time: laying nothing down is always legal
        return Hint((), table, 0, exact=False)
    assert best is not None  # the table alone is a layout
    if not best.placed:
        return Hint((), table, 0, best.exact)
    kept, layout = _fewest_changed(table, rack, rules.numbers, best, deadline)
    return Hint(best.placed, kept + layout.melds, _value(best.score), best.exact)


def _near(meld: Sequence[Piece], pieces: Sequence[Piece], reach: int) -> bool:
    """Could a tile of ``meld`` share a run or group with one of ``pieces``?"""
    for tile in meld:
        if not isinstance(tile, Tile):
            continue
        for other in pieces:
            if isinstance(other, Tile) and (
                tile.number == other.number
                or (tile.colour == other.colour and abs(tile.number - other.number) <= reach)
            ):
                return True
    return False


def _take(counter: Counter[tuple[Piece, ...]], meld: tuple[Piece, ...]) -> bool:
    """Take one copy of ``meld`` (in any order) from ``counter`` if it is there."""
    key = tuple(sorted(meld, key=tile_sort_key))
    if counter[key] > 0:
        counter[key] -= 1
        return True
    return False


def _fewest_changed(
    table: tuple[tuple[Piece, ...], ...],
    rack: Sequence[NumberPiece],
    numbers: int,
    best: Solution,
    deadline: float | None = None,
) -> tuple[tuple[tuple[Piece, ...], ...], Solution]:
    """Table melds to keep as they are and a layout of the rest with the best move's pieces.

    Keeping every meld, then all but one, is tried exactly. Otherwise the table melds that the
    best layout holds as they were are kept, and then each other meld is kept back too when
    the layout can be repaired around its pieces (``_repair_without``). Past ``deadline`` no
    more is tried: the melds the best layout holds as they were are kept.
    """
    jokers = best.placed.count(JOKER) + sum(meld.count(JOKER) for meld in table)
    reach = 2 + jokers

    def late() -> bool:
        return deadline is not None and time.perf_counter() > deadline

    def attempt(released: Sequence[int]) -> Solution | None:
        """A layout of the released melds' pieces with the pieces the best move lays down."""
        required = [p for i in released for p in table[i] if isinstance(p, Tile) or p == JOKER]
        pieces = [*required, *best.placed]
        if lonely_tile(pieces, numbers) is not None:  # a quick no
            return None
        try:
            found = solve_number_tiles(pieces, [], numbers, deadline=deadline)
        except TimeoutError:
            return None
        if found is None:
            return None
        return Solution(found.melds, best.placed, best.score)

    found = attempt(())
    if found is not None:
        return table, found
    candidates = range(len(table))
    if JOKER not in best.placed:  # a joker can join any meld; a tile only melds near it
        candidates = [i for i in candidates if _near(table[i], best.placed, reach)]
    for index in candidates:
        if late():
            break
        found = attempt((index,))
        if found is not None:
            return table[:index] + table[index + 1 :], found
    # start from the best layout: table melds it holds as they were stay, the rest is open
    unmatched = Counter(tuple(sorted(m, key=tile_sort_key)) for m in best.melds)
    released: list[int] = []
    for index, meld in enumerate(table):
        key = tuple(sorted(meld, key=tile_sort_key))
        if unmatched[key] > 0:
            unmatched[key] -= 1
        else:
            released.append(index)
    rest = Counter(unmatched)
    layout = Solution(tuple(m for m in best.melds if _take(rest, m)), best.placed, best.score)
    for index in list(released):
        if late():
            break
        melds = _repair_without(layout.melds, table[index], numbers, reach)
        if melds is not None:
            released.remove(index)
            layout = Solution(melds, best.placed, best.score)
    kept = tuple(meld for i, meld in enumerate(table) if i not in released)
    return kept, layout


def _repair_without(
    layout: tuple[tuple[NumberPiece, ...], ...],
    meld: tuple[Piece, ...],
    numbers: int,
    reach: int,
) -> tuple[tuple[NumberPiece, ...], ...] | None:
    """``layout`` without the pieces of ``meld``, rebuilt only around them; None if that fails.

    The melds that held those pieces are broken up and laid out again together with the melds
    near them (one ring, then two, up to REPAIR_LIMIT pieces); melds further away stay.
    """
    melds = [list(m) for m in layout]
    touched: set[int] = set()
    for piece in meld:
        holder = next((i for i, m in enumerate(melds) if piece in m and i not in touched), None)
        if holder is None:
            holder = next((i for i, m in enumerate(melds) if piece in m), None)
        if holder is None:
            return None
        melds[holder].remove(piece)
        touched.add(holder)
    for _ in range(2):
        pool = [p for i in touched for p in melds[i]]
        if len(pool) > REPAIR_LIMIT:
            return None
        if lonely_tile(pool, numbers) is None:
            found = solve_number_tiles(pool, [], numbers) if pool else Solution((), (), 0)
            if found is not None:
                rest = tuple(tuple(m) for i, m in enumerate(melds) if i not in touched)
                return rest + found.melds
        ring = {i for i, m in enumerate(melds) if i not in touched and _near(m, pool, reach)}
        if not ring:
            return None
        touched |= ring
    return None


# ---------------------------------------------------------------------------------------------
# Remino: a search over the rack on the game's own table layout


def _could_meld(rules: Any, piece: Piece, others: Sequence[Piece]) -> bool:
    """Is ``piece`` in some legal 3-piece meld with two of ``others``?

    Every run or group of 3+ that holds a piece holds a legal 3-piece meld that holds it too
    (a window of the run, or 3 of the group), so a piece with none can never be laid.
    """
    distinct = list(dict.fromkeys(others))
    counts = Counter(others)
    for i, first in enumerate(distinct):
        for second in distinct[i:]:
            if first == second and counts[first] < 2:
                continue
            if rules.check_meld([piece, first, second]).valid:
                return True
    return False


def _rack_choices(rules: Any, useful: Sequence[Piece]) -> Iterator[tuple[Piece, ...]]:
    """Sub-multisets of ``useful``: most pieces first, then the highest rack value."""
    counts = Counter(useful)
    kinds = list(counts)

    def walk(index: int) -> Iterator[tuple[Piece, ...]]:
        if index == len(kinds):
            yield ()
            return
        for rest in walk(index + 1):
            for copies in range(counts[kinds[index]] + 1):
                yield (kinds[index],) * copies + rest

    choices = sorted(walk(0), key=lambda c: (len(c), rules.rack_value(list(c))), reverse=True)
    yield from (choice for choice in choices if choice)


def layout_hint(rules: Any, position: Position, deadline: float | None = None) -> Hint:
    """The best move by trying rack choices, most pieces and points first, on ``arrange_table``.

    Used for Remino. Pieces that fit in no 3-piece meld with the table and the rack are left
    out first; among choices of equal count and value the one changing fewest melds wins.
    Past ``deadline``: the best found so far (exact once one is found: the first choice that
    lays out is the best; only the melds-changed tie-break is cut short).
    """
    table = checked_table(rules, position)
    rack = list(position.rack)
    partners = [*position.table_pieces, *rack] if position.opened else rack
    useful = [p for p in rack if _could_meld(rules, p, _without(partners, p))]
    best: tuple[int, int] | None = None
    found: list[tuple[int, tuple[Piece, ...], tuple[tuple[Piece, ...], ...]]] = []
    for choice in _rack_choices(rules, useful):
        merit = (len(choice), rules.rack_value(list(choice)))
        if best is not None and merit < best:
            break
        if deadline is not None and time.perf_counter() > deadline:
            if best is None:
                return Hint((), table, 0, exact=False)
            break
        if position.opened:
            verdict = rules.arrange_table([*position.table_pieces, *choice])
            if not verdict.valid:
                continue
            layout = _layout_keeping(rules, table, choice)
        else:
            verdict = rules.arrange_table(list(choice))
            if not verdict.valid or not rules.check_opening(verdict.melds).valid:
                continue
            layout = (table, verdict.melds)
        best = merit
        found.append((len(layout[0]), choice, layout[0] + layout[1]))
    if best is None:
        return Hint((), table, 0)
    _, choice, new_table = max(found, key=lambda item: item[0])  # the most melds kept
    return Hint(choice, new_table, best[1])


def _without(pieces: Sequence[Piece], piece: Piece) -> list[Piece]:
    rest = list(pieces)
    rest.remove(piece)
    return rest


def _layout_keeping(
    rules: Any, table: tuple[tuple[Piece, ...], ...], placed: tuple[Piece, ...]
) -> tuple[tuple[tuple[Piece, ...], ...], tuple[tuple[Piece, ...], ...]]:
    """(table melds kept as they are, a layout of the rest with ``placed``): few melds changed.

    Keeping all melds, then all but one, is tried exactly; otherwise each meld is kept back in
    turn when the rest can still be laid out.
    """

    def attempt(released: Sequence[int]) -> tuple[tuple[Piece, ...], ...] | None:
        pieces = [p for i in released for p in table[i]]
        verdict = rules.arrange_table([*pieces, *placed])
        return verdict.melds if verdict.valid else None

    for released in [(), *((i,) for i in range(len(table)))]:
        melds = attempt(released)
        if melds is not None:
            return tuple(m for i, m in enumerate(table) if i not in released), melds
    released_all = list(range(len(table)))
    melds = attempt(released_all)
    assert melds is not None
    for index in range(len(table)):
        trial = [i for i in released_all if i != index]
        found = attempt(trial)
        if found is not None:
            released_all, melds = trial, found
    return tuple(m for i, m in enumerate(table) if i not in released_all), melds


def hint(rules: Any, position: Mapping[str, Any], budget: float | None = None) -> Hint:
    """The best move for a position given as JSON, in any game that has hints.

    ``budget`` (seconds): past it the best move found so far, with ``exact`` false. The
    search checks the clock between steps, so an answer can come a little after the budget.
    """
    deadline = None if budget is None else time.perf_counter() + budget
    finder = game_type(rules.game).hints  # which search the game's descriptor names
    if finder == "number-tiles":
        return number_tile_hint(rules, read_position(rules, position), deadline)
    if finder == "layout":
        return layout_hint(rules, read_position(rules, position), deadline)
    *most, last = [game for game in GAME_MODULES if game_type(game).hints is not None]
    raise OptionError(f"hints exist for {', '.join(most)} and {last}, not for {rules.game}")
