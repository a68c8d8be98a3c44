"""Benchmark the move finder against the reference, rummikub-solver (an ILP, PyPI), and against
an earlier version of itself.

Not a unit test: run ``.venv/bin/python -m benchmarks.bench_hints [--positions 500] [--seed 1]
[--before REV]`` from the repository root (needs ``pip install rummikub-solver``). ``--before
REV`` loads the move finder and its search as they were at git revision REV (a "before"
column, timed on the same positions in the same run). It prints

1. agreement on the number of tiles placed over random reachable positions (tables of 10-80
   tiles built from valid melds, racks of 1-20 from the tiles left), after the player opened;
2. median, p95, p99 and max time of the best move (``solve_number_tiles``), the whole hint
   (with the fewest-melds-changed tie-break), before and after, and of the reference, on
   60-tile and 80-tile tables with 14-tile racks (``--speed-positions`` each); after and before
   must place the same pieces (count and value), the reference the same count;
3. Remik (1-17, 0/2/4 jokers, opening 36: opened positions and openings from the rack) and
   Remino (double-nine, double-twelve) positions: the same figures;
4. small positions against the brute-force solver of tests/scorer/test_hints_properties.py:
   ours (the search, and the integer program alone) and the reference's known limits (it
   never puts a joker at the end of a run longer than 3 or in a 4-tile group; its opening
   pre-check collapses equal numbers).

Differences on the big positions are classified: "reference limit" when the reference places
fewer tiles and our layout needs a joker where the reference's candidate melds never put one;
anything else is printed in full as unexplained.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from scorer import numbertiles, tilemip
from scorer.games import make_rules
from scorer.hints import Position, number_tile_hint
from scorer.numbertiles import judge_meld, rack_value, solve_number_tiles
from scorer.pieces import COLOURS, Joker, Tile
from scorer.sets import number_tiles

REPO = Path(__file__).resolve().parents[1]

JOKER = Joker()
NUMBERS = 13
# rummikub-solver numbers tiles colour-major in the order black, blue, orange, red; joker last
REFERENCE_COLOURS = ("black", "blue", "orange", "red")


# --- positions ----------------------------------------------------------------------------------


def random_meld(rng: random.Random, pool: Counter, numbers: int = NUMBERS) -> list | None:
    if rng.random() < 0.5:
        size = rng.choice([3, 3, 4, 4, 5, 6, 7])
        colour = rng.choice(COLOURS)
        start = rng.randint(1, numbers - size + 1)
        meld = [Tile(colour, n) for n in range(start, start + size)]
    else:
        number = rng.randint(1, numbers)
        meld = [Tile(c, number) for c in rng.sample(COLOURS, rng.choice([3, 4]))]
    if rng.random() < 0.12:
        meld[rng.randrange(len(meld))] = JOKER
    return None if Counter(meld) - pool else meld


def random_position(
    rng: random.Random, table_size: int, rack_size: int, numbers: int = NUMBERS, jokers: int = 2
):
    """Melds drawn from a full set until the table holds ``table_size`` tiles, then a rack."""
    while True:
        pool = Counter(number_tiles(numbers, jokers))
        melds: list[list] = []
        size = 0
        for _ in range(5000):
            if size == table_size:
                break
            meld = random_meld(rng, pool, numbers)
            if meld is None or table_size - size - len(meld) in (-2, -1, 1, 2):
                continue
            if size + len(meld) > table_size:
                continue
            pool -= Counter(meld)
            melds.append(meld)
            size += len(meld)
        if size == table_size:
            rack = rng.sample(list(pool.elements()), rack_size)
            return melds, rack


# --- the reference ------------------------------------------------------------------------------


class Reference:
    def __init__(self, numbers: int = NUMBERS, jokers: int = 2) -> None:
        from rummikub_solver import RuleSet

        self.numbers = numbers
        self.ruleset = RuleSet(numbers=numbers, repeats=2, colours=4, jokers=jokers, min_len=3)
        self.joker_id = len(self.ruleset.tiles)

    def tile_id(self, piece) -> int:
        if piece == JOKER:
            return self.joker_id
        return REFERENCE_COLOURS.index(piece.colour) * self.numbers + piece.number

    def placed(self, table, rack, opened: bool = True, threshold: int = 30) -> int:
        from rummikub_solver import RuleSet, SolverMode

        ruleset = self.ruleset
        if not opened and threshold != ruleset.min_initial_value:
            ruleset = RuleSet(jokers=2, min_initial_value=threshold)
        state = ruleset.new_game()
        if table:
            state.add_table(*(self.tile_id(p) for p in table))
        state.add_rack(*(self.tile_id(p) for p in rack))
        state.initial = not opened
        mode = SolverMode.TILE_COUNT if opened else SolverMode.INITIAL
        solution = ruleset.solve(state, mode)
        return len(solution.tiles) if solution else 0


def joker_beyond_reference(melds, numbers: int = NUMBERS) -> bool:
    """Does a layout put a joker where the reference never does (run end >3, 4-group)?"""
    for meld in melds:
        if JOKER not in meld:
            continue
        verdict = judge_meld(meld, numbers)
        if len(meld) == 4 and verdict.kind == "group":
            return True
        if verdict.kind == "run" and len(meld) > 3 and JOKER in (meld[0], meld[-1]):
            return True
    return False


# --- the parts ----------------------------------------------------------------------------------


def load_module_at(revision: str, path: str, name: str):
    """The module at ``path`` as it was at git ``revision``, loaded as ``name`` (its imports
    are of the tree as it is now)."""
    source = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{revision}:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    exec(compile(source, f"{revision}:{path}", "exec"), module.__dict__)
    return module


def load_before(revision: str):
    """``scorer/hints.py`` as it was at ``revision``, with that revision's search: in
    ``scorer/hints.py`` itself up to fea8d04, in ``scorer/numbertiles.py`` from then on (the
    whole hint then runs the revision's hint code on the search as it is now)."""
    hints = load_module_at(revision, "scorer/hints.py", "hints_before")
    if not hasattr(hints, "_Search"):
        search = load_module_at(revision, "scorer/numbertiles.py", "numbertiles_before")
        hints.solve_number_tiles = search.solve_number_tiles
    return hints


class Fallbacks:
    """Counts the solves the search hands to the integer program (``scorer.tilemip``), and of
    those the ones that need its branch and bound."""

    def __init__(self) -> None:
        self.relaxed = self.branched = 0
        relax, branch = tilemip.relax, tilemip.Relaxation.branch_and_bound

        def counted_relax(*args, **kwargs):
            self.relaxed += 1
            return relax(*args, **kwargs)

        def counted_branch(*args, **kwargs):
            self.branched += 1
            return branch(*args, **kwargs)

        tilemip.relax = counted_relax
        tilemip.Relaxation.branch_and_bound = counted_branch

    def take(self) -> str:
        text = f"{self.relaxed} (branch and bound: {self.branched})"
        self.relaxed = self.branched = 0
        return text


def timed(function, *args, **kwargs):
    """(result, wall seconds, CPU seconds of this process: what the shared cores gave us)."""
    start, cpu = time.perf_counter(), time.process_time()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start, time.process_time() - cpu


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def figures(times: list[float]) -> str:
    ordered = sorted(times)
    return (
        f"{ms(statistics.median(ordered))} | {ms(percentile(ordered, 0.95))} | "
        f"{ms(percentile(ordered, 0.99))} | {ms(ordered[-1])}"
    )


def summary(name: str, times: list[tuple[float, float]]) -> str:
    """A table row: wall-clock median, p95, p99, max, then the same in CPU time."""
    return f"| {name} | {figures([w for w, _ in times])} | {figures([c for _, c in times])} |"


def table_header() -> None:
    print(f"   load average: {os.getloadavg()}")
    print("| ms | median | p95 | p99 | max | CPU median | CPU p95 | CPU p99 | CPU max |")
    print("|---|---|---|---|---|---|---|---|---|")


def merit(placed) -> tuple[int, int]:
    return len(placed), rack_value(placed)


def agreement(reference: Reference, positions: int, rng: random.Random) -> None:
    rules = make_rules("rummikub")
    agree = limit = 0
    unexplained = []
    for _ in range(positions):
        melds, rack = random_position(rng, rng.randint(10, 80), rng.randint(1, 20))
        table = [p for m in melds for p in m]
        ours = solve_number_tiles(table, rack, NUMBERS)
        assert ours is not None
        theirs = reference.placed(table, rack)
        if len(ours.placed) == theirs:
            agree += 1
        elif theirs < len(ours.placed) and joker_beyond_reference(ours.melds):
            limit += 1
        else:
            unexplained.append((melds, rack, len(ours.placed), theirs))
        # the full hint (tie-breaks included) must place as many
        hint = number_tile_hint(
            rules, Position(tuple(map(tuple, melds)), tuple(table), tuple(rack), True)
        )
        assert len(hint.placed) == len(ours.placed)
    print(f"1. agreement on tiles placed: {agree}/{positions} positions")
    print(f"   reference limit (joker at a run end >3 or in a 4-group): {limit}")
    print(f"   unexplained differences: {len(unexplained)}")
    for melds, rack, ours_count, theirs in unexplained:
        print(
            "   ", [[p.name for p in m] for m in melds], [p.name for p in rack], ours_count, theirs
        )


def speed(
    title: str,
    rules,
    positions: list[tuple[list, list, bool]],
    before,
    reference: Reference | None,
    fallbacks: Fallbacks,
) -> None:
    """Time after, before and the reference on the same positions; check they agree."""
    numbers = rules.numbers
    opening = (rules.threshold, rules.min_melds)
    times: dict[str, list[tuple[float, float]]] = {}
    differ_before: list = []
    agree = limit = 0
    unexplained: list = []
    kept = total = 0

    def clock(name: str, function, *args, **kwargs):
        result, wall, cpu = timed(function, *args, **kwargs)
        times.setdefault(name, []).append((wall, cpu))
        return result

    fallbacks.take()
    for melds, rack, opened in positions:
        table = [p for m in melds for p in m]
        position = Position(tuple(map(tuple, melds)), tuple(table), tuple(rack), opened)
        if opened:
            best = clock("ours, best move", solve_number_tiles, table, rack, numbers)
        else:
            best = clock("ours, best move", solve_number_tiles, [], rack, numbers, opening)
        hint = clock("ours, whole hint", number_tile_hint, rules, position)
        got = merit(best.placed) if best else (0, 0)
        assert merit(hint.placed) == got, (melds, rack)
        total += len(melds)
        kept += sum(1 for meld in melds if tuple(meld) in hint.table)
        if before is not None:
            if opened:
                old = clock("before, best move", before.solve_number_tiles, table, rack, numbers)
            else:
                old = clock(
                    "before, best move", before.solve_number_tiles, [], rack, numbers, opening
                )
            clock("before, whole hint", before.number_tile_hint, rules, position)
            if (merit(old.placed) if old else (0, 0)) != got:
                differ_before.append((melds, rack, opened))
        if reference is not None and opened:
            theirs = clock("reference (rummikub-solver)", reference.placed, table, rack)
            if theirs == got[0]:
                agree += 1
            elif theirs < got[0] and joker_beyond_reference(best.melds, numbers):
                limit += 1
            else:
                unexplained.append(([[p.name for p in m] for m in melds], rack, got[0], theirs))
    print(f"{title}: {len(positions)} positions")
    table_header()
    for name, values in times.items():
        print(summary(name, values))
    print(
        "   solves handed to the integer program (best moves, hints and the hints' "
        f"melds-changed layouts): {fallbacks.take()}"
    )
    print(f"   table melds kept unchanged by the hints: {kept} of {total}")
    if before is not None:
        print(f"   count or value different from before: {len(differ_before)}")
        for example in differ_before[:3]:
            print("   ", example)
    if reference is not None and any(opened for *_, opened in positions):
        print(
            f"   reference: same count {agree}, its joker limit {limit}, "
            f"unexplained {len(unexplained)}"
        )
        for example in unexplained[:3]:
            print("   ", example)


def rummikub_positions(rng: random.Random, count: int, table_size: int) -> list:
    return [(*random_position(rng, table_size, 14), True) for _ in range(count)]


def remik_positions(rng: random.Random, count: int, jokers: int) -> list:
    """Half opened (60-tile tables of 1-17, 14-tile racks), half openings from 14 tiles."""
    out: list = []
    for index in range(count):
        if index % 2 == 0:
            out.append((*random_position(rng, 60, 14, numbers=17, jokers=jokers), True))
        else:
            out.append(([], rng.sample(list(number_tiles(17, jokers).elements()), 14), False))
    return out


def remino_positions(rng: random.Random, rules, count: int, table_size: int, rack_size: int):
    """Tables of 3-piece melds drawn from the set (valid by ``check_meld``), then a rack."""
    from scorer.sets import dominoes

    out = []
    while len(out) < count:
        pool = list(dominoes(rules.options["set"]).elements())
        rng.shuffle(pool)
        melds: list = []
        for _ in range(4000):
            if 3 * len(melds) >= table_size:
                break
            trio = rng.sample(pool, 3)
            if rules.check_meld(trio).valid:
                melds.append(trio)
                for piece in trio:
                    pool.remove(piece)
        if 3 * len(melds) >= table_size:
            out.append((melds, rng.sample(pool, rack_size), True))
    return out


def remino_speed(rng: random.Random, before, count: int) -> None:
    from scorer.hints import layout_hint

    for name, size, rack_size in (("double-nine", 18, 8), ("double-twelve", 30, 8)):
        rules = make_rules("remino", {"set": name})
        times: dict[str, list[tuple[float, float]]] = {}
        differ = 0
        for melds, rack, _ in remino_positions(rng, rules, count, size, rack_size):
            table = [p for m in melds for p in m]
            position = Position(tuple(map(tuple, melds)), tuple(table), tuple(rack), True)
            ours, *seconds = timed(layout_hint, rules, position)
            times.setdefault("ours, whole hint", []).append(tuple(seconds))
            if before is not None:
                old, *seconds = timed(before.layout_hint, rules, position)
                times.setdefault("before, whole hint", []).append(tuple(seconds))
                differ += (len(old.placed), old.value) != (len(ours.placed), ours.value)
        print(f"3c. Remino {name}, {size}-tile tables, {rack_size}-tile racks: {count} positions")
        table_header()
        for label, values in times.items():
            print(summary(label, values))
        if before is not None:
            print(f"   count or value different from before: {differ}")


def small_limits(reference: Reference, positions: int, rng: random.Random) -> None:
    from tests.scorer.test_hints_properties import brute_best
    from tests.scorer.test_hints_properties import random_meld as small_meld

    differs = explained = ours_wrong = program_wrong = 0
    examples = []
    for _ in range(positions):
        pool = Counter(number_tiles(NUMBERS, 2))
        low = rng.randint(1, NUMBERS - 4)
        table: list = []
        for _ in range(rng.choice([1, 1, 2])):
            meld = small_meld(rng, NUMBERS, low, low + 4)
            if meld.count(JOKER) > 2 or Counter(meld) - pool or len(table) + len(meld) > 7:
                continue
            pool -= Counter(meld)
            table += meld
        near = [p for p in pool.elements() if p == JOKER or low - 1 <= p.number <= low + 5]
        rack = rng.sample(near, rng.randint(1, 4))
        expected = brute_best(table, rack, NUMBERS)
        ours = solve_number_tiles(table, rack, NUMBERS)
        assert ours is not None
        if merit(ours.placed) != expected:
            ours_wrong += 1
        program = solve_number_tiles(table, rack, NUMBERS, search_calls=0)
        if program is None or merit(program.placed) != expected:
            program_wrong += 1
        theirs = reference.placed(table, rack)
        if theirs != expected[0]:
            differs += 1
            if theirs < expected[0] and joker_beyond_reference(ours.melds):
                explained += 1
            elif len(examples) < 5:
                examples.append(([p.name for p in table], [p.name for p in rack], expected, theirs))
    print(f"4. small positions ({positions}), after opening, against the brute force:")
    print(f"   ours differs from the brute force: {ours_wrong} (the search first)")
    print(f"   the integer program alone differs from the brute force: {program_wrong}")
    print(f"   reference differs: {differs}, of which explained by its joker limits: {explained}")
    for example in examples:
        print("   unexplained:", example)
    # its opening pre-check: three equal numbers make an opening of 30 (10+10+10)
    rack = [Tile("red", 10), Tile("blue", 10), Tile("black", 10), Tile("red", 2)]
    expected = brute_best([], rack, NUMBERS, (30, 1))
    theirs = reference.placed([], rack, opened=False)
    rules = make_rules("rummikub")
    ours = number_tile_hint(rules, Position((), (), tuple(rack), False))
    print(
        f"   opening red-10 blue-10 black-10 (+red-2): brute force {expected[0]} tiles, "
        f"ours {len(ours.placed)}, reference {theirs} (equal-number pre-check)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=500)
    parser.add_argument("--speed-positions", type=int, default=500)
    parser.add_argument("--remik-positions", type=int, default=60, help="per joker count")
    parser.add_argument("--remino-positions", type=int, default=20)
    parser.add_argument("--small-positions", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--before", metavar="REV", help="git revision of scorer/hints.py to time")
    parser.add_argument(
        "--parts", default="1234", help="which parts to run (digits 1-4, default all)"
    )
    args = parser.parse_args()
    print(f"load average (1, 5, 15 min): {os.getloadavg()}, cores: {os.cpu_count()}")
    print(f"search calls before the integer program: {numbertiles.SEARCH_CALLS}")
    before = load_before(args.before) if args.before else None
    fallbacks = Fallbacks()
    # ours first: imports highspy and sets HiGHS's scheduler to one thread, as in the app (the
    # reference, through cvxpy, would otherwise set it to every core)
    solve_number_tiles([], [Tile("red", 1)], NUMBERS, search_calls=0)
    reference = Reference()
    reference.placed([], [Tile("red", 1)])  # warm up: cvxpy compiles its problems once
    rng = random.Random(args.seed)
    if "1" in args.parts:
        agreement(reference, args.positions, rng)
    if "2" in args.parts:
        rules = make_rules("rummikub")
        for size in (60, 80):
            positions = rummikub_positions(rng, args.speed_positions, size)
            title = f"2. Rummikub, {size}-tile tables + 14-tile racks"
            speed(title, rules, positions, before, reference, fallbacks)
    if "3" in args.parts:
        for jokers in (0, 2, 4):
            rules = make_rules("remik", {"numbers": 17, "jokers": jokers, "opening": 36})
            positions = remik_positions(rng, args.remik_positions, jokers)
            title = f"3. Remik 1-17, {jokers} jokers, opening 36 (half openings from the rack)"
            remik_reference = Reference(17, jokers) if jokers else None
            speed(title, rules, positions, before, remik_reference, fallbacks)
        remino_speed(rng, before, args.remino_positions)
    if "4" in args.parts:
        small_limits(reference, args.small_positions, rng)
    print(f"load average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
