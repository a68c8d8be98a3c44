"""The number-tile layout as an integer program, for positions the search in
``scorer.numbertiles`` finds hard (tables holding jokers where some rack tile cannot be placed).

Exact, with jokers anywhere the rules allow. Per colour the runs are a flow over the numbers,
as the search's state: ``a`` runs start at n, every run of length 1 or 2 goes on, ``q`` of the
runs of length 3+ at n go on to n+1 (the rest end). The pieces a colour's runs hold at n are
``w`` real tiles and ``jr`` jokers. At n, ``g3`` groups of 3 and ``g4`` of 4 hold ``z`` real
tiles of each colour (at most one per group: ``z <= g3 + g4``) and ``jg`` jokers; by
Gale-Ryser that is all a layout of distinct colours needs. A meld of jokers only is a run or
a group with no real tile. Real tiles: ``w + z`` = the required ones plus ``r`` optional ones;
jokers: all the required ones plus ``j`` optional ones.

The objective is the search's (count, then value) with a count weight above any value. The LP
relaxation is solved first (``relax``): its vertex is sometimes integral (then it is the answer);
its optimum is mostly the best score (on random 60-tile tables, 91 times in 100; the count 100
times in 100), so HiGHS's branch and bound (``Relaxation.branch_and_bound``) finishes the rest
at the root node. Tried and dropped (no faster, measured): laying out the LP's chosen pieces
with the search, or the search capped by the LP's bound. HiGHS (``highspy``) and NumPy are
imported only here, so only hard positions pay for the imports.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from meldcam.vocabulary import TILE_COLOURS as COLOURS
from scorer.numbertiles import JOKER, JOKER_PENALTY
from scorer.pieces import NumberPiece, Tile

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
        # column-wise (compressed sparse columns), as HiGHS takes it
        order = np.lexsort((rows, cols))
        self.indices = np.array(rows, dtype=np.int32)[order]
        self.values = np.array(vals)[order]
        self.starts = np.searchsorted(np.array(cols)[order], np.arange(self.size + 1)).astype(
            np.int32
        )
        self.lower = np.array(lower)
        self.upper = np.array(upper)

    def t(self, kind: str, c: int, n: int) -> int:
        return (_PER_TILE.index(kind) * len(COLOURS) + c) * self.numbers + n - 1

    def g(self, kind: str, n: int) -> int:
        return self.number_base + _PER_NUMBER.index(kind) * self.numbers + n - 1


@cache
def _layout(numbers: int, opening: bool) -> _Layout:
    return _Layout(numbers, opening)


@dataclass
class Relaxation:
    """One position's program (in ``highs``) and its LP optimum (``x``; ``objective``, the
    score maximised)."""

    model: _Layout
    weight: int  # a placed piece's weight in the objective, above any value
    highs: Any
    x: Any
    objective: float

    def integral(self) -> Found | None:
        """The LP vertex as a layout when it is integral (then it is the best), else None."""
        import numpy as np

        if np.abs(self.x - np.round(self.x)).max() > 1e-6:
            return None
        return _read(self.model, np.round(self.x).astype(int), True)

    def upper_bound(self) -> tuple[int, int]:
        """(count, value): no layout beats it (count first, then value).

        ``objective`` is the LP optimum plus the most the meld prices can take off a layout.
        """
        total = int(self.objective + 1e-6)
        count = total // self.weight
        return count, total - count * self.weight

    def branch_and_bound(self, deadline: float | None = None) -> Found | None:
        """The best layout (HiGHS's branch and bound on the same model); None: none. Past
        ``deadline`` the best found so far with ``exact`` false, or TimeoutError if none."""
        import highspy
        import numpy as np

        highs = self.highs
        # Measured on hard 60-tile positions: HiGHS proves these at the root node, and most of
        # its time went on feasibility jump and presolve (CPU median 51 ms, with both off 22).
        highs.setOptionValue("mip_heuristic_run_feasibility_jump", False)
        highs.setOptionValue("presolve", "off")
        highs.changeColsIntegrality(
            self.model.size,
            np.arange(self.model.size, dtype=np.int32),
            np.full(self.model.size, highspy.HighsVarType.kInteger),
        )
        if deadline is not None:
            highs.setOptionValue("time_limit", max(0.001, deadline - time.perf_counter()))
        highs.run()
        status = highs.getModelStatus()
        if status == highspy.HighsModelStatus.kInfeasible:
            return None
        if highs.getInfo().primal_solution_status != 2:  # no feasible solution
            raise TimeoutError("no layout found within the time budget")
        x = np.round(np.array(highs.getSolution().col_value)).astype(int)
        return _read(self.model, x, status == highspy.HighsModelStatus.kOptimal)


def relax(
    required: Sequence[NumberPiece],
    optional: Sequence[NumberPiece],
    numbers: int,
    opening: tuple[int, int] | None = None,
) -> Relaxation | None:
    """The position's program with its LP optimum; None when not even the LP has a solution
    (then no layout exists). Arguments as ``scorer.numbertiles.solve_number_tiles``."""
    import highspy
    import numpy as np

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
    # A tiny price per meld (runs started, groups) makes the LP's vertex integral more often
    # (measured: 21 of 47 hard positions instead of 12). At most ``slack`` in all (under 1),
    # so an integral vertex is still the best and the bound moves by less than a point.
    melds_at_most = (len(required) + len(optional)) // 3 + 1
    price = 1 / (4 * melds_at_most)
    for n in range(1, numbers + 1):
        cost[model.g("g3", n)] = cost[model.g("g4", n)] = price
        for c in range(colours):
            cost[model.t("a", c, n)] = price
    slack = price * melds_at_most
    lower[model.joker_row] = upper[model.joker_row] = required_jokers
    if opening is not None:
        threshold, min_melds = opening
        lower[model.melds_row] = max(1, min_melds)
        lower[model.value_row] = threshold
    highs = _program(model, cost, bound, lower, upper)
    if highs.run() == highspy.HighsStatus.kError:
        # HiGHS sets its thread count once per process: when another user of HiGHS here set
        # it first (the benchmark's reference), one thread is an error; take its count
        highs.setOptionValue("threads", 0)
        if highs.run() == highspy.HighsStatus.kError:
            raise RuntimeError("HiGHS failed on the move finder's program")
    if highs.getModelStatus() == highspy.HighsModelStatus.kInfeasible:
        return None
    assert highs.getModelStatus() == highspy.HighsModelStatus.kOptimal, highs.modelStatusToString(
        highs.getModelStatus()
    )
    x = np.array(highs.getSolution().col_value)
    return Relaxation(model, weight, highs, x, float(-cost @ x) + slack)


def solve(
    required: Sequence[NumberPiece],
    optional: Sequence[NumberPiece],
    numbers: int,
    opening: tuple[int, int] | None = None,
    deadline: float | None = None,
) -> Found | None:
    """The best layout by the program alone (the LP when integral, else branch and bound)."""
    relaxation = relax(required, optional, numbers, opening)
    if relaxation is None:
        return None
    return relaxation.integral() or relaxation.branch_and_bound(deadline)


def _new_highs() -> Any:
    """A HiGHS instance that prints nothing, its output switched off before any other call.

    highspy's ``Highs`` wrapper prints HiGHS' banner on stdout from its constructor (the first
    call it makes, ``enableCallbacks``, logs it before any option can be set: ERGO-Code/HiGHS
    #1702, #2749), where ``meldcam hint`` prints JSON; so the core class it wraps is made
    directly (no callbacks are used here). Nothing redirects file 1: the web server's other
    threads keep their output."""
    from highspy._core import _Highs

    highs = _Highs()
    highs.setOptionValue("output_flag", False)
    return highs


def _program(model: _Layout, cost: Any, bound: Any, lower: Any, upper: Any) -> Any:
    """A HiGHS instance holding the program, integrality relaxed (quiet, one thread: two
    doubled the CPU time on the shared cores for no gain)."""
    import highspy
    import numpy as np

    program = highspy.HighsLp()
    program.num_col_ = model.size
    program.num_row_ = len(lower)
    program.col_cost_ = cost
    program.col_lower_ = np.zeros(model.size)
    program.col_upper_ = bound
    infinity = highspy.kHighsInf
    program.row_lower_ = np.where(np.isinf(lower), -infinity, lower)
    program.row_upper_ = np.where(np.isinf(upper), infinity, upper)
    program.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    program.a_matrix_.start_ = model.starts
    program.a_matrix_.index_ = model.indices
    program.a_matrix_.value_ = model.values
    highs = _new_highs()
    highs.setOptionValue("threads", 1)
    highs.setOptionValue("mip_rel_gap", 0.0)
    highs.passModel(program)
    return highs


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
