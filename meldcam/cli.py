"""``meldcam``: one command, subcommands registered by each package.

Each package that adds subcommands has a ``cli`` module with ``register(subparsers)``; a
subcommand's handler takes the parsed args and returns an exit code. Input that cannot be
judged (MeldcamError, bad files) prints a message on stderr and exits 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMAND_MODULES = ("scorer.cli", "vision.cli", "webapp.cli")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="meldcam",
        description="Reads rummy-family game pieces from photos, checks melds, scores hands.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name and name.startswith(error.name):  # that package has no commands yet
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
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
