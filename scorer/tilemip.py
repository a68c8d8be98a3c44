"""The number-tile layout as an integer program, for positions the search in ``scorer.hints``
finds hard (tables holding jokers where some rack tile cannot be placed).

Exact, with jokers anywhere the rules allow. Per colour the runs are a flow over the numbers,
as the search's state: ``a`` runs start at n, every run of length 1 or 2 goes on, ``q`` of the
runs of length 3+ at n go on to n+1 (the rest end). The pieces a colour's runs hold at n are
``w`` real tiles and ``jr`` jokers. At n, ``g3`` groups of 3 and ``g4`` of 4 hold ``z`` real
tiles of each colour (at most one per group: ``z <= g3 + g4``) and ``jg`` jokers; by
Gale-Ryser that is all a layout of distinct colours needs. A meld of jokers only is a run or
a group with no real tile. Real tiles: ``w + z`` = the required ones plus ``r`` optional ones;
jokers: all the required ones plus ``j`` optional ones.

The objective is the search's (count, then value) with a count weight above any value. The LP
relaxation is solved first: on random 60-tile tables its optimum was integral 91 times in 100
(and its count bound tight 100 times); otherwise HiGHS's branch and bound (SciPy's ``milp``)
finishes. SciPy is imported only here, so only hard positions pay for the import.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from scorer.numbertiles import JOKER, JOKER_PENALTY
from scorer.pieces import COLOURS, NumberPiece, Tile

# variables per (colour, number), then per number, then the optional jokers laid
_PER_TILE = ("a", "q", "w", "jr", "z", "r")
_PER_NUMBER = ("g3", "g4", "jg")


@dataclass(frozen=True)
class Found:
    """A layout, the optional pieces it lays down, their (count, value); ``exact``: proven best."""

    melds: tuple[tuple[NumberPiece, ...], ...]
    placed: tuple[NumberPiece, ...]
    count: int
    value: int
    exact: bool


class _Layout:
    """Variable indices and the constraint matrix for one set size (cached: only bounds vary)."""

    def __init__(self, numbers: int, opening: bool) -> None:
        import numpy as np
        from scipy.sparse import coo_array

        self.numbers = numbers
        colours = len(COLOURS)
        self.tile_base = 0
        self.number_base = len(_PER_TILE) * colours * numbers
        self.joker = self.number_base + len(_PER_NUMBER) * numbers
        self.size = self.joker + 1
        rows: list[int] = []
        cols: list[int] = []
        vals: list[float] = []
        lower: list[float] = []
        upper: list[float] = []

        def add(terms: list[tuple[int, float]], low: float, high: float) -> int:
            row = len(lower)
            for col, val in terms:
                rows.append(row)
                cols.append(col)
                vals.append(val)
            lower.append(low)
            upper.append(high)
            return row

        t, g = self.t, self.g
        self.tile_rows = {}
        for c in range(colours):
            for n in range(1, numbers + 1):
                # long runs going on: q_n <= (runs of 3+ at n) = a_{n-2} + q_{n-1}
                terms = [(t("q", c, n), 1.0)]
                if n >= 3:
                    terms.append((t("a", c, n - 2), -1.0))
                if n >= 2:
                    terms.append((t("q", c, n - 1), -1.0))
                add(terms, -np.inf, 0.0)
                # pieces in runs at n: a_n + a_{n-1} + a_{n-2} + q_{n-1} = w + jr
                terms = [(t("a", c, n), 1.0), (t("w", c, n), -1.0), (t("jr", c, n), -1.0)]
                if n >= 2:
                    terms += [(t("a", c, n - 1), 1.0), (t("q", c, n - 1), 1.0)]
                if n >= 3:
                    terms.append((t("a", c, n - 2), 1.0))
                add(terms, 0.0, 0.0)
                # real tiles: w + z - r = required (the right-hand side is set per position)
                terms = [(t("w", c, n), 1.0), (t("z", c, n), 1.0), (t("r", c, n), -1.0)]
                self.tile_rows[c, n] = add(terms, 0.0, 0.0)
                # one tile of a colour per group
                add([(t("z", c, n), 1.0), (g("g3", n), -1.0), (g("g4", n), -1.0)], -np.inf, 0.0)
        for n in range(1, numbers + 1):
            terms = [(g("g3", n), 3.0), (g("g4", n), 4.0), (g("jg", n), -1.0)]
            terms += [(t("z", c, n), -1.0) for c in range(colours)]
            add(terms, 0.0, 0.0)
        jokers = [(t("jr", c, n), 1.0) for c in range(colours) for n in range(1, numbers + 1)]
        jokers += [(g("jg", n), 1.0) for n in range(1, numbers + 1)]
        self.joker_row = add([*jokers, (self.joker, -1.0)], 0.0, 0.0)
        if opening:
            # melds formed (runs started, groups) and their value (a joker counts its number)
            melds = [(t("a", c, n), 1.0) for c in range(colours) for n in range(1, numbers + 1)]
            melds += [(g(kind, n), 1.0) for kind in ("g3", "g4") for n in range(1, numbers + 1)]
            self.melds_row = add(melds, 1.0, np.inf)
            value: Counter[int] = Counter()
            for c in range(colours):
                for n in range(1, numbers + 1):
                    value[t("w", c, n)] += n
                    value[t("jr", c, n)] += n
            for n in range(1, numbers + 1):
                value[g("g3", n)] += 3 * n
                value[g("g4", n)] += 4 * n
            self.value_row = add(list(value.items()), 0.0, np.inf)
        self.matrix = coo_array((vals, (rows, cols)), shape=(len(lower), self.size)).tocsr()
        self.lower = np.array(lower)
        self.upper = np.array(upper)

    def t(self, kind: str, c: int, n: int) -> int:
        return (_PER_TILE.index(kind) * len(COLOURS) + c) * self.numbers + n - 1

    def g(self, kind: str, n: int) -> int:
        return self.number_base + _PER_NUMBER.index(kind) * self.numbers + n - 1


@cache
def _layout(numbers: int, opening: bool) -> _Layout:
    return _Layout(numbers, opening)


def solve(
    required: Sequence[NumberPiece],
    optional: Sequence[NumberPiece],
    numbers: int,
    opening: tuple[int, int] | None = None,
    deadline: float | None = None,
) -> Found | None:
    """The best layout (as ``scorer.hints.solve_number_tiles``); None: no layout at all.

    With ``deadline`` (a ``time.perf_counter`` time) the branch and bound stops there and the
    best layout found so far comes back with ``exact`` false; TimeoutError when none was found.
    """
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, linprog, milp

    model = _layout(numbers, opening is not None)
    need, extra = Counter(required), Counter(optional)
    required_jokers, optional_jokers = need.pop(JOKER, 0), extra.pop(JOKER, 0)
    jokers = required_jokers + optional_jokers
    colours = len(COLOURS)
    lower, upper = model.lower.copy(), model.upper.copy()
    bound = np.zeros(model.size)
    cost = np.zeros(model.size)
    weight = JOKER_PENALTY * (len(optional) + 1) + 1  # above any value: count first
    grid = np.zeros((colours, numbers + 2))
    for tiles, sign in ((need, 1), (extra, 0)):
        for tile, copies in tiles.items():
            assert isinstance(tile, Tile)
            grid[COLOURS.index(tile.colour), tile.number] += copies
            if sign:
                row = model.tile_rows[COLOURS.index(tile.colour), tile.number]
                lower[row] += copies
                upper[row] += copies
    for tile, copies in extra.items():
        assert isinstance(tile, Tile)
        column = model.t("r", COLOURS.index(tile.colour), tile.number)
        bound[column] = copies
        cost[column] = -(weight + tile.number)
    for c in range(colours):
        for n in range(1, numbers + 1):
            here = grid[c, n]
            bound[model.t("w", c, n)] = bound[model.t("z", c, n)] = here
            bound[model.t("jr", c, n)] = jokers
            bound[model.t("a", c, n)] = 0 if n >= numbers - 1 else here + jokers
            bound[model.t("q", c, n)] = 0 if n == numbers else grid[c].max() + jokers
    for n in range(1, numbers + 1):
        most = grid[:, n].max() + jokers
        bound[model.g("g3", n)] = bound[model.g("g4", n)] = most
        bound[model.g("jg", n)] = jokers
    bound[model.joker] = optional_jokers
    cost[model.joker] = -(weight + JOKER_PENALTY)
    lower[model.joker_row] = upper[model.joker_row] = required_jokers
    if opening is not None:
        threshold, min_melds = opening
        lower[model.melds_row] = max(1, min_melds)
        lower[model.value_row] = threshold
    x = _relaxation(model, cost, bound, lower, upper, linprog)
    exact = True
    if x is None:
        return None
    if np.abs(x - np.round(x)).max() > 1e-6:
        options: dict[str, Any] = {"mip_rel_gap": 0.0}
        if deadline is not None:
            options["time_limit"] = max(0.001, deadline - time.perf_counter())
        result = milp(
            cost,
            constraints=LinearConstraint(model.matrix, lower, upper),
            integrality=np.ones(model.size),
            bounds=Bounds(np.zeros(model.size), bound),
            options=options,
        )
        if result.status == 2:  # infeasible
            return None
        if result.x is None:
            raise TimeoutError("no layout found within the time budget")
        x = result.x
        exact = result.status == 0
    return _read(model, np.round(x).astype(int), exact)


def _relaxation(model: _Layout, cost: Any, bound: Any, lower: Any, upper: Any, linprog: Any) -> Any:
    """The LP optimum (a vertex: often integral), or None when even the LP has no solution."""
    import numpy as np

    equal = lower == upper
    below = ~equal & np.isfinite(upper)
    above = ~equal & np.isfinite(lower)
    matrix = model.matrix
    a_ub = np.vstack([matrix[below].toarray(), -matrix[above].toarray()])
    b_ub = np.concatenate([upper[below], -lower[above]])
    result = linprog(
        cost,
        A_ub=a_ub,
        b_ub=b_ub,
        A_eq=matrix[equal],
        b_eq=upper[equal],
        bounds=np.column_stack([np.zeros(model.size), bound]),
        method="highs-ds",
    )
    if result.status == 2:
        return None
    assert result.status == 0, result.message
    return result.x


def _read(model: _Layout, x: Any, exact: bool) -> Found:
    """The melds, in the search's order: by first number, runs by colour, then groups."""
    numbers = model.numbers
    t, g = model.t, model.g
    melds: list[tuple[int, int, list[NumberPiece]]] = []
    placed: list[NumberPiece] = []
    for c, colour in enumerate(COLOURS):
        short: list[tuple[int, list[NumberPiece]]] = []  # runs of length 1 or 2 (must go on)
        long: list[tuple[int, list[NumberPiece]]] = []
        for n in range(1, numbers + 1):
            if n > 1:
                going = x[t("q", c, n - 1)]
                melds += [(start, c, run) for start, run in long[going:]]
                long = long[:going] + [run for run in short if len(run[1]) == 2]
                short = [run for run in short if len(run[1]) == 1]
            short += [(n, []) for _ in range(x[t("a", c, n)])]
            tiles, jokers = x[t("w", c, n)], x[t("jr", c, n)]
            for _, run in [*short, *long]:
                if tiles:
                    run.append(Tile(colour, n))
                    tiles -= 1
                else:
                    run.append(JOKER)
                    jokers -= 1
            assert tiles == 0 and jokers == 0
        assert not short
        melds += [(start, c, run) for start, run in long]
    for n in range(1, numbers + 1):
        groups: list[list[NumberPiece]] = [[] for _ in range(x[g("g3", n)])]
        sizes = [3] * len(groups) + [4] * x[g("g4", n)]
        groups += [[] for _ in range(x[g("g4", n)])]
        demand = sorted(range(len(COLOURS)), key=lambda c: -x[t("z", c, n)])
        for c in demand:  # greedy by room left: feasible by Gale-Ryser
            roomiest = sorted(range(len(groups)), key=lambda i: len(groups[i]) - sizes[i])
            for i in roomiest[: x[t("z", c, n)]]:
                groups[i].append(Tile(COLOURS[c], n))
        for group, size in zip(groups, sizes, strict=True):
            assert len(group) <= size
            group += [JOKER] * (size - len(group))
            melds.append((n, len(COLOURS), group))
    for n in range(1, numbers + 1):
        for c, colour in enumerate(COLOURS):
            placed += [Tile(colour, n)] * x[t("r", c, n)]
    placed += [JOKER] * x[model.joker]
    melds.sort(key=lambda item: (item[0], item[1]))
    value = sum(p.number if isinstance(p, Tile) else JOKER_PENALTY for p in placed)
    return Found(tuple(tuple(m) for _, _, m in melds), tuple(placed), len(placed), value, exact)
