"""A Babel extractor for scorer/games.py: its own messages, and the texts the scorer describes its
games with: titles, option help, presets and choices, and the vocabulary's words the pages say
(``webapp.facts.vocabulary_words``: colours, suits, ranks); data, not calls, so the Python
extractor alone does not see them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

from babel.messages.extract import extract_python


def catalogue_texts() -> list[tuple[str, str]]:
    """(text, where it comes from) for every game's title, option help, preset and choice, and
    every word of the vocabulary the pages say."""
    from scorer.games import GAME_MODULES, game_type

    found: list[tuple[str, str]] = []
    for game in GAME_MODULES:
        descriptor = game_type(game)
        found.append((descriptor.title, f"title of {game}"))
        for spec in descriptor.options:
            described = spec.to_json()
            if described.get("help"):
                found.append((described["help"], f"{game} option {spec.name}"))
            for choice in described.get("choices") or []:
                if isinstance(choice, str):
                    found.append((choice, f"{game} option {spec.name}: a choice"))
        for preset in descriptor.presets:
            found.append((preset, f"{game}: a preset's name"))
    from webapp.facts import vocabulary_words

    found += [(word, "a word of the vocabulary") for word in vocabulary_words()]
    return found


def extract_catalogue(
    fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, str, Any, list[str]]]:
    """The file's own messages (as the Python extractor reads them), then the catalogue's."""
    # babel 2.19 annotates extract_python with extract()'s tuples (lineno, message, comments,
    # context); it yields an extraction method's (lineno, funcname, message, comments), as its
    # docstring says and as babel's extract() reads them
    yield from extract_python(fileobj, keywords, comment_tags, options)  # type: ignore[misc]
    for text, where in catalogue_texts():
        yield 1, "gettext", text, [where]
