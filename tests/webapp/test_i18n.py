"""The players' languages (issue 25): catalogs complete, a pseudo-translation that shows every text
that skipped the catalog, the language chosen and remembered, localised API answers."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

import pytest
from babel.messages.pofile import read_po
from flask import Flask
from flask.testing import FlaskClient

from webapp import catalogs, create_app
from webapp.i18n import LANGUAGES, PLURAL_FOLD, PLURAL_TABLE

PSEUDO = "eo"  # a locale Babel knows and meldcam does not offer: the pseudo-translation's
PLAYERS = ["Ana", "Ben"]
HAND = {"players": PLAYERS, "winner": "Ana", "racks": {"Ana": [], "Ben": ["red-5", "blue-10"]}}
# words a page may show untranslated: the brand, the languages' names (each in itself), players
ALLOWED_WORDS = {"meldcam", *LANGUAGES.values(), *map(str.upper, LANGUAGES), "Pseudo", "EO"}
ALLOWED_WORDS |= set(PLAYERS)


# ---- catalogs --------------------------------------------------------------------------------


def test_catalog_completeness_per_language():
    """Printed for the record (pytest -s); every offered language is complete."""
    found = catalogs.completeness()
    assert set(found) == {"pl", "hr", "ro"}
    for language, domains in found.items():
        done = sum(d for d, _ in domains.values())
        total = sum(t for _, t in domains.values())
        parts = ", ".join(f"{domain} {d}/{t}" for domain, (d, t) in domains.items())
        print(f"catalog {language}: {100 * done / total:.1f} % ({parts})")
    for language, domains in found.items():
        for domain, (done, total) in domains.items():
            assert done == total, f"{language} {domain}: {total - done} of {total} untranslated"


def _ids(path: Path) -> set[Any]:
    with path.open("rb") as handle:
        return {m.id for m in read_po(handle) if m.id}


def test_catalogs_hold_every_text_of_the_sources(tmp_path: Path):
    """A text added to a page, a script or the scorer is in every language's catalog (run
    ``python scripts/i18n.py extract`` and translate it)."""
    for domain, template in catalogs.extract_templates(tmp_path).items():
        wanted = _ids(template)
        for language in catalogs.languages():
            po = catalogs.TRANSLATIONS / language / "LC_MESSAGES" / f"{domain}.po"
            missing = wanted - _ids(po)
            assert not missing, f"{language} {domain} lacks {sorted(map(str, missing))[:5]}"


PLACEHOLDER = re.compile(r"%\(\w+\)s|\{\w+\}")


def test_translations_keep_the_placeholders():
    """A translation names the same values as its English text (or fewer, for a singular)."""
    for language in catalogs.languages():
        for domain in catalogs.DOMAINS:
            po = catalogs.TRANSLATIONS / language / "LC_MESSAGES" / f"{domain}.po"
            with po.open("rb") as handle:
                catalog = read_po(handle, locale=language)
            for message in catalog:
                if not message.id:
                    continue
                ids = message.id if isinstance(message.id, tuple) else (message.id,)
                strings = message.string if isinstance(message.string, tuple) else (message.string,)
                allowed = set().union(*(PLACEHOLDER.findall(i) for i in ids))
                for string in strings:
                    extra = set(PLACEHOLDER.findall(string)) - allowed
                    assert not extra, f"{language}: {string!r} names {extra}"
                if len(ids) == 1:
                    assert set(PLACEHOLDER.findall(strings[0])) == allowed, (language, ids[0])


def test_plurals_have_the_languages_forms():
    """Polish, Croatian and Romanian have three forms: 1 kamień, 2 kamienie, 5 kamieni."""
    app = create_app({"TESTING": True, "SECRET_KEY": "x"})
    with app.test_request_context("/?lang=pl"):
        from flask_babel import ngettext

        forms = [ngettext("%(num)s hand", "%(num)s hands", n) for n in (1, 2, 5, 22, 25)]
    assert forms == ["1 rozdanie", "2 rozdania", "5 rozdań", "22 rozdania", "25 rozdań"]
    for language in ("hr", "ro"):
        with app.test_request_context(f"/?lang={language}"):
            from flask_babel import ngettext

            shown = {ngettext("%(num)s hand", "%(num)s hands", n) for n in (1, 2, 5, 21, 25)}
        assert len({s.split(" ", 1)[1] for s in shown}) == 3, shown


def test_the_scripts_plural_table_folds_safely():
    """The page scripts get each language's plural rule as a table of its first values; past it,
    n is folded onto PLURAL_FOLD + n % PLURAL_FOLD, which must give the same form."""
    from babel.support import Translations

    for language in catalogs.languages():
        rule = Translations.load(str(catalogs.TRANSLATIONS), [language], domain="js").plural
        for n in range(PLURAL_TABLE, 5000):
            assert rule(n) == rule(PLURAL_FOLD + n % PLURAL_FOLD), (language, n)


# ---- the language chosen ---------------------------------------------------------------------


def test_language_follows_the_browser_the_address_and_is_remembered(client: FlaskClient):
    page = client.get("/", headers={"Accept-Language": "hr-HR,hr;q=0.9,en;q=0.5"})
    assert '<html lang="hr">' in page.get_data(as_text=True)
    assert "Nova igra" in page.get_data(as_text=True)
    page = client.get("/?lang=ro", headers={"Accept-Language": "hr"})
    assert "Joc nou" in page.get_data(as_text=True)
    assert "lang=ro" in page.headers["Set-Cookie"]
    page = client.get("/check?game=gin", headers={"Accept-Language": "hr"})  # the cookie wins
    text = page.get_data(as_text=True)
    assert '<html lang="ro">' in text and "Gin Remi" in text
    # the switcher keeps the page's address and query
    assert 'href="/check?game=gin&amp;lang=pl"' in text
    assert client.get("/?lang=xx").status_code == 200  # an unknown language is ignored
    assert {"Accept-Language", "Cookie"} <= set(page.vary)  # caches keep each language apart


def test_api_keeps_english_and_adds_the_asked_language(client: FlaskClient):
    answer = client.post(
        "/api/check?lang=pl", json={"game": "rummikub", "melds": [["red-1", "red-2"]]}
    ).json
    meld = answer["melds"][0]
    assert meld["reason"] == "a meld needs at least 3 tiles; this one has 2"
    assert meld["reason_text"] != meld["reason"] and "kost" in meld["reason_text"]
    error = client.get("/api/games/nope", headers={"Accept-Language": "pl"}).json
    assert error["error"] == "no game with this link: check the address"
    assert error["error_text"] == "nie ma gry pod tym linkiem: sprawdź adres"


def test_csv_header_in_the_asked_language_stays_machine_readable(client: FlaskClient, make_game):
    game = make_game(players=PLAYERS)
    client.post(
        f"/api/games/{game['id']}/hands", json=HAND, headers={"X-Edit-Token": game["edit_token"]}
    )
    response = client.get(f"/api/games/{game['id']}/export.csv?lang=pl")
    rows = list(csv.reader(io.StringIO(response.data.decode("utf-8"))))
    assert rows[0] == ["rozdanie", "wynik", "zwycięzca", "Ana", "Ben", "Ana razem", "Ben razem"]
    assert rows[1][:3] == ["1", "out", "Ana"] and rows[1][3:] == ["15", "-15", "15", "-15"]


# ---- the pseudo-translation ------------------------------------------------------------------


class _Visible(HTMLParser):
    """The text a page shows (script and style left out) and its attributes people read."""

    READ: ClassVar[set[str]] = {"title", "aria-label", "placeholder", "alt"}

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.attributes: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in {"script", "style"}:
            self._skip += 1
        self.attributes += [v for k, v in attrs if k in self.READ and v]

    def handle_endtag(self, tag: str) -> None:
        if tag in {"script", "style"}:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.text.append(data)


def untranslated(text: str) -> str:
    """What of ``text`` skipped the catalog (see ``catalogs.outside_catalog``)."""
    return catalogs.outside_catalog(text, ALLOWED_WORDS)


def check_page(html: str, where: str) -> None:
    parser = _Visible()
    parser.feed(html)
    left = untranslated(" ".join(parser.text))
    assert not left, f"{where}: text outside the catalog: {left!r}"
    for value in parser.attributes:
        assert not untranslated(value), f"{where}: attribute {value!r} outside the catalog"


@pytest.fixture(scope="module")
def pseudo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pseudo")
    catalogs.pseudo_catalogs(out, PSEUDO)
    return out


@pytest.fixture
def pseudo_app(tmp_path: Path, pseudo_dir: Path) -> Flask:
    return create_app(
        {
            "INSTANCE_PATH": str(tmp_path / "instance"),
            "TESTING": True,
            "BABEL_TRANSLATION_DIRECTORIES": str(pseudo_dir),
            "I18N_DIRECTORY": str(pseudo_dir),
            "LANGUAGES": {**LANGUAGES, PSEUDO: "Pseudo"},
        }
    )


def test_every_page_in_the_pseudo_translation_is_all_catalog(pseudo_app: Flask):
    client = pseudo_app.test_client()
    client.get(f"/?lang={PSEUDO}")  # remembered from here on
    pages: dict[str, str] = {"start page": "/"}
    for game in ("rummikub", "remik", "remino", "domino-gin", "gin"):
        pages[f"check {game}"] = f"/check?game={game}"
    token = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/").text)
    assert token
    form = {"csrf_token": token.group(1), "game": "remik", "player-0": "Ana", "player-1": "Ben"}
    form["opt-remik-hands"] = "2"
    created = client.post("/games", data=form)
    game_id = created.headers["Location"].rsplit("/", 1)[1]
    pages["new game, no hands"] = f"/g/{game_id}"
    pages["end of hand"] = f"/g/{game_id}/hand"
    pages["check in a game"] = f"/g/{game_id}/check"
    hand = {**HAND, "from_hand": False}
    saved = client.post(
        f"/g/{game_id}/hands", data={"csrf_token": token.group(1), "hand": json.dumps(hand)}
    )
    assert saved.status_code == 302
    pages["game with a hand"] = f"/g/{game_id}"
    pages["edit hand"] = f"/g/{game_id}/hands/1/edit"
    gin = client.post("/api/games", json={"game": "domino-gin", "players": PLAYERS}).json
    client.get(f"/g/{gin['id']}/edit/{gin['edit_token']}")
    pages["domino gin, end of hand"] = f"/g/{gin['id']}/hand"
    pages["domino gin"] = f"/g/{gin['id']}"
    viewer = pseudo_app.test_client()
    viewer.get(f"/?lang={PSEUDO}")
    for name, path in pages.items():
        response = client.get(path)
        assert response.status_code == 200, (name, response.status_code)
        check_page(response.text, name)
    check_page(viewer.get(f"/g/{game_id}").text, "game as a viewer")
    # a player's own phone, joined by its seat link (issue 27)
    seat_links = client.get(
        f"/api/games/{gin['id']}/seats", headers={"X-Edit-Token": gin["edit_token"]}
    ).json
    seated = pseudo_app.test_client()
    seated.get(f"/?lang={PSEUDO}")
    joined = seated.get(urlsplit(seat_links[1]["link"]).path)
    assert joined.status_code == 302, joined.status_code
    check_page(seated.get(f"/g/{gin['id']}").text, "a seated player's phone")
    check_page(seated.get(f"/g/{gin['id']}/join/not-a-seat").text, "a wrong seat link")
    # a finished match, and the error pages
    client.post(
        f"/g/{game_id}/hands", data={"csrf_token": token.group(1), "hand": json.dumps(hand)}
    )
    check_page(client.get(f"/g/{game_id}").text, "finished match")
    errors = {
        "404": viewer.get("/g/nope"),
        "404 page": viewer.get("/nothing/here"),
        "403": viewer.get(f"/g/{game_id}/hand"),
        "400 form": client.post("/games", data={**form, "player-1": ""}),
        "400 expired form": client.post("/games", data={"game": "remik"}),
        "400 bad hand": client.post(
            f"/g/{gin['id']}/hands", data={"csrf_token": token.group(1), "hand": "{}"}
        ),
        "400 bad option": viewer.get("/check?game=remino&set=double-seven"),
        "405": viewer.post("/check"),
    }
    for name, response in errors.items():
        assert 400 <= response.status_code < 500, (name, response.status_code)
        check_page(response.text, name)


def test_every_api_error_in_the_pseudo_translation_is_all_catalog(pseudo_app: Flask):
    client = pseudo_app.test_client()
    game = client.post("/api/games", json={"game": "rummikub", "players": PLAYERS}).json
    edit = {"X-Edit-Token": game["edit_token"]}
    gid = game["id"]
    asked = {"lang": PSEUDO}
    post, get = client.post, client.get
    calls: dict[str, Callable[[], Any]] = {
        "not json": lambda: post("/api/check", query_string=asked, data="x"),
        "bad json": lambda: post(
            "/api/check", query_string=asked, data="{", content_type="application/json"
        ),
        "missing field": lambda: post("/api/check", query_string=asked, json={"melds": []}),
        "unknown game": lambda: post(
            "/api/check", query_string=asked, json={"game": "nope", "melds": [["red-1"]]}
        ),
        "no melds": lambda: post(
            "/api/check", query_string=asked, json={"game": "rummikub", "melds": []}
        ),
        "bad piece": lambda: post(
            "/api/check", query_string=asked, json={"game": "rummikub", "melds": [["red-99"]]}
        ),
        "not a card": lambda: post(
            "/api/table", query_string=asked, json={"game": "gin", "pieces": ["red-1"]}
        ),
        "melds not a list": lambda: post(
            "/api/check", query_string=asked, json={"game": "rummikub", "melds": 3}
        ),
        "bad option": lambda: post(
            "/api/pieces", query_string=asked, json={"game": "remik", "options": {"numbers": 15}}
        ),
        "unknown option": lambda: post(
            "/api/pieces", query_string=asked, json={"game": "remik", "options": {"x": 1}}
        ),
        "too few players": lambda: post(
            "/api/games", query_string=asked, json={"game": "gin", "players": ["Ana"]}
        ),
        "same players": lambda: post(
            "/api/games", query_string=asked, json={"game": "gin", "players": ["Ana", "ana"]}
        ),
        "no edit token": lambda: post(f"/api/games/{gid}/hands", query_string=asked, json=HAND),
        "unknown winner": lambda: post(
            f"/api/games/{gid}/hands", query_string=asked, json={"winner": "Zed"}, headers=edit
        ),
        "empty rack": lambda: post(
            f"/api/games/{gid}/hands",
            query_string=asked,
            json={**HAND, "racks": {"Ana": [], "Ben": []}},
            headers=edit,
        ),
        "nothing to undo": lambda: client.delete(
            f"/api/games/{gid}/hands/last", query_string=asked, headers=edit
        ),
        "no game": lambda: get("/api/games/nope", query_string=asked),
        "no hand": lambda: client.put(
            f"/api/games/{gid}/hands/7", query_string=asked, json=HAND, headers=edit
        ),
        "no photo": lambda: get("/api/photos/nope", query_string=asked),
        "bad kind": lambda: post("/api/recognise", query_string=asked, data={"kind": "marbles"}),
        "no photo sent": lambda: post("/api/recognise", query_string=asked, data={"kind": "tiles"}),
        "not a photo": lambda: post(
            "/api/recognise",
            query_string=asked,
            data={"kind": "tiles", "photo": (io.BytesIO(b"hello"), "x.jpg")},
        ),
        "bad score": lambda: post(
            "/api/score", query_string=asked, json={"game": "gin", "hand": {"knocker": "Ana"}}
        ),
        "unknown route": lambda: get("/api/nothing", query_string=asked),
        "wrong method": lambda: get("/api/check", query_string=asked),
    }
    for name, call in calls.items():
        response = call()
        body = response.json
        assert 400 <= response.status_code < 500, (name, response.status_code, body)
        assert body["error_text"].startswith(catalogs.PSEUDO_OPEN), (name, body)
        assert not untranslated(_unquoted(body["error_text"])), (name, body["error_text"])
        assert catalogs.PSEUDO_OPEN not in body["error"], (name, body)  # English stays English


def _unquoted(text: str) -> str:
    """An error message without the parts it quotes from the request."""
    return re.sub(r"'[^']*'|\"[^\"]*\"", " ", text)


def test_verdicts_in_the_pseudo_translation(pseudo_app: Flask):
    client = pseudo_app.test_client()
    answers = [
        client.post(
            "/api/check",
            json={"game": g, "melds": [m], "opening": True},
            query_string={"lang": PSEUDO},
        ).json
        for g, m in [
            ("rummikub", ["red-1", "blue-2", "red-3"]),
            ("remik", ["red-1", "red-2", "red-3"]),  # a legal run, too small to open
            ("remino", ["3-8", "4-8", "6-8"]),
            ("domino-gin", ["3-3", "3-4"]),
            ("gin", ["AH", "2H", "4H"]),
        ]
    ]
    for answer in answers:
        for meld in answer["melds"]:
            if meld["valid"]:
                assert "reason_text" not in meld, meld
                continue
            assert meld["reason_text"].startswith(catalogs.PSEUDO_OPEN), meld
            assert not untranslated(meld["reason_text"]), meld
            assert meld["reason_id"] and catalogs.PSEUDO_OPEN not in meld["reason"], meld
        if answer["opening"] and answer["opening"].get("reason"):
            assert answer["opening"]["reason_text"].startswith(catalogs.PSEUDO_OPEN), answer
    table = client.post(
        "/api/table",
        json={"game": "rummikub", "pieces": ["red-1", "blue-9"]},
        query_string={"lang": PSEUDO},
    ).json
    assert table["reason_text"].startswith(catalogs.PSEUDO_OPEN), table
