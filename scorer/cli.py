"""Scorer subcommands: ``check``, ``table``, ``score``, ``hint``, ``games``. JSON on stdout."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from scorer import api
from scorer.errors import HandError, MeldcamError
from scorer.games import GAME_MODULES, describe_games
from scorer.options import parse_option_pairs


def _print(result: Any) -> None:
    print(json.dumps(result, ensure_ascii=False))


def _game_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, choices=list(GAME_MODULES))
    parser.add_argument(
        "--option",
        action="append",
        metavar="KEY=VALUE",
        default=[],
        help="a house-rule option, e.g. numbers=17 (repeatable)",
    )


def _check(args: argparse.Namespace) -> int:
    melds = [api.split_meld(text) for text in args.melds]
    _print(api.check(args.game, parse_option_pairs(args.option), melds, opening=args.opening))
    return 0


def _table(args: argparse.Namespace) -> int:
    pieces = [name for text in args.pieces for name in api.split_meld(text)]
    _print(api.table(args.game, parse_option_pairs(args.option), pieces))
    return 0


def _stdin_json(what: str) -> object:
    """The JSON document on stdin, or a HandError naming ``what`` it should have been."""
    try:
        return json.loads(sys.stdin.read())
    except json.JSONDecodeError as error:
        raise HandError(f"the {what} on stdin is not valid JSON: {error}") from None


def _score(args: argparse.Namespace) -> int:
    _print(api.score(args.game, parse_option_pairs(args.option), _stdin_json("hand")))
    return 0


def _budget(args: argparse.Namespace) -> float | None:
    budget_ms: float | None = args.budget_ms
    if budget_ms is None:
        return None
    if budget_ms <= 0:
        raise HandError("--budget-ms must be more than 0")
    return budget_ms / 1000


def _hint(args: argparse.Namespace) -> int:
    options = parse_option_pairs(args.option)
    if args.jsonl:
        return _hint_lines(args.game, options, _budget(args))
    position = _stdin_json("position")
    _print(api.hint(args.game, options, position, _budget(args)))
    return 0


def _hint_lines(game: str, options: dict[str, Any], budget: float | None) -> int:
    """One position per stdin line, one answer per stdout line (flushed), each with ``ms``:
    the time from reading the line to the answer, inside this process. A line that cannot be
    answered gets ``{"error": ..., "line": n, "ms": ...}`` and the next lines go on; the exit
    status is 2 when any line was an error, else 0."""
    api.hint(game, options, {"rack": []})  # bad game or options: an error before any line
    failed = False
    for number, line in enumerate(sys.stdin, start=1):
        start = time.perf_counter()
        try:
            try:
                position = json.loads(line)
            except json.JSONDecodeError as error:
                raise HandError(f"line {number} is not valid JSON: {error}") from None
            answer = api.hint(game, options, position, budget)
        except MeldcamError as error:
            failed = True
            answer = {"error": str(error), "line": number}
        answer["ms"] = round((time.perf_counter() - start) * 1000, 3)
        print(json.dumps(answer, ensure_ascii=False), flush=True)
    return 2 if failed else 0


def _games(args: argparse.Namespace) -> int:
    _print(describe_games())
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = subparsers.add_parser("check", help="judge melds (comma-separated pieces each)")
    _game_args(check)
    check.add_argument("--opening", action="store_true", help="judge the melds as a first meld")
    check.add_argument("melds", nargs="+", metavar="MELD", help="e.g. red-1,red-2,red-3")
    check.set_defaults(handler=_check)

    table = subparsers.add_parser("table", help="can these pieces be laid out as legal melds?")
    _game_args(table)
    table.add_argument("pieces", nargs="+", metavar="PIECE")
    table.set_defaults(handler=_table)

    score = subparsers.add_parser("score", help="score one hand read as JSON from stdin")
    _game_args(score)
    score.set_defaults(handler=_score)

    hint = subparsers.add_parser(
        "hint", help="the most rack pieces to lay down, from a position read as JSON from stdin"
    )
    _game_args(hint)
    hint.add_argument(
        "--jsonl",
        action="store_true",
        help='one position per input line, one answer per output line with its own "ms"',
    )
    hint.add_argument(
        "--budget-ms",
        type=float,
        metavar="MS",
        help='answer within about MS ms: the best found so far, marked "exact": false',
    )
    hint.set_defaults(handler=_hint)

    games = subparsers.add_parser("games", help="list games, options and presets as JSON")
    games.set_defaults(handler=_games)
