"""Messages for players as an id with parameters, so they can be translated and tested without
depending on their wording.

A ``Message`` holds a stable ``code`` (``"meld.too-short"``), its English text with ``{name}``
placeholders (the gettext msgid: ``scripts/i18n.py`` extracts every ``say`` and ``say_n`` call)
and the parameters. ``str(message)`` is the English text, so the command line prints what it
always printed; ``render(gettext, ngettext)`` gives it in another language. Parameters that are
Messages themselves are rendered in the same language. Pure Python: the web app passes its own
translation functions in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Gettext = Callable[[str], str]
Ngettext = Callable[[str, str, int], str]


def _same(text: str) -> str:
    return text


def _english_plural(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


@dataclass(frozen=True)
class Message:
    code: str
    text: str
    params: Mapping[str, Any] = field(default_factory=dict)
    plural: str | None = None
    count: str | None = None  # the parameter that chooses the plural form

    def render(self, gettext: Gettext = _same, ngettext: Ngettext = _english_plural) -> str:
        if self.plural is not None and self.count is not None:
            template = ngettext(self.text, self.plural, int(self.params[self.count]))
        else:
            template = gettext(self.text)
        values = {
            name: value.render(gettext, ngettext) if isinstance(value, Message) else value
            for name, value in self.params.items()
        }
        return template.format(**values)

    def __str__(self) -> str:
        return self.render()


def say(code: str, text: str, **params: Any) -> Message:
    """A message: ``say("meld.too-short", "a meld needs at least {least} tiles", least=3)``."""
    return Message(code, text, params)


def say_n(code: str, singular: str, plural: str, count: str, **params: Any) -> Message:
    """A message whose wording follows the number ``params[count]`` (1 tile, 2 tiles)."""
    return Message(code, singular, params, plural, count)
