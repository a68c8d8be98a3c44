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
  nobody wins the hand and everybody scores 0 (as RULES.md's Remino default).
- In a hand's JSON a player without a rack is an error, except the winner (empty rack); a loser
  with an empty rack is an error (only one player can go out); unknown keys are an error.
- ``from_hand`` ("remik z reki") exists only in Remik; true in Rummikub is an error, and true
  with no winner is an error.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorer.errors import HandError, PieceError
from scorer.game import GameType, HandScore, MeldVerdict, OpeningVerdict, TableVerdict
from scorer.games import game_type
from scorer.hands import read_from_hand, read_player, read_players, read_racks
from scorer.options import OptionSpec
from scorer.pieces import COLOURS, Joker, NumberPiece, Piece, Tile, parse_tile
from scorer.sets import check_available

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


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def meld_failure(tiles: Sequence[Tile], jokers: int, numbers: int) -> str:
    """Why the tiles plus jokers are no meld, in a player's words (call only when they are not)."""
    size = len(tiles) + jokers
    if size < 3:
        return f"a meld needs at least 3 tiles; this one has {size}"
    if not tiles:
        return f"{size} jokers alone make no meld in this set"
    same_number = len({t.number for t in tiles}) == 1
    same_colour = len({t.colour for t in tiles}) == 1
    if same_number and len(tiles) > 1:
        # Read as a group (a repeated tile like red-5 red-5 lands here too).
        if size > len(COLOURS):
            return f"a group has at most 4 tiles, one of each colour; this one has {size}"
        if len({t.colour for t in tiles}) < len(tiles):
            tile = _twice(tiles, "colour")
            return f"groups need different colours: {tile.colour} is there twice ({tile.name})"
    if same_colour:
        colour = tiles[0].colour
        if len({t.number for t in tiles}) < len(tiles):
            return f"a run cannot hold the same number twice: {_twice(tiles, 'number').name}"
        if size > numbers:
            return f"a run has at most {numbers} tiles (1 to {numbers}); this one has {size}"
        present = {t.number for t in tiles}
        low, high = min(present), max(present)
        if low == 1 and high == numbers:
            ends = f"{colour}-{numbers} and {colour}-1"
            return f"runs do not wrap around: {ends} cannot sit side by side"
        missing = [n for n in range(low, high + 1) if n not in present]
        if len(missing) > 3:
            gap = f"{len(missing)} tiles between {colour}-{low} and {colour}-{high}"
        else:
            gap = ", ".join(f"{colour}-{n}" for n in missing)
        filled = f"only {_plural(jokers, 'joker')} to fill" if jokers else "and no joker to fill"
        return f"the run has a gap: {gap} missing, {filled}"
    distinct_numbers = len({t.number for t in tiles}) == len(tiles)
    distinct_colours = len({t.colour for t in tiles}) == len(tiles)
    a, b = _differing_pair(tiles, "colour")
    c, d = _differing_pair(tiles, "number")
    if distinct_numbers:
        return f"runs need one colour: {a.name} and {b.name} differ"
    if distinct_colours:
        return f"groups need one number: {c.name} and {d.name} differ"
    return (
        f"neither a run (one colour: {a.name} and {b.name} differ) "
        f"nor a group (one number: {c.name} and {d.name} differ)"
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
# Tables: a search by number over open runs per colour (van Rijn, Takes & Vis 2016)

ColourState = tuple[int, int, int]  # open runs of length 1, 2, and 3 or more
TableState = tuple[ColourState, ...]
# per colour: (jokers standing in its runs, real tiles sent to groups, optional tiles used, next)
ColourChoice = tuple[int, int, int, ColourState]


@dataclass(frozen=True)
class Arrangement:
    """Pieces laid out as melds; ``placed`` are the optional pieces the layout uses."""

    melds: tuple[tuple[NumberPiece, ...], ...]
    placed: tuple[NumberPiece, ...] = ()


@dataclass(frozen=True)
class _Step:
    colours: tuple[ColourChoice, ...]
    group_jokers: int
    jokers_used: int  # after this number


@dataclass
class _Search:
    """Lay out every required piece and as many optional pieces as possible.

    Numbers are processed from 1 up. The state before number ``v`` is, per colour, how many
    runs are open with length 1, 2 and 3+ (runs of one length are interchangeable), plus the
    jokers used so far. At ``v`` each colour's tiles (required, chosen optional, and jokers
    standing for that colour and number) must extend every open run shorter than 3; the rest
    extend 3+ runs, start new runs or go to groups at ``v``. Jokers in groups need no colour.
    Jokers left at the end may form one meld of jokers only (3 or more).
    """

    numbers: int
    required: Counter[NumberPiece]
    optional: Counter[NumberPiece] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        width = self.numbers + 2
        self.req = count_grid(self.required, width)
        self.opt = count_grid(self.optional, width)
        self.req_jokers = self.required[JOKER]
        self.opt_jokers = self.optional[JOKER]
        self.total_jokers = self.req_jokers + self.opt_jokers
        self.optional_after = [0] * (width + 1)  # optional tiles at numbers >= v
        for v in range(self.numbers, 0, -1):
            here = sum(self.opt[c][v] for c in range(len(COLOURS)))
            self.optional_after[v] = self.optional_after[v + 1] + here
        self.memo: dict[tuple[int, TableState, int], tuple[int | None, _Step | int | None]] = {}
        self.colour_memo: dict[tuple[int, int, ColourState, int], list[ColourChoice]] = {}

    # -- search --------------------------------------------------------------------------

    def best(self, v: int, state: TableState, used: int) -> int | None:
        """Most optional pieces placeable from number ``v`` on, or None if impossible."""
        key = (v, state, used)
        if key in self.memo:
            return self.memo[key][0]
        if v > self.numbers:
            result = self._finish(state, used)
            self.memo[key] = result
            return result[0]
        ceiling = self.optional_after[v] + self.opt_jokers
        best_score: int | None = None
        best_step: _Step | None = None
        for step, gained in self._steps(v, state, used):
            following = self.best(v + 1, tuple(c[3] for c in step.colours), step.jokers_used)
            if following is None:
                continue
            score = following + gained
            if best_score is None or score > best_score:
                best_score, best_step = score, step
                if score >= ceiling:
                    break
        self.memo[key] = (best_score, best_step)
        return best_score

    def _finish(self, state: TableState, used: int) -> tuple[int | None, int | None]:
        """After the last number: no short run may stay open; leftover jokers form one meld."""
        if any(n1 or n2 for n1, n2, _ in state):
            return None, None
        left = self.total_jokers - used
        if left >= 3 and left <= max(self.numbers, len(COLOURS)):
            return used + left - self.req_jokers, left
        if used >= self.req_jokers:
            return used - self.req_jokers, 0
        return None, None

    def _colour_choices(
        self, c: int, v: int, cstate: ColourState, budget: int
    ) -> list[ColourChoice]:
        key = (c, v, cstate, budget)
        cached = self.colour_memo.get(key)
        if cached is not None:
            return cached
        n1, n2, n3 = cstate
        must_extend = n1 + n2
        # A joker starting a run here needs a real tile of this colour within reach.
        reachable = n1 + n2 + n3 or self._tiles_ahead(c, v, budget)
        joker_limit = budget if reachable else 0
        choices: list[ColourChoice] = []
        for jokers in range(joker_limit + 1):
            for extra in range(self.opt[c][v] + 1):
                real = self.req[c][v] + extra
                for grouped in range(real + 1):
                    in_runs = real - grouped + jokers
                    if in_runs < must_extend:
                        continue
                    rest = in_runs - must_extend
                    extended = min(n3, rest)
                    choices.append((jokers, grouped, extra, (rest - extended, n1, n2 + extended)))
        self.colour_memo[key] = choices
        return choices

    def _tiles_ahead(self, c: int, v: int, budget: int) -> bool:
        last = min(self.numbers, v + budget)
        return any(self.req[c][n] or self.opt[c][n] for n in range(v + 1, last + 1))

    def _steps(self, v: int, state: TableState, used: int) -> Iterator[tuple[_Step, int]]:
        budget = self.total_jokers - used
        per_colour = [self._colour_choices(c, v, state[c], budget) for c in range(len(COLOURS))]
        picked: list[ColourChoice] = []

        def combine(c: int, jokers: int) -> Iterator[tuple[_Step, int]]:
            if c == len(per_colour):
                grouped = [choice[1] for choice in picked]
                total = sum(grouped)
                gained = sum(choice[2] for choice in picked)
                top = budget - jokers if total else 0
                for group_jokers in range(top + 1):
                    if _groups_fit(grouped, group_jokers):
                        step = _Step(tuple(picked), group_jokers, used + jokers + group_jokers)
                        yield step, gained
                return
            for choice in per_colour[c]:
                if jokers + choice[0] > budget:
                    continue
                picked.append(choice)
                yield from combine(c + 1, jokers + choice[0])
                picked.pop()

        yield from combine(0, 0)

    # -- the layout ----------------------------------------------------------------------

    def solve(self) -> Arrangement | None:
        start: TableState = tuple((0, 0, 0) for _ in COLOURS)
        if self.best(1, start, 0) is None:
            return None
        melds: list[tuple[int, int, tuple[NumberPiece, ...]]] = []  # (first number, order, meld)
        open_runs: list[list[list[NumberPiece]]] = [[] for _ in COLOURS]
        run_start: dict[int, int] = {}
        placed: list[NumberPiece] = []
        state, used = start, 0
        for v in range(1, self.numbers + 1):
            step = self.memo[(v, state, used)][1]
            assert isinstance(step, _Step)
            grouped: list[list[NumberPiece]] = []
            for c, (jokers, to_groups, extra, _) in enumerate(step.colours):
                tile = Tile(COLOURS[c], v)
                placed += [tile] * extra
                real = self.req[c][v] + extra
                grouped.append([tile] * to_groups)
                in_runs: list[NumberPiece] = [tile] * (real - to_groups) + [JOKER] * jokers
                runs = sorted(open_runs[c], key=len)
                short = [run for run in runs if len(run) < 3]
                long = [run for run in runs if len(run) >= 3]
                extend = short + long[: max(0, len(in_runs) - len(short))]
                for run in long[len(extend) - len(short) :]:
                    melds.append((run_start[id(run)], c, tuple(run)))
                for run, piece in zip(extend, in_runs, strict=False):
                    run.append(piece)
                fresh = [[piece] for piece in in_runs[len(extend) :]]
                for run in fresh:
                    run_start[id(run)] = v
                open_runs[c] = extend + fresh
            for group in build_groups(grouped, step.group_jokers):
                melds.append((v, len(COLOURS), tuple(group)))
            state, used = tuple(choice[3] for choice in step.colours), step.jokers_used
        for c, runs in enumerate(open_runs):
            melds += [(run_start[id(run)], c, tuple(run)) for run in runs]
        left = self.memo[(self.numbers + 1, state, used)][1]
        assert isinstance(left, int)
        if left:
            melds.append((self.numbers + 1, 0, (JOKER,) * left))
        placed += [JOKER] * max(0, used + left - self.req_jokers)
        melds.sort(key=lambda item: (item[0], item[1]))
        return Arrangement(tuple(m for _, _, m in melds), tuple(placed))


def _groups_fit(grouped: Sequence[int], jokers: int) -> bool:
    """Can tiles of one number (``grouped[c]`` of colour c) plus jokers form groups of 3-4?"""
    total = sum(grouped) + jokers
    if total == 0:
        return True
    groups = max(max(grouped), -(-total // 4))
    return 3 * groups <= total


def build_groups(
    grouped: Sequence[list[NumberPiece]], jokers: int, count: int | None = None
) -> list[list[NumberPiece]]:
    """Deal tiles of one number into ``count`` groups (distinct colours each), jokers filling up.

    ``count`` defaults to the fewest groups of 3-4 that can hold the tiles.
    """
    if count is None:
        total = sum(len(tiles) for tiles in grouped) + jokers
        count = max(max(len(tiles) for tiles in grouped), -(-total // 4)) if total else 0
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


def arrange(
    required: Iterable[NumberPiece], optional: Iterable[NumberPiece] = (), numbers: int = 13
) -> Arrangement | None:
    """Lay out all ``required`` pieces and as many ``optional`` ones as possible as melds.

    ``arrange_table`` passes the table as required; a best-move finder passes the table as
    required and the rack as optional. None when the required pieces cannot all be laid out.
    """
    return _Search(numbers, Counter(required), Counter(optional)).solve()


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
                raise PieceError("joker: this game is played without jokers (jokers=0)")
        elif isinstance(piece, Tile):
            if piece.number > self.numbers:
                raise PieceError(
                    f"{piece.name}: tiles in this set run from 1 to {self.numbers}"
                    + (" (numbers=17 for the extended set)" if "numbers" in self.options else "")
                )
        else:
            raise PieceError(f"{piece.name} is not a number tile (like red-7 or joker)")

    def _checked(self, pieces: Iterable[Piece], where: str = "") -> list[NumberPiece]:
        result: list[NumberPiece] = []
        for piece in pieces:
            self._check_piece(piece)
            assert isinstance(piece, Tile | Joker)
            result.append(piece)
        check_available(result, self.universe, where)
        return result

    # -- melds ---------------------------------------------------------------------------

    def check_meld(self, pieces: Sequence[Piece]) -> MeldVerdict:
        return judge_meld(self._checked(pieces, "in this meld"), self.numbers)

    def check_opening(self, melds: Sequence[Sequence[Piece]]) -> OpeningVerdict:
        self._checked([p for meld in melds for p in meld], "in these melds")
        verdicts = [self.check_meld(meld) for meld in melds]
        value = sum(v.value or 0 for v in verdicts if v.valid)
        problems: list[str] = []
        for number, verdict in enumerate(verdicts, start=1):
            if not verdict.valid:
                problems.append(f"meld {number} is not valid: {verdict.reason}")
        if not verdicts:
            problems.append("an opening needs at least one meld")
        elif value < self.threshold:
            problems.append(
                f"{value} of {self.threshold} points: an opening needs {self.threshold}"
            )
        if verdicts and len(verdicts) < self.min_melds:
            problems.append(
                f"{len(verdicts)} of {self.min_melds} melds: "
                f"an opening needs at least {self.min_melds} melds"
            )
        return OpeningVerdict(value, self.threshold, not problems, "; ".join(problems) or None)

    # -- tables --------------------------------------------------------------------------

    def arrange_table(self, pieces: Sequence[Piece]) -> TableVerdict:
        tiles = self._checked(pieces, "on the table")
        if not tiles:
            return TableVerdict(True, ())
        if len(tiles) < 3:
            return TableVerdict(
                False, None, f"a meld needs at least 3 tiles; the table has {len(tiles)}"
            )
        found = arrange(tiles, numbers=self.numbers)
        if found is not None:
            return TableVerdict(True, found.melds)
        alone = lonely_tiles(tiles, self.numbers)
        if alone:  # every one of them, so a player sees all that is wrong at once
            names = ", ".join(tile.name for tile in alone)
            verb = "fits" if len(alone) == 1 else "fit"
            reason = f"{names} {verb} in no run or group with these tiles"
        else:
            reason = "these tiles cannot all be laid out as runs and groups at once"
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
        lowest = min(values.values())
        tied = [name for name in players if values[name] == lowest]
        if len(tied) > 1:
            details["tied"] = tied
            return HandScore("stock-exhausted", None, {p: 0 for p in players}, details=details)
        best = tied[0]
        deltas = {name: -(values[name] - lowest) for name in players if name != best}
        deltas[best] = -sum(deltas.values())
        return HandScore("stock-exhausted", best, {p: deltas[p] for p in players}, details=details)

    def _read_hand(
        self, hand: Mapping[str, Any]
    ) -> tuple[list[str], str | None, dict[str, list[NumberPiece]], bool]:
        unknown_keys = set(hand) - {"players", "winner", "racks", "from_hand"}
        if unknown_keys:
            raise HandError(
                f"unknown key(s) in the hand: {', '.join(sorted(unknown_keys))} "
                "(use players, winner, racks, from_hand)"
            )
        players = read_players(hand, self.game, *game_type(self.game).players)
        winner = read_player(hand, "winner", players, optional=True)
        from_hand = read_from_hand(hand)
        if from_hand and not self.from_hand_doubles:
            raise HandError(f"{self.game} has no 'remik z reki': from_hand must be false")
        if from_hand and winner is None:
            raise HandError("from_hand needs a winner: someone laid out all tiles at once")
        racks = read_racks(hand, players, winner, self.parse, self.universe)
        return players, winner, racks, from_hand  # type: ignore[return-value]
