"""Messages for players as an id with parameters, so they can be translated and tested without
depending on their wording.

A ``Message`` is the English text itself (a ``str``: the command line prints what it always
printed, JSON carries it as text, ``in`` and ``==`` work as on any text) that also keeps a stable
``code`` (``"meld.too-short"``), its English template with ``{name}`` placeholders (the gettext
msgid: ``scripts/i18n.py extract`` reads every ``say`` and ``say_n`` call) and the parameters.
``render(gettext, ngettext)`` says it in another language; parameters that are Messages (or
``joined`` lists of them) are said in the same language. Pure Python: the web app passes its own
translation functions in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Gettext = Callable[[str], str]
Ngettext = Callable[[str, str, int], str]


def _same(text: str) -> str:
    return text


def _english_plural(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


class Message(str):
    """English text with its id and parameters (see the module docstring)."""

    code: str
    text: str
    params: Mapping[str, Any]
    plural: str | None
    # the parameter that chooses the plural form (not `count`: that would hide str.count)
    count_param: str | None

    def __new__(
        cls,
        code: str,
        text: str,
        params: Mapping[str, Any] | None = None,
        plural: str | None = None,
        count: str | None = None,
    ) -> Message:
        values = dict(params or {})
        english = _fill(text, values, plural, count, _same, _english_plural)
        self = super().__new__(cls, english)
        self.code, self.text, self.params = code, text, values
        self.plural, self.count_param = plural, count
        return self

    def render(self, gettext: Gettext = _same, ngettext: Ngettext = _english_plural) -> str:
        return _fill(self.text, self.params, self.plural, self.count_param, gettext, ngettext)


@dataclass(frozen=True)
class Joined:
    """Several messages said as one, in order, with ``separator`` between them."""

    parts: tuple[Message, ...]
    separator: str

    def render(self, gettext: Gettext = _same, ngettext: Ngettext = _english_plural) -> str:
        return self.separator.join(part.render(gettext, ngettext) for part in self.parts)

    def __str__(self) -> str:
        return self.render()


def _fill(
    text: str,
    params: Mapping[str, Any],
    plural: str | None,
    count: str | None,
    gettext: Gettext,
    ngettext: Ngettext,
) -> str:
    if plural is not None and count is not None:
        template = ngettext(text, plural, int(params[count]))
    else:
        template = gettext(text)
    values = {
        name: value.render(gettext, ngettext) if isinstance(value, Message | Joined) else value
        for name, value in params.items()
    }
    return template.format(**values)


def say(code: str, text: str, /, **params: Any) -> Message:
    """A message: ``say("meld.too-short", "a meld needs at least {least} tiles", least=3)``."""
    return Message(code, text, params)


def say_n(code: str, singular: str, plural: str, by: str, /, **params: Any) -> Message:
    """A message whose wording follows the number ``params[by]`` (1 tile, 2 tiles)."""
    return Message(code, singular, params, plural, by)


class _Together(Message):
    """Several messages as one: nothing of its own to translate, each part is said."""

    def render(self, gettext: Gettext = _same, ngettext: Ngettext = _english_plural) -> str:
        parts: Joined = self.params["parts"]
        return parts.render(gettext, ngettext)


def joined(parts: Sequence[Message], separator: str) -> Message:
    """One message made of several (an opening's problems, each said); its code is the parts'
    codes joined with "+"."""
    code = "+".join(part.code for part in parts)
    return _Together(code, "{parts}", {"parts": Joined(tuple(parts), separator)})


def names(items: Iterable[Any]) -> str:
    """Piece or player names as a list inside a message: "red-7, blue-7"."""
    return ", ".join(str(item) for item in items)
