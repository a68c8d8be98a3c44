"""The best-move finder ("what is the most I can lay down?") for Rummikub, Remik and Remino.

A hint lays down the most rack pieces possible; among those, the highest value (the rack points
the player gets rid of: a tile's number or pips, a joker 30); among those, the one that changes
the fewest table melds. The whole new table is legal melds. A player who has not opened gets only
an opening from the rack alone (the game's threshold and, in Remik, its ``min_melds``), with the
table untouched. Jokers on the table may move; they stay on the table.

Number tiles: ``scorer.numbertiles.solve_number_tiles``, the search that also lays out tables
(by number and, within a number, colour by colour, after van Rijn, Takes & Vis 2016), with the
rack as optional pieces and (pieces placed, value) maximised together; in opening mode the state
also carries the melds formed and the opening value (both capped at what the rules ask). A
position the search does not finish within SEARCH_CALLS steps goes to an exact integer program
(``scorer.tilemip``), which bounds the tail. Remino: the rack choices are tried most pieces
first on ``ReminoRules.arrange_table``. A time budget (``hint(..., budget=)``) gives the best
found so far, marked not exact.

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
from dataclasses import dataclass
from typing import Any, cast

from scorer.errors import HandError, OptionError
from scorer.games import GAME_MODULES, game_type
from scorer.messages import names, say
from scorer.numbertiles import (
    COUNT_WEIGHT,
    JOKER,
    NumberTileRules,
    Solution,
    lonely_tile,
    solve_number_tiles,
    tile_sort_key,
)
from scorer.pieces import NumberPiece, Piece, Tile
from scorer.sets import check_available

# the most pieces the melds-changed tie-break lays out again to keep one more table meld
REPAIR_LIMIT = 40
INEXACT_NOTE = say("hint.inexact", "may not be the best: the time budget ran out first")

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


_TABLE_SHAPE = say(
    "position.table-not-a-list", "table must be a list of piece names or a list of melds"
)


def read_position(rules: Any, position: object) -> Position:
    """Parse ``{"table": [...], "rack": [...], "opened": bool}``; HandError when malformed."""
    if not isinstance(position, Mapping):
        raise HandError(
            say(
                "position.not-an-object",
                "a position must be a JSON object: {shape}",
                shape='{"table": [...], "rack": [...]}',
            )
        )
    unknown = set(position) - {"table", "rack", "opened"}
    if unknown:
        raise HandError(
            say(
                "position.unknown-keys",
                "unknown key(s) in the position: {keys} (use table, rack, opened)",
                keys=names(sorted(map(str, unknown))),
            )
        )
    opened = position.get("opened", False)
    if not isinstance(opened, bool):
        raise HandError(say("position.opened-not-bool", "opened must be true or false"))
    table = position.get("table", [])
    rack = position.get("rack")
    if rack is None:
        raise HandError(
            say("position.no-rack", "the position needs a rack: the pieces the player holds")
        )
    if isinstance(rack, str) or not isinstance(rack, Sequence):
        raise HandError(say("position.rack-not-a-list", "rack must be a list of piece names"))
    if isinstance(table, str) or not isinstance(table, Sequence):
        raise HandError(_TABLE_SHAPE)
    melds: tuple[tuple[Piece, ...], ...] | None = None
    if table and all(isinstance(entry, str) for entry in table):
        table_pieces = tuple(rules.parse(name) for name in table)
    elif all(isinstance(entry, Sequence) and not isinstance(entry, str) for entry in table):
        for entry in table:
            if not all(isinstance(name, str) for name in entry):
                raise HandError(
                    say("position.meld-not-a-list", "each table meld must be a list of piece names")
                )
        melds = tuple(tuple(rules.parse(name) for name in entry) for entry in table)
        table_pieces = tuple(p for meld in melds for p in meld)
    else:
        raise HandError(
            say(
                "position.table-mixed",
                "table must be a list of piece names or a list of melds, not a mix",
            )
        )
    rack_pieces = tuple(rules.parse(name) for name in rack)
    where = say("where.table-and-rack", "on the table and the rack")
    check_available([*table_pieces, *rack_pieces], rules.universe, where)
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
                    say(
                        "position.table-meld-invalid",
                        "the table is not valid: meld {number} ({pieces}) is no meld: {reason}",
                        number=number,
                        pieces=_names(meld),
                        reason=verdict.reason,
                    )
                )
        return position.table
    verdict = rules.arrange_table(position.table_pieces)
    if not verdict.valid:
        raise HandError(
            say("position.table-invalid", "the table is not valid: {reason}", reason=verdict.reason)
        )
    assert verdict.melds is not None
    melds: tuple[tuple[Piece, ...], ...] = verdict.melds
    return melds


def _value(score: int) -> int:
    return score % COUNT_WEIGHT


def number_tile_hint(
    rules: NumberTileRules, position: Position, deadline: float | None = None
) -> Hint:
    """The best move in Rummikub or Remik (see the module docstring for the order of merit).

    Past ``deadline`` (a ``time.perf_counter`` time) the best move found so far, not exact.
    """
    # rules.parse made every piece of the position: here tiles and jokers only
    table = cast(tuple[tuple[NumberPiece, ...], ...], checked_table(rules, position))
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


def _take(counter: Counter[tuple[NumberPiece, ...]], meld: tuple[NumberPiece, ...]) -> bool:
    """Take one copy of ``meld`` (in any order) from ``counter`` if it is there."""
    key = tuple(sorted(meld, key=tile_sort_key))
    if counter[key] > 0:
        counter[key] -= 1
        return True
    return False


def _fewest_changed(
    table: tuple[tuple[NumberPiece, ...], ...],
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
    candidates: Sequence[int] = range(len(table))
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
    meld: tuple[NumberPiece, ...],
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


def hint(rules: Any, position: object, budget: float | None = None) -> Hint:
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
    raise OptionError(
        say(
            "hint.no-hints",
            "hints exist for {games} and {last}, not for {game}",
            games=names(most),
            last=last,
            game=rules.game,
        )
    )
