"""One source for the piece and game facts (issue 69): the page scripts get the vocabulary and the
outcome words from the server (``webapp.facts``, as ``#meldcam-facts`` in every page that loads
pieces.js), the web app asks the scorer for the picker order, the catalogue and the set a
game's photos are read for, and no script keeps a list of its own."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from meldcam import vocabulary
from scorer import pieces
from scorer.game import OUTCOMES
from scorer.games import GAME_MODULES, describe_games, game_type, make_rules, photo_set
from webapp import facts, matches, pages, photos

STATIC = Path(__file__).resolve().parents[2] / "webapp" / "static"
WEBAPP = STATIC.parent


def page_facts(client: FlaskClient, path: str) -> dict:
    html = client.get(path).get_data(as_text=True)
    found = re.search(r'<script type="application/json" id="meldcam-facts">(.*?)</script>', html)
    assert found, f"{path} carries no facts"
    return json.loads(found.group(1))


def test_the_facts_go_with_the_pieces_script(client: FlaskClient):
    for path in ("/check?game=rummikub", "/"):
        html = client.get(path).get_data(as_text=True)
        assert ('id="meldcam-facts"' in html) == ("/static/pieces.js" in html), path
    assert 'id="meldcam-facts"' not in client.get("/").get_data(as_text=True)


@pytest.mark.parametrize("path", ["/check?game=gin", "/check?game=remino"])
def test_the_pages_carry_the_one_vocabulary(client: FlaskClient, path: str):
    got = page_facts(client, path)
    assert got["tiles"]["colours"] == list(vocabulary.TILE_COLOURS)
    assert got["tiles"]["joker"] == vocabulary.TILE_JOKER
    assert got["cards"]["ranks"] == list(vocabulary.CARD_RANKS)
    assert got["cards"]["suits"] == list(vocabulary.CARD_SUITS)
    assert got["cards"]["suit_symbols"] == vocabulary.SUIT_SYMBOLS
    assert got["cards"]["joker"] == vocabulary.CARD_JOKER
    assert got["dominoes"]["sets"] == {k: list(v) for k, v in vocabulary.DOMINO_SETS.items()}
    assert got["kinds"] == vocabulary.RECOGNISER_KINDS
    assert got["outcomes"] == list(OUTCOMES)
    assert got["other_letters"] == vocabulary.OTHER_LETTERS
    words = got.pop("words")
    assert got == json.loads(json.dumps(facts.vocabulary_facts()))
    assert list(words["colours"]) == list(vocabulary.TILE_COLOURS)
    assert list(words["suits"]) == list(vocabulary.CARD_SUITS)
    assert list(words["ranks"]) == list(vocabulary.RANK_NAMES)
    assert list(words["outcomes"]) == list(OUTCOMES)


def test_the_words_are_in_the_pages_language(client: FlaskClient):
    words = page_facts(client, "/check?lang=pl")["words"]
    assert words["colours"]["red"] == "czerwona"
    assert words["suits"]["H"] == "kier"
    assert words["ranks"]["Q"] == "dama"
    assert words["outcomes"]["stock-exhausted"] == "skończył się talon"
    english = page_facts(client, "/check?lang=en")["words"]
    assert english["colours"]["red"] == "red" and english["ranks"]["K"] == "king"
    assert english["outcomes"]["out"] == "went out"


def test_every_outcome_has_its_words_once():
    assert tuple(facts.OUTCOME_WORDS) == OUTCOMES
    assert {code: str(word) for code, word in pages.OUTCOME_WORDS.items()} == {
        code: str(short) for code, (short, _full) in facts.OUTCOME_WORDS.items()
    }


# words of the vocabulary that a script must not spell out as a list: the colours, the suits'
# letters, symbols and names, the ranks said by name, the outcomes' codes
def _quoted_or_listed(word: str) -> re.Pattern[str]:
    return re.compile(rf"[\"'`|(]{re.escape(word)}[\"'`|)\-]")


SPELLED = [
    *vocabulary.TILE_COLOURS,
    *vocabulary.SUIT_NAMES.values(),
    *vocabulary.RANK_NAMES.values(),
    *(code for code in OUTCOMES if "-" in code or code == "out"),
]


@pytest.mark.parametrize("script", sorted(p.name for p in STATIC.glob("*.js")))
def test_no_script_keeps_its_own_list_of_pieces(script: str):
    text = (STATIC / script).read_text(encoding="utf-8")
    code = "\n".join(
        line.split("//")[0]
        for line in text.splitlines()
        if not line.lstrip().startswith(("*", "/*", "/**"))
    )
    for word in SPELLED:
        assert not _quoted_or_listed(word).search(code), f"{script} spells out {word!r}"
    assert not re.search(r"\[CDHS\]|CDHS|AJQK|\[2-9", code), f"{script} lists suits or ranks"
    for symbol in vocabulary.SUIT_SYMBOLS.values():
        assert symbol not in code, f"{script} draws {symbol} itself"
    assert f'"{vocabulary.CARD_JOKER}"' not in code and '"joker"' not in code


def test_the_web_app_asks_the_scorer_for_picker_order_and_catalogue():
    assert matches.catalogue() == describe_games(pickers=True)
    for described in matches.catalogue():
        spec = game_type(described["game"])
        assert described["players"] == list(spec.players)
        assert described["hand_style"] == spec.hand_style
        assert all({"minimum", "maximum"} <= set(option) for option in described["options"])
    rules = make_rules("rummikub")
    names = matches.piece_names(rules)
    assert names == [p.name for p in sorted(rules.universe, key=pieces.piece_order)]
    assert names[:2] == ["red-1", "red-2"] and names[-1] == "joker"
    assert matches.piece_names(make_rules("gin"))[:2] == ["AC", "2C"]
    source = (WEBAPP / "matches.py").read_text(encoding="utf-8")
    assert "_piece_order" not in source and "def describe_game" not in source


def _old_set_name(kind: str, rules) -> str | None:
    """How the web app read a game's set before the rules told it: the domino set by its top
    pip, the deck by Gin's ``index_letters`` option."""
    if kind == "dominoes":
        tops = [p.high for p in rules.universe if isinstance(p, pieces.Domino)]
        by_top = {top: name for name, top in vocabulary.DOMINO_SET_TOPS.items()}
        return by_top.get(max(tops)) if tops else None
    if kind == "cards":
        letters = str(rules.options.get("index_letters"))
        if letters == vocabulary.LETTERS_FROM_PHOTO:
            return vocabulary.AUTO_SET
        return vocabulary.LETTER_SETS_BY_PRINT.get(letters)
    return None


def _every_rules():
    for game in GAME_MODULES:
        spec = game_type(game)
        for preset in spec.presets:
            yield make_rules(game, preset=preset)
        for option in spec.options:
            for choice in option.choices or ():
                yield make_rules(game, {option.name: choice})


def test_the_rules_tell_which_set_a_photo_is_read_for():
    """The same sets as before, for every preset and every choice of every game, photos of
    every kind; photos.py names no game's option and reads no set from pips."""
    for rules in _every_rules():
        kind = vocabulary.RECOGNISER_KINDS[game_type(rules.game).piece_kind]
        assert photos.set_name_of(kind, rules) == photo_set(rules)
        for asked in vocabulary.KINDS:
            assert photos.set_name_of(asked, rules) == _old_set_name(asked, rules)
    assert photo_set(make_rules("remino", {"set": "2x-double-six"})) == "double-six"
    assert photo_set(make_rules("gin", {"index_letters": "WDKA"})) == "pl"
    source = (WEBAPP / "photos.py").read_text(encoding="utf-8")
    assert "index_letters" not in source and "DOMINO_SET_TOPS" not in source
    assert "piece.high" not in source and "import Domino" not in source
