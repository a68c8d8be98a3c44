"""The piece and game facts the page scripts need, from their one source: the vocabulary
(``meldcam.vocabulary``: colours, suits, ranks, domino sets), the scorer (``scorer.game.OUTCOMES``,
``scorer.remik``'s openings) and the words for them in the page's language.

Every page that loads ``webapp/static/pieces.js`` carries them as JSON in
``<script type="application/json" id="meldcam-facts">`` (``templates/_pieces_js.html``);
pieces.js reads them (``Meldcam.facts``), so no script keeps its own list of colours, suits,
ranks or outcomes.

The words are translated here, in the ``messages`` catalog: the vocabulary's words by the
catalogue extractor (``webapp.i18n_extract``), the outcomes' as written below.
"""

from __future__ import annotations

import json
from typing import Any

from flask_babel import gettext, lazy_gettext
from flask_babel.speaklater import LazyString
from markupsafe import Markup

from meldcam import vocabulary
from scorer import remik
from scorer.game import OUTCOMES

# How each way a hand ends (``scorer.game.OUTCOMES``) is shown: short, in the tally's rows
# (the game page), and in full, under the hand being entered (the end-of-hand page).
OUTCOME_WORDS: dict[str, tuple[LazyString, LazyString]] = {
    "out": (lazy_gettext("out"), lazy_gettext("went out")),
    "remik-from-hand": (lazy_gettext("z ręki"), lazy_gettext("remik z ręki (doubled)")),
    "stock-exhausted": (lazy_gettext("stock"), lazy_gettext("stock ran out")),
    "gin": (lazy_gettext("gin"), lazy_gettext("gin")),
    "big-gin": (lazy_gettext("big gin"), lazy_gettext("big gin")),
    "knock": (lazy_gettext("knock"), lazy_gettext("knock")),
    "undercut": (lazy_gettext("undercut"), lazy_gettext("undercut")),
    "tie": (lazy_gettext("tie"), lazy_gettext("tie")),
}
assert tuple(OUTCOME_WORDS) == OUTCOMES, "every outcome the scorer returns has its words"


def short_outcome_words() -> dict[str, LazyString]:
    """The outcomes as the tally shows them (the game page)."""
    return {code: short for code, (short, _full) in OUTCOME_WORDS.items()}


def vocabulary_facts() -> dict[str, Any]:
    """The piece names' parts, in the vocabulary's order: the same in every language."""
    return {
        "tiles": {
            "colours": list(vocabulary.TILE_COLOURS),
            "joker": vocabulary.TILE_JOKER,
            "max_number": vocabulary.MAX_TILE_NUMBER,
        },
        "dominoes": {
            "max_pip": vocabulary.MAX_PIP,
            "sets": {name: list(spec) for name, spec in vocabulary.DOMINO_SETS.items()},
        },
        "cards": {
            "ranks": list(vocabulary.CARD_RANKS),
            "suits": list(vocabulary.CARD_SUITS),
            "suit_symbols": dict(vocabulary.SUIT_SYMBOLS),
            "joker": vocabulary.CARD_JOKER,
        },
        "kinds": dict(vocabulary.RECOGNISER_KINDS),
        "other_letters": vocabulary.OTHER_LETTERS,
        "outcomes": list(OUTCOMES),
        "remik_openings": {"13": remik.BASIC_OPENING, "17": remik.EXTENDED_OPENING},
    }


def vocabulary_words() -> list[str]:
    """The vocabulary's words a page says (colours, suits, ranks by name, the joker): English,
    and the msgids of the ``messages`` catalog (``webapp.i18n_extract`` extracts them)."""
    return [
        *vocabulary.TILE_COLOURS,
        *vocabulary.SUIT_NAMES.values(),
        *vocabulary.RANK_NAMES.values(),
        vocabulary.TILE_JOKER,
    ]


def page_facts() -> dict[str, Any]:
    """``vocabulary_facts`` and the words for them in the page's language."""
    facts = vocabulary_facts()
    facts["words"] = {
        "colours": {colour: gettext(colour) for colour in vocabulary.TILE_COLOURS},
        "suits": {suit: gettext(name) for suit, name in vocabulary.SUIT_NAMES.items()},
        "ranks": {rank: gettext(name) for rank, name in vocabulary.RANK_NAMES.items()},
        "joker": gettext(vocabulary.TILE_JOKER),
        "outcomes": {code: str(full) for code, (_short, full) in OUTCOME_WORDS.items()},
    }
    return facts


def facts_json() -> Markup:
    """``page_facts`` as JSON for ``<script type="application/json" id="meldcam-facts">``."""
    text = json.dumps(page_facts(), ensure_ascii=False).replace("</", "<\\/")
    return Markup(text)
