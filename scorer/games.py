"""The game registry: names, options and presets of the five games, and rules factories."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from scorer.errors import OptionError
from scorer.game import Rules
from scorer.options import resolve_options

GAME_MODULES: dict[str, str] = {
    "rummikub": "scorer.rummikub",
    "remik": "scorer.remik",
    "remino": "scorer.remino",
    "domino-gin": "scorer.domino_gin",
    "gin": "scorer.gin",
}

GAME_TITLES: dict[str, str] = {
    "rummikub": "Rummikub",
    "remik": "Remik liczbowy",
    "remino": "Remino",
    "domino-gin": "Domino Gin",
    "gin": "Gin Rummy",
}


def game_module(game: str) -> ModuleType:
    if game not in GAME_MODULES:
        raise OptionError(f"unknown game {game!r}: use one of {', '.join(GAME_MODULES)}")
    return importlib.import_module(GAME_MODULES[game])


def make_rules(
    game: str, options: Mapping[str, Any] | None = None, preset: str | None = None
) -> Rules:
    """The rules of ``game`` with a preset's values, overlaid by explicit options."""
    module = game_module(game)
    chosen: dict[str, Any] = {}
    if preset is not None:
        presets: dict[str, dict[str, Any]] = module.PRESETS
        if preset not in presets:
            raise OptionError(
                f"{game} has no preset {preset!r} (its presets: {', '.join(presets) or 'none'})"
            )
        chosen.update(presets[preset])
    chosen.update(options or {})
    return module.make_rules(resolve_options(game, module.OPTIONS, chosen))


def describe_games() -> list[dict[str, Any]]:
    """Every game with its options and presets, JSON-ready (for pickers in the web app)."""
    described = []
    for game in GAME_MODULES:
        module = game_module(game)
        described.append(
            {
                "game": game,
                "title": GAME_TITLES[game],
                "options": [
                    {
                        "name": spec.name,
                        "type": spec.kind.__name__,
                        "default": spec.default,
                        "choices": None if spec.choices is None else list(spec.choices),
                        "help": spec.help,
                    }
                    for spec in module.OPTIONS
                ],
                "presets": dict(module.PRESETS),
            }
        )
    return described
