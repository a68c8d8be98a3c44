"""Rule variants as data: each game declares its options; presets are named bundles of values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scorer.errors import OptionError
from scorer.messages import Message, names, say


@dataclass(frozen=True)
class OptionSpec:
    """One house-rule option of a game.

    ``choices`` limits the values; otherwise ``minimum``/``maximum`` bound an int. A ``default``
    of None means the game derives it from the other options (Remik's opening from ``numbers``).
    """

    name: str
    kind: type  # int, bool or str
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None

    def to_json(self, bounds: bool = False) -> dict[str, Any]:
        """The option for a picker; ``bounds`` adds ``minimum`` and ``maximum`` (the web app's
        catalogue has them, the CLI's ``games`` does not)."""
        described: dict[str, Any] = {
            "name": self.name,
            "type": self.kind.__name__,
            "default": self.default,
            "choices": None if self.choices is None else list(self.choices),
        }
        if bounds:
            described["minimum"] = self.minimum
            described["maximum"] = self.maximum
        described["help"] = self.help
        return described

    def coerce(self, value: Any) -> Any:
        """Turn a CLI string or JSON value into this option's type, or raise OptionError."""
        parsed: Any
        if self.kind is bool:
            if isinstance(value, bool):
                parsed = value
            elif isinstance(value, str) and value.strip().lower() in {"1", "true", "yes", "on"}:
                parsed = True
            elif isinstance(value, str) and value.strip().lower() in {"0", "false", "no", "off"}:
                parsed = False
            else:
                raise OptionError(
                    say(
                        "option.not-bool",
                        "option {name} takes true or false, not {value}",
                        name=self.name,
                        value=repr(value),
                    )
                )
        elif self.kind is int:
            if isinstance(value, bool):
                raise OptionError(self._not_whole(value))
            try:
                parsed = int(str(value).strip())
            except ValueError:
                raise OptionError(self._not_whole(value)) from None
        else:
            parsed = str(value).strip()
        if self.choices is not None and parsed not in self.choices:
            raise OptionError(
                say(
                    "option.not-a-choice",
                    "option {name} cannot be {value}: use one of {choices}",
                    name=self.name,
                    value=repr(value),
                    choices=names(self.choices),
                )
            )
        if self.minimum is not None and parsed < self.minimum:
            raise OptionError(
                say(
                    "option.too-small",
                    "option {name} must be at least {least}, not {value}",
                    name=self.name,
                    least=self.minimum,
                    value=parsed,
                )
            )
        if self.maximum is not None and parsed > self.maximum:
            raise OptionError(
                say(
                    "option.too-large",
                    "option {name} must be at most {most}, not {value}",
                    name=self.name,
                    most=self.maximum,
                    value=parsed,
                )
            )
        return parsed

    def _not_whole(self, value: Any) -> Message:
        return say(
            "option.not-whole",
            "option {name} takes a whole number, not {value}",
            name=self.name,
            value=repr(value),
        )


def resolve_options(
    game: str, specs: tuple[OptionSpec, ...], given: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Defaults overlaid with the given values, each checked; unknown names are an error."""
    by_name = {spec.name: spec for spec in specs}
    resolved = {spec.name: spec.default for spec in specs}
    for key, value in (given or {}).items():
        if key not in by_name:
            if not by_name:
                raise OptionError(
                    say(
                        "option.unknown-none",
                        "{game} has no option {name} (its options: none)",
                        game=game,
                        name=repr(key),
                    )
                )
            raise OptionError(
                say(
                    "option.unknown",
                    "{game} has no option {name} (its options: {known})",
                    game=game,
                    name=repr(key),
                    known=names(by_name),
                )
            )
        resolved[key] = by_name[key].coerce(value)
    return resolved


def parse_option_pairs(pairs: list[str] | None) -> dict[str, str]:
    """``["numbers=17", "jokers=4"]`` -> ``{"numbers": "17", "jokers": "4"}``."""
    result: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise OptionError(
                say("option.pair", "options are written KEY=VALUE, not {pair}", pair=repr(pair))
            )
        result[key.strip()] = value.strip()
    return result
