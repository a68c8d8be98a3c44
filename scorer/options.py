"""Rule variants as data: each game declares its options; presets are named bundles of values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scorer.errors import OptionError


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
                raise OptionError(f"option {self.name} takes true or false, not {value!r}")
        elif self.kind is int:
            if isinstance(value, bool):
                raise OptionError(f"option {self.name} takes a whole number, not {value!r}")
            try:
                parsed = int(str(value).strip())
            except ValueError:
                raise OptionError(
                    f"option {self.name} takes a whole number, not {value!r}"
                ) from None
        else:
            parsed = str(value).strip()
        if self.choices is not None and parsed not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise OptionError(f"option {self.name} cannot be {value!r}: use one of {allowed}")
        if self.minimum is not None and parsed < self.minimum:
            raise OptionError(f"option {self.name} must be at least {self.minimum}, not {parsed}")
        if self.maximum is not None and parsed > self.maximum:
            raise OptionError(f"option {self.name} must be at most {self.maximum}, not {parsed}")
        return parsed


def resolve_options(
    game: str, specs: tuple[OptionSpec, ...], given: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Defaults overlaid with the given values, each checked; unknown names are an error."""
    by_name = {spec.name: spec for spec in specs}
    resolved = {spec.name: spec.default for spec in specs}
    for key, value in (given or {}).items():
        if key not in by_name:
            known = ", ".join(by_name) or "none"
            raise OptionError(f"{game} has no option {key!r} (its options: {known})")
        resolved[key] = by_name[key].coerce(value)
    return resolved


def parse_option_pairs(pairs: list[str] | None) -> dict[str, str]:
    """``["numbers=17", "jokers=4"]`` -> ``{"numbers": "17", "jokers": "4"}``."""
    result: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise OptionError(f"options are written KEY=VALUE, not {pair!r}")
        result[key.strip()] = value.strip()
    return result
