"""The game registry: each game's descriptor (``GAME_TYPE`` in its module), and rules factories.

The modules are imported only when a game is asked about, so listing the names costs nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from scorer.errors import OptionError
from scorer.game import GameType, Rules
from scorer.messages import names, say
from scorer.options import resolve_options

GAME_MODULES: dict[str, str] = {
    "rummikub": "scorer.rummikub",
    "remik": "scorer.remik",
    "remino": "scorer.remino",
    "domino-gin": "scorer.domino_gin",
    "gin": "scorer.gin",
}


def game_module(game: str) -> ModuleType:
    if game not in GAME_MODULES:
        raise OptionError(
            say(
                "game.unknown",
                "unknown game {game}: use one of {games}",
                game=repr(game),
                games=names(GAME_MODULES),
            )
        )
    return importlib.import_module(GAME_MODULES[game])


def game_type(game: str) -> GameType:
    """The descriptor of ``game`` (players, hand style, pieces, hints, options...)."""
    descriptor: GameType = game_module(game).GAME_TYPE
    return descriptor


def game_title(game: str) -> str:
    """The game's title, or ``game`` itself when no such game is registered."""
    return game_type(game).title if game in GAME_MODULES else game


def make_rules(
    game: str, options: Mapping[str, Any] | None = None, preset: str | None = None
) -> Rules:
    """The rules of ``game`` with a preset's values, overlaid by explicit options."""
    module = game_module(game)
    descriptor = game_type(game)
    chosen: dict[str, Any] = {}
    if preset is not None:
        presets = descriptor.presets
        if preset not in presets:
            raise OptionError(
                say(
                    "game.unknown-preset",
                    "{game} has no preset {preset} (its presets: {presets})",
                    game=game,
                    preset=repr(preset),
                    presets=names(presets) or "none",
                )
            )
        chosen.update(presets[preset])
    chosen.update(options or {})
    rules: Rules = module.make_rules(resolve_options(game, descriptor.options, chosen))
    return rules


def describe_game(game: str, *, pickers: bool = False) -> dict[str, Any]:
    """One game with its options and presets, JSON-ready (the CLI's ``games``); ``pickers``
    (the web app's catalogue) adds its player counts, its hand style and the options' bounds."""
    descriptor = game_type(game)
    described: dict[str, Any] = {"game": game, "title": descriptor.title}
    if pickers:
        described["players"] = list(descriptor.players)
        described["hand_style"] = descriptor.hand_style
    described["options"] = [spec.to_json(bounds=pickers) for spec in descriptor.options]
    described["presets"] = dict(descriptor.presets)
    return described


def describe_games(*, pickers: bool = False) -> list[dict[str, Any]]:
    """Every game, described (``describe_game``)."""
    return [describe_game(game, pickers=pickers) for game in GAME_MODULES]


def photo_set(rules: Rules) -> str | None:
    """The set the game's photos are read for, as its rules stand (``GameType.photo_set``)."""
    return game_type(rules.game).photo_set(rules.options)
