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

from scorer.errors import HandError, PieceError
from scorer.game import HandScore, MeldVerdict, OpeningVerdict, TableVerdict
from scorer.options import OptionSpec
from scorer.pieces import Domino, Piece, parse_domino
from scorer.sets import DOMINO_SETS, check_available, dominoes

GAME = "remino"
SETS: tuple[str, ...] = ("double-nine", "double-twelve", "2x-double-six")
JOKER_ON_RACK = 30
DEALT = 8
MIN_PLAYERS, MAX_PLAYERS = 2, 4
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


def _suit_word(suit: int) -> str:
    return f"{suit}s"


def meld_reason(naturals: Sequence[Domino], jokers: int, top: int) -> str:
    """Why ``naturals`` plus ``jokers`` jokers is no meld, in a player's words."""
    size = len(naturals) + jokers
    if size < MIN_RUN:
        return f"a meld needs at least 3 tiles; this one has {size}"
    counts = Counter(naturals)
    for tile, count in counts.items():
        if count > 1:
            return f"a meld cannot use {tile.name} twice (runs and groups need different tiles)"
    if not naturals:
        return "no run or group can be made of these jokers"
    common = {naturals[0].low, naturals[0].high}
    for tile in naturals[1:]:
        common &= {tile.low, tile.high}
    if common:
        suit = max(common) if len(common) == 1 else min(common)
        if size > top + 1:
            return (
                f"a run of {_suit_word(suit)} has at most {top + 1} tiles in this set; "
                f"this one has {size}"
            )
        positions = sorted(run_positions(suit, naturals))
        missing = [p for p in range(positions[0], positions[-1] + 1) if p not in positions]
        names = ", ".join(Domino(suit, p).name for p in missing)
        if len(missing) > jokers:
            verb = "is" if len(missing) == 1 else "are"
            help_ = "no joker" if not jokers else f"only {jokers} joker{'s' if jokers > 1 else ''}"
            return (
                f"a run of {_suit_word(suit)} needs consecutive tiles: {names} {verb} missing "
                f"({help_} to fill the gap)"
            )
        return f"a run of {_suit_word(suit)} cannot reach beyond 0 and {top}"
    totals = {tile.pips for tile in naturals}
    if len(totals) == 1:
        total = totals.pop()
        if size > MAX_GROUP:
            return f"a group has at most 4 tiles; this one has {size}"
        limit = group_size_limit(total, top)
        return (
            f"only {limit} different tile{'s' if limit != 1 else ''} of this set "
            f"{'have' if limit != 1 else 'has'} {total} pips: too few for a group of {size}"
        )
    first = naturals[0]
    for other in naturals[1:]:
        if not {first.low, first.high} & {other.low, other.high} and first.pips != other.pips:
            return (
                f"{first.name} and {other.name} share no number (a run needs one) and have "
                f"different pip totals, {first.pips} and {other.pips} (a group needs one)"
            )
    listed = ", ".join(f"{t.name} ({t.pips})" for t in naturals)
    return (
        "no number is on every tile (a run needs one) and the pip totals differ "
        f"(a group needs one): {listed}"
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

    def parse(self, text: str) -> Piece:
        return parse_domino(text, max_pip=self.top)

    def is_joker(self, piece: Domino) -> bool:
        return piece in self.jokers

    def _dominoes(self, pieces: Sequence[Piece], where: str) -> list[Domino]:
        for piece in pieces:
            if not isinstance(piece, Domino):
                raise PieceError(f"{piece.name} is not a domino: Remino is played with dominoes")
        check_available(pieces, self.universe, where)
        return list(pieces)  # type: ignore[arg-type]

    def _split(self, pieces: Sequence[Domino]) -> tuple[list[Domino], int]:
        naturals = [p for p in pieces if not self.is_joker(p)]
        return naturals, len(pieces) - len(naturals)

    def rack_value(self, rack: Sequence[Domino]) -> int:
        return sum(JOKER_ON_RACK if self.is_joker(p) else p.pips for p in rack)

    # ---- melds ------------------------------------------------------------------------------

    def check_meld(self, pieces: Sequence[Piece]) -> MeldVerdict:
        tiles = self._dominoes(pieces, "in this meld")
        naturals, jokers = self._split(tiles)
        readings = meld_readings(naturals, jokers, self.top)
        if not readings:
            return MeldVerdict(tuple(tiles), False, reason=meld_reason(naturals, jokers, self.top))
        best = max(readings, key=lambda r: (r.value, r.kind == "run"))
        values = tuple(sorted({r.value for r in readings}))
        return MeldVerdict(tuple(tiles), True, kind=best.kind, value=best.value, readings=values)

    def check_opening(self, melds: Sequence[Sequence[Piece]]) -> OpeningVerdict:
        threshold = int(self.options["opening"])
        if not melds:
            return OpeningVerdict(0, threshold, False, "an opening needs at least one meld")
        self._dominoes([p for meld in melds for p in meld], "in these melds")
        verdicts = [self.check_meld(meld) for meld in melds]
        value = sum(v.value or 0 for v in verdicts if v.valid)
        bad = [v for v in verdicts if not v.valid]
        if bad:
            names = " ".join(p.name for p in bad[0].pieces)
            return OpeningVerdict(
                value, threshold, False, f"{names} is not a meld: {bad[0].reason}"
            )
        if value < threshold:
            return OpeningVerdict(
                value, threshold, False, f"the opening has {value} of {threshold} points"
            )
        return OpeningVerdict(value, threshold, True)

    # ---- table ------------------------------------------------------------------------------

    def arrange_table(self, pieces: Sequence[Piece]) -> TableVerdict:
        tiles = self._dominoes(pieces, "on the table")
        if not tiles:
            return TableVerdict(True, ())
        naturals, jokers = self._split(tiles)
        search = _TableSearch(self.top, Counter(naturals), jokers)
        layout = search.solve()
        if layout is None:
            stuck = search.stuck_tile()
            if stuck is not None:
                reason = f"{stuck.name} fits in no run or group with the other tiles on the table"
            elif not naturals:
                reason = f"{jokers} joker{'s' if jokers > 1 else ''} alone cannot form a meld"
            else:
                reason = "these tiles cannot all be laid out as runs and groups at the same time"
            return TableVerdict(False, None, reason)
        spare = sorted(p for p in tiles if self.is_joker(p))
        shown = tuple(
            tuple(spare.pop(0) if piece == _JOKER else piece for piece in meld.pieces)
            for meld in _merge_runs(layout)
        )
        return TableVerdict(True, shown)

    # ---- hand end ---------------------------------------------------------------------------

    def score_hand(self, hand: Mapping[str, Any]) -> HandScore:
        players = _players(hand)
        winner = hand.get("winner")
        if winner is not None and winner not in players:
            raise HandError(f"the winner {winner!r} is not one of the players")
        from_hand = hand.get("from_hand", False)
        if not isinstance(from_hand, bool):
            raise HandError("from_hand must be true or false")
        racks_in = hand.get("racks")
        if not isinstance(racks_in, Mapping):
            raise HandError("racks must map each player to the tiles left on their rack")
        unknown = [name for name in racks_in if name not in players]
        if unknown:
            raise HandError(f"racks name unknown player(s): {', '.join(map(str, unknown))}")
        racks: dict[str, list[Domino]] = {}
        limit = sum(self.universe.values()) - DEALT * (len(players) - 1)
        for name in players:
            if name not in racks_in:
                if name == winner:
                    racks[name] = []
                    continue
                raise HandError(f"{name} has no rack: list the tiles left (or [] if none)")
            names = racks_in[name]
            if isinstance(names, str) or not isinstance(names, Sequence):
                raise HandError(f"{name}'s rack must be a list of tiles")
            rack = [self.parse(text) for text in names]
            if len(rack) > limit:
                raise HandError(
                    f"{name} holds {len(rack)} tiles, but with {len(players)} players a rack "
                    f"can hold at most {limit} (8 dealt plus the whole stock)"
                )
            racks[name] = rack
        self._dominoes([p for rack in racks.values() for p in rack], "in the racks")
        if winner is not None and racks[winner]:
            raise HandError(f"{winner} won by going out, so their rack must be empty")
        empty = [name for name in players if not racks[name] and name != winner]
        if empty:
            who = empty[0]
            if winner is None:
                raise HandError(f"{who} has no tiles left, so {who} went out: name them the winner")
            raise HandError(f"{who} has no tiles left, but only the winner can go out")
        values = {name: self.rack_value(racks[name]) for name in players}
        details: dict[str, Any] = {"rack_values": dict(values)}
        if winner is None:
            lowest = min(values.values())
            leaders = [name for name in players if values[name] == lowest]
            if len(leaders) > 1:
                return HandScore("tie", None, {name: 0 for name in players}, None, details)
            winner = leaders[0]
            outcome = "stock-exhausted"
        else:
            outcome = "out"
        points = sum(values[name] for name in players if name != winner)
        deltas = {name: (points if name == winner else 0) for name in players}
        return HandScore(outcome, winner, deltas, None, details)


def _players(hand: Mapping[str, Any]) -> list[str]:
    players = hand.get("players")
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise HandError("players must be a list of names")
    if not all(isinstance(name, str) and name.strip() for name in players):
        raise HandError("every player needs a name")
    if len(set(players)) != len(players):
        raise HandError("players must have different names")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise HandError(f"Remino is played by 2 to 4 players, not {len(players)}")
    return list(players)


# ---- table layout search ------------------------------------------------------------------

# The search works with a placeholder for "some joker"; real joker tiles are put back at the end.
# [0-0] is a joker in every Remino set, so no natural tile is ever equal to it.
_JOKER = Domino(0, 0)
# Runs longer than this can always be split into runs of 3..5 (a piece of only jokers is a
# legal meld), so the search never needs longer windows; the layout is merged afterwards.
MAX_SEARCH_RUN = 5


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


State = tuple[tuple[Domino, int], ...]
Option = tuple[_Meld, Counter[Domino], int]  # a meld, the naturals it uses, the jokers it uses


class _TableSearch:
    """Exact search for a partition of a multiset of dominoes (plus jokers) into melds.

    At each step the natural tile with the fewest candidate melds is covered first (a tile with
    none ends the branch at once); states that failed are remembered. Candidate runs are 3..5
    long (longer runs split into those), so a layout is found whenever one exists.
    """

    def __init__(self, top: int, naturals: Counter[Domino], jokers: int) -> None:
        self.top = top
        self.start = naturals
        self.jokers = jokers
        self.failed: set[tuple[State, int]] = set()

    def solve(self) -> list[_Meld] | None:
        state = tuple(sorted((t, c) for t, c in self.start.items() if c))
        return self._search(state, self.jokers, [])

    def stuck_tile(self) -> Domino | None:
        """A tile that fits in no meld at all with the other tiles."""
        state = tuple(sorted((t, c) for t, c in self.start.items() if c))
        for tile, _count in state:
            if next(self.candidates(tile, state, self.jokers), None) is None:
                return tile
        return None

    def candidates(self, tile: Domino, state: State, jokers: int) -> Iterator[Option]:
        """Melds containing ``tile`` made of the tiles in ``state`` and up to ``jokers`` jokers."""
        counts = dict(state)
        top = self.top
        for suit in sorted({tile.low, tile.high}):
            pos = tile.other_half(suit)
            for length in range(MIN_RUN, MAX_SEARCH_RUN + 1):
                for start in range(max(0, pos - length + 1), min(pos, top - length + 1) + 1):
                    others = [p for p in range(start, start + length) if p != pos]
                    yield from self._run_fillings(suit, start, pos, others, counts, jokers)
        total = tile.pips
        partners = [
            Domino(low, total - low)
            for low in range(top + 1)
            if low <= total - low <= top
            and Domino(low, total - low) != tile
            and counts.get(Domino(low, total - low), 0) > 0
        ]
        for size in (MIN_GROUP, MAX_GROUP):
            if size > group_size_limit(total, top):
                continue
            for used_jokers in range(min(jokers, size - 1) + 1):
                for chosen in combinations(partners, size - 1 - used_jokers):
                    pieces = (tile, *chosen) + (_JOKER,) * used_jokers
                    yield _Meld("group", total, 0, pieces), Counter((tile, *chosen)), used_jokers

    def _run_fillings(
        self,
        suit: int,
        start: int,
        pos: int,
        others: list[int],
        counts: dict[Domino, int],
        jokers: int,
    ) -> Iterator[Option]:
        options: list[list[Domino]] = []
        for p in others:
            natural = Domino(suit, p)
            choice = [natural] if counts.get(natural, 0) > 0 else []
            options.append([*choice, _JOKER] if jokers else choice)
            if not options[-1]:
                return
        fillings: list[tuple[Domino, ...]] = [()]
        for choice in options:
            fillings = [(*f, c) for f in fillings for c in choice]
        tile = Domino(suit, pos)
        for filling in fillings:
            used = filling.count(_JOKER)
            if used > jokers:
                continue
            by_position = dict(zip(others, filling, strict=True))
            by_position[pos] = tile
            pieces = tuple(by_position[p] for p in range(start, start + len(others) + 1))
            naturals = Counter(p for p in (tile, *filling) if p != _JOKER)
            yield _Meld("run", suit, start, pieces), naturals, used

    def _search(self, state: State, jokers: int, path: list[_Meld]) -> list[_Meld] | None:
        if not state:
            return self._finish(path, jokers)
        if (state, jokers) in self.failed:
            return None
        # The tile with the fewest melds goes first; counting stops at the best count so far.
        best: list[Option] | None = None
        for tile, _count in state:
            options: list[Option] = []
            for option in self.candidates(tile, state, jokers):
                options.append(option)
                if best is not None and len(options) >= len(best):
                    break
            else:
                best = options
                if len(best) <= 1:
                    break
        # Melds that spend fewer jokers first, then longer ones: tidier layouts, fewer branches.
        ordered = sorted(best or [], key=lambda option: (option[2], -len(option[0].pieces)))
        for meld, used, used_jokers in ordered:
            counts = Counter(dict(state))
            counts.subtract(used)
            if any(c < 0 for c in counts.values()):
                continue
            next_state = tuple(sorted((t, c) for t, c in counts.items() if c > 0))
            found = self._search(next_state, jokers - used_jokers, [*path, meld])
            if found is not None:
                return found
        self.failed.add((state, jokers))
        return None

    def _finish(self, path: list[_Meld], jokers: int) -> list[_Meld] | None:
        """Every natural is placed: spare jokers join melds, or form a meld of their own.

        Only a shortcut: the search itself also tries every meld with jokers in it, so a
        failure here never hides a layout.
        """
        layout = list(path)
        for _ in range(jokers):
            for index, meld in enumerate(layout):
                grown = self._grow(meld)
                if grown is not None:
                    layout[index] = grown
                    break
            else:
                if jokers >= MIN_RUN:
                    return [*path, _Meld("jokers", 0, 0, (_JOKER,) * jokers)]
                return None
        return layout

    def _grow(self, meld: _Meld) -> _Meld | None:
        if meld.kind == "run":
            if meld.end < self.top:
                return _Meld("run", meld.key, meld.start, (*meld.pieces, _JOKER))
            if meld.start > 0:
                return _Meld("run", meld.key, meld.start - 1, (_JOKER, *meld.pieces))
        if meld.kind == "group" and len(meld.pieces) < min(
            MAX_GROUP, group_size_limit(meld.key, self.top)
        ):
            return _Meld("group", meld.key, 0, (*meld.pieces, _JOKER))
        return None


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
