"""``meldcam``: one command, subcommands registered by each package.

Each package that adds subcommands has a ``cli`` module with ``register(subparsers)``; a
subcommand's handler takes the parsed args and returns an exit code. Input that cannot be
judged (MeldcamError, bad files) prints a message on stderr and exits 2.

The ``cli`` modules are imported in turn only until the one asked for has registered its
subcommand, so ``meldcam check`` never imports Flask or the recognisers (help, or a command no
module knows, imports them all).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMAND_MODULES = ("scorer.cli", "vision.cli", "vision.worker", "webapp.cli", "training.cli")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with every subcommand, or, given ``command``, with the subcommands of the
    modules up to the one that registers it (all of them if none does)."""
    parser = argparse.ArgumentParser(
        prog="meldcam",
        description="Reads rummy-family game pieces from photos, checks melds, scores hands.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
        if command is not None and command in subparsers.choices:
            break
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand's name: the first argument that is not an option (the top-level parser
    has no options that take a value)."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(_command(argv))
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 0
    from scorer.errors import MeldcamError

    try:
        return int(args.handler(args) or 0)
    except MeldcamError as error:
        print(f"meldcam: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
