"""The players' languages: Polish, Croatian, Romanian and English (gettext through Flask-Babel).

The language is, first to last: ``?lang=`` in the address (then remembered in the ``lang``
cookie for a year), the ``lang`` cookie, the browser's ``Accept-Language``, English. Every page
carries a switcher whose links keep the page's address (``webapp/static/lang.js`` also carries
what was entered but not yet saved).

Catalogs live in ``webapp/translations/<lang>/LC_MESSAGES``: ``messages`` for the pages, the
API's own errors and the scorer's messages, ``js`` for the page scripts' texts (handed to them
as JSON in the page, ``js_catalog``). ``scripts/i18n.py`` extracts, updates and compiles them.

The JSON API keeps its English texts (``error``, ``reason``: scripts rely on them) and adds the
requested language's beside them (``error_text``, ``reason_text``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeAlias
from urllib.parse import urlencode

from babel.support import NullTranslations, Translations
from flask import Flask, Response, current_app, request
from flask_babel import Babel, force_locale, get_locale, get_translations, gettext, lazy_gettext
from flask_babel.speaklater import LazyString
from markupsafe import Markup

from scorer.games import GAME_MODULES, game_title
from scorer.messages import Message

__all__ = ["english", "error_json", "gettext", "init_i18n", "lazy_gettext", "localise"]

TRANSLATIONS = Path(__file__).parent / "translations"
# the languages offered, each named in itself; English is the source language
LANGUAGES: dict[str, str] = {"en": "English", "pl": "Polski", "hr": "Hrvatski", "ro": "Română"}
DEFAULT_LANGUAGE = "en"
COOKIE = "lang"
COOKIE_AGE_S = 365 * 24 * 3600
# plural index table handed to the page scripts: n < PLURAL_TABLE as it is, larger n as
# PLURAL_FOLD + n % PLURAL_FOLD (every rule of these languages depends on n % 100 only past 20)
PLURAL_TABLE = 200
PLURAL_FOLD = 100


def languages() -> dict[str, str]:
    """The languages this app offers (``LANGUAGES`` in the config may add a test's pseudo one)."""
    offered: dict[str, str] = current_app.config["LANGUAGES"]
    return offered


def _asked_language() -> str | None:
    """``?lang=`` when it names an offered language."""
    asked = request.args.get("lang", "")
    return asked if asked in languages() else None


def select_locale() -> str:
    asked = _asked_language()
    if asked:
        return asked
    remembered = request.cookies.get(COOKIE, "")
    if remembered in languages():
        return remembered
    return request.accept_languages.best_match(list(languages())) or DEFAULT_LANGUAGE


def current_language() -> str:
    return str(get_locale() or DEFAULT_LANGUAGE)


def _remember_language(response: Response) -> Response:
    """A language chosen in the address is kept for the next pages (a cookie, one year). The
    answer depends on the browser's language and that cookie: caches are told so (Vary)."""
    response.vary.add("Accept-Language")
    response.vary.add("Cookie")
    asked = _asked_language()
    if asked and request.cookies.get(COOKIE) != asked:
        response.set_cookie(
            COOKIE, asked, max_age=COOKIE_AGE_S, samesite="Lax", secure=request.is_secure
        )
    return response


def switcher_links() -> list[dict[str, Any]]:
    """This page's address in each language (its query kept, ``lang`` replaced)."""
    query = [(k, v) for k, v in request.args.items(multi=True) if k != "lang"]
    current = current_language()
    return [
        {
            "lang": code,
            "name": name,
            "href": f"{request.path}?{urlencode([*query, ('lang', code)])}",
            "current": code == current,
        }
        for code, name in languages().items()
    ]


# -- texts: English and the requested language ------------------------------------------------

Text: TypeAlias = str | LazyString | Message


def localise(text: Text | Exception) -> str:
    """``text`` in the requested language: a lazy gettext string, a scorer Message (or an
    exception carrying either, as ``message`` or its argument), or plain text (as it is)."""
    if isinstance(text, Exception):
        carried = [getattr(text, "message", None), *text.args[:1]]
        text = next((c for c in carried if isinstance(c, Message | LazyString)), str(text))
    if isinstance(text, Message):
        translations = get_translations()
        return text.render(translations.gettext, translations.ngettext)
    return str(text)


def english(text: Text | Exception) -> str:
    """``text`` in English, whatever the request asked for."""
    with force_locale(DEFAULT_LANGUAGE):
        return localise(text)


def error_json(text: Text | Exception, clip: Callable[[str], str]) -> dict[str, str]:
    """An API error: ``error`` in English (as always), ``error_text`` in the asked language."""
    return {"error": clip(english(text)), "error_text": clip(localise(text))}


# -- the page scripts' texts -------------------------------------------------------------------


def _js_translations(language: str) -> NullTranslations:
    """The language's ``js`` catalog; with none there, a NullTranslations (English as it is)."""
    cache: dict[str, NullTranslations] = current_app.extensions.setdefault("meldcam_js", {})
    if language not in cache:
        found = Translations.load(str(_translations_dir()), [language], domain="js")
        cache[language] = found
    return cache[language]


def _translations_dir() -> Path:
    return Path(current_app.config["I18N_DIRECTORY"])


def js_catalog() -> Markup:
    """The ``js`` catalog of the page's language as JSON (``Meldcam.t`` and ``Meldcam.tn`` read
    it): msgid -> text, or -> [plural forms], and the plural index of each count."""
    language = current_language()
    translations = _js_translations(language)
    messages: dict[str, Any] = {}
    for key, value in getattr(translations, "_catalog", {}).items():
        if not value:
            continue
        if isinstance(key, tuple):
            messages.setdefault(key[0], []).append((key[1], value))
        elif key:
            messages[key] = value
    for key, forms in messages.items():
        if isinstance(forms, list):
            messages[key] = [text for _, text in sorted(forms)]
    plural = getattr(translations, "plural", lambda n: int(n != 1))
    table = [int(plural(n)) for n in range(PLURAL_TABLE)]
    blob = {
        "lang": language,
        "messages": messages,
        "plural": table,
        "plural_fold": PLURAL_FOLD,
    }
    # safe inside <script type="application/json">: no "</" can close the element
    text = json.dumps(blob, ensure_ascii=False).replace("</", "<\\/")
    return Markup(text)


def init_i18n(app: Flask) -> None:
    """Babel on ``app`` (its settings, ``LANGUAGES`` and ``BABEL_*``: ``webapp.settings``)."""
    Babel(app, locale_selector=select_locale)
    app.after_request(_remember_language)

    @app.context_processor
    def _i18n_helpers() -> dict[str, Any]:
        return {
            "switcher_links": switcher_links,
            "current_language": current_language,
            "js_catalog": js_catalog,
        }


# -- the games as the players know them ------------------------------------------------------


def localised_title(game: str) -> str:
    """The game's name in the page's language ("Gin Rummy" is "Gin Remi" in Romanian)."""
    return gettext(game_title(game)) if game in GAME_MODULES else game


def localised_catalogue() -> list[dict[str, Any]]:
    """The catalogue of games for the pages: titles, option help and the presets' and
    choices' labels in the page's language (values and names stay as the scorer takes them)."""
    from webapp.matches import catalogue

    games = []
    for described in catalogue():
        game = dict(described)
        game["title"] = localised_title(described["game"])
        options = []
        for spec in described.get("options", []):
            spec = dict(spec)
            if spec.get("help"):
                spec["help"] = gettext(spec["help"])
            if spec.get("choices"):
                spec["choice_labels"] = {str(c): _label(c) for c in spec["choices"]}
            options.append(spec)
        game["options"] = options
        game["preset_labels"] = {name: _label(name) for name in described.get("presets", {})}
        games.append(game)
    return games


def _label(value: Any) -> str:
    """A choice or preset as shown: a word is translated (``double-nine``), a number is not."""
    return gettext(value) if isinstance(value, str) else str(value)
