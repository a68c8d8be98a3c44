"""The hand flow and the dispute flow in Polish on a phone (issue 25), in Debian's chromium through
Playwright: a 390 x 844 touch screen whose browser asks for Polish; the language switcher keeps
what was entered. Screenshots go to ``test-output/webapp/`` as ``i18n-*.png``.

The recogniser is a stand-in (the pages are under test, not the reader): it reads red 5, red 6
and red 7, the last one unsure.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_pages import (
    BROWSER_MARKS,
    PHONE_CONTEXT,
    call,
    expect,
    judged_after,
    plain_photos,
    serving,
    stand_in_answer,
    upload,
)
from browser_pages import shot as shoot

from webapp import catalogs
from webapp.i18n import LANGUAGES

PSEUDO = "eo"
# what the scripts may write outside the catalog: the brand, the languages' names, the players
ALLOWED = {"meldcam", *LANGUAGES, *map(str.upper, LANGUAGES), *LANGUAGES.values(), "Pseudo"}
ALLOWED |= {"EO", "Ania", "Bartek"}

pytestmark = BROWSER_MARKS


class StandIn:
    """Reads red 5, red 6 (sure) and red 7 (not sure) in one meld, whatever the photo."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def recognise(
        self,
        image: bytes,
        channels: str = "rgb",
        set_name: str | None = None,
        untold: str | None = None,
    ) -> dict[str, Any]:
        labels = [("red-5", True), ("red-6", True), ("red-7", False)]
        return stand_in_answer(self.kind, labels, [["red-1", 0.1]])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from webapp import create_app

    catalogs.compile_catalogs()  # the .mo files, as scripts/setup.sh builds them
    instance = tmp_path_factory.mktemp("instance")
    app = create_app({"INSTANCE_PATH": str(instance), "RECOGNISER_FACTORY": StandIn})
    with serving(app) as address:
        yield address


@pytest.fixture(scope="module")
def pseudo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app with a pseudo-translation (every catalog text between ⟦ ⟧) as language "eo"."""
    from webapp import create_app

    pseudo = tmp_path_factory.mktemp("pseudo")
    catalogs.pseudo_catalogs(pseudo, PSEUDO)
    app = create_app(
        {
            "INSTANCE_PATH": str(tmp_path_factory.mktemp("instance")),
            "RECOGNISER_FACTORY": StandIn,
            "BABEL_TRANSLATION_DIRECTORIES": str(pseudo),
            "I18N_DIRECTORY": str(pseudo),
            "LANGUAGES": {**LANGUAGES, PSEUDO: "Pseudo"},
        }
    )
    with serving(app) as address:
        yield address


@pytest.fixture(scope="module")
def photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return plain_photos(tmp_path_factory.mktemp("photos"), [400], "rack")[400]


@pytest.fixture
def phone(new_page: Any) -> Any:
    """A Polish phone: 390 x 844, touch, the browser asking for pl-PL; any script error fails."""
    return new_page(locale="pl-PL", **PHONE_CONTEXT)


def shot(page: Any, name: str) -> None:
    shoot(page, f"i18n-{name}")


def call_with(server: str, path: str, edit_token: str) -> Any:
    """GET ``path`` with the game's edit token (the host's API)."""
    request = urllib.request.Request(server + path, headers={"X-Edit-Token": edit_token})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def switch_language(page: Any, name: str) -> None:
    page.wait_for_load_state("load")
    with page.expect_navigation():
        page.locator("#languages").get_by_role("link", name=name, exact=True).click()
    page.wait_for_load_state("load")


def test_hand_flow_in_polish_and_the_switcher_keeps_the_hand(
    phone: Any, server: str, photo: Path
) -> None:
    page = phone
    game = call(server, "POST", "/api/games", {"game": "remik", "players": ["Ania", "Bartek"]})
    page.goto(game["links"]["edit"])
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    expect(page.locator("h1")).to_have_text("Remik liczbowy")
    expect(page.locator("#next")).to_have_text("Następne rozdanie: rozdaje Ania.")
    expect(page.locator("#tally-title")).to_have_text("Wyniki")
    shot(page, "pl-1-game")
    page.click("#end-hand")
    expect(page.locator("h1")).to_have_text("Koniec rozdania 1: Remik liczbowy")
    page.select_option("#winner", "Ania")
    bartek = page.locator(".player-board[data-player='Bartek']")
    expect(page.locator("#preview-waiting")).to_contain_text("Czekam na kostki gracza Bartek")
    upload(page, bartek, photo)
    expect(bartek.locator(".status")).to_contain_text(re.compile(r"Odczytano 3 kostki w \d+,\d s"))
    expect(bartek.locator(".to-confirm-text")).to_contain_text(
        "1 kostka jest oznaczona ?: czytnik nie jest jej pewien"
    )
    expect(page.locator("#preview-waiting")).to_contain_text("Przed zapisaniem sprawdź kostki")
    expect(page.locator("#confirm")).to_be_disabled()
    shot(page, "pl-2-hand-unsure")
    # the language switcher: the same hand, in Croatian, then in Polish again
    switch_language(page, "Hrvatski")
    expect(page.locator("html")).to_have_attribute("lang", "hr")
    expect(page.locator("h1")).to_have_text("Kraj runde 1: Remik liczbowy")
    expect(page.locator("#winner")).to_have_value("Ania")
    chips = bartek.locator(".meld .chip[data-piece]")
    expect(chips).to_have_count(3)
    expect(bartek.locator(".to-confirm-text")).to_contain_text("1 pločica označena je s ?")
    shot(page, "hr-2-hand-kept")
    switch_language(page, "Polski")
    expect(page.locator("#winner")).to_have_value("Ania")
    expect(chips).to_have_count(3)
    bartek.locator(".confirm-all").click()
    expect(page.locator("#confirm")).to_be_enabled()
    result = page.locator("#preview-result")
    expect(result).to_contain_text("wyłożył(a) wszystko: rozdanie wygrywa Ania")
    expect(result).to_contain_text("na półeczce 18")
    shot(page, "pl-3-hand-scored")
    page.click("#confirm")
    expect(page.locator("#tally tbody tr")).to_have_count(1)
    expect(page.locator("#tally tbody tr th .outcome")).to_have_text("remik")
    expect(page.locator("#chart")).to_have_attribute(
        "aria-label", "sumy po 1 rozdaniu: Ania 18, Bartek -18"
    )
    expect(page.locator(".legend")).to_contain_text("Duże: suma narastająco")
    shot(page, "pl-4-tally")


def test_dispute_flow_in_polish_and_the_switcher_keeps_the_game_and_melds(
    phone: Any, server: str, photo: Path
) -> None:
    page = phone
    page.goto(server + "/check?game=remik")
    expect(page.locator("h1")).to_contain_text("Sprawdź układ: Remik liczbowy")
    board = page.locator("#board")
    upload(page, board, photo)
    verdict = page.locator("#table-verdict")
    expect(verdict).to_contain_text("Wszystkie 3 kostki można wyłożyć")
    legal = "✓ poprawny układ: seria, wartość 18"
    expect(board.locator(".meld-verdict").first).to_contain_text(legal)
    # correct red 7 to blue 7: the meld breaks, and the scorer says why, in Polish
    board.locator(".meld .chip[data-index='2']").click()
    title = "Czy to czerwona 7? Czytnik nie jest pewien."  # the piece first (issue 71)
    expect(page.locator("#picker-title")).to_contain_text(title)
    before = page.evaluate("document.body.dataset.judged || null")
    page.locator("#picker-pieces").get_by_role("button", name="niebieska 7", exact=True).click()
    judged_after(page, before)
    reason = board.locator(".meld-verdict").first
    expect(reason).to_contain_text("✗")
    expect(reason).not_to_contain_text("runs need")
    expect(verdict).to_contain_text("Tych 3 kostek nie da się wyłożyć")
    shot(page, "pl-5-dispute")
    # another game, then another language: the game (in the address) and the melds stay
    page.select_option("#game-select", "rummikub")
    expect(page.locator("#game-title")).to_have_text("Rummikub")
    page.wait_for_url("**/check?game=rummikub")
    switch_language(page, "Română")
    expect(page.locator("html")).to_have_attribute("lang", "ro")
    expect(page.locator("#game-select")).to_have_value("rummikub")
    expect(page.locator("h1")).to_contain_text("Verifică o formație: Rummikub")
    expect(board.locator(".meld .chip[data-piece]")).to_have_count(3)
    expect(board.locator(".meld .chip[data-piece='blue-7']")).to_have_count(1)
    shot(page, "ro-5-dispute-kept")
    switch_language(page, "Polski")
    expect(board.locator(".meld .chip[data-piece]")).to_have_count(3)
    expect(page.locator("#game-select")).to_have_value("rummikub")
    shot(page, "pl-6-dispute-back")


SHOWN = """() => {
  const texts = [document.body.innerText];
  for (const n of document.querySelectorAll('[aria-label], [title], [alt], [placeholder]')) {
    for (const a of ['aria-label', 'title', 'alt', 'placeholder']) {
      if (n.getAttribute(a)) texts.push(n.getAttribute(a));
    }
  }
  return texts.join(' \\n ');
}"""


def test_what_the_scripts_write_is_all_catalog(
    phone: Any, new_page: Any, pseudo_server: str, photo: Path
) -> None:
    """Under the pseudo-translation, the texts the page scripts write (status lines, verdicts,
    the picker, the preview of a hand, labels) are all from the catalog too."""
    page = phone
    page.goto(pseudo_server + f"/check?game=remik&lang={PSEUDO}")
    board = page.locator("#board")
    upload(page, board, photo)
    board.locator(".meld .chip[data-index='2']").click()
    expect(page.locator("#picker")).to_be_visible()
    left = catalogs.outside_catalog(page.evaluate(SHOWN), ALLOWED)
    assert not left, f"the check page's picker wrote outside the catalog: {left!r}"
    before = page.evaluate("document.body.dataset.judged || null")
    page.locator("#picker-pieces [data-piece='blue-7']").click()
    judged_after(page, before)
    page.locator("#opening").check()
    page.wait_for_function("() => !document.getElementById('opening-verdict').hidden")
    left = catalogs.outside_catalog(page.evaluate(SHOWN), ALLOWED)
    assert not left, f"the check page wrote outside the catalog: {left!r}"
    shot(page, "pseudo-check")
    game = call(
        pseudo_server, "POST", "/api/games", {"game": "remik", "players": ["Ania", "Bartek"]}
    )
    page.goto(game["links"]["edit"])
    page.goto(pseudo_server + f"/g/{game['id']}/hand")
    page.select_option("#winner", "Ania")
    upload(page, page.locator(".player-board[data-player='Bartek']"), photo)
    expect(page.locator("#preview-result .outcome")).to_be_visible()
    left = catalogs.outside_catalog(page.evaluate(SHOWN), ALLOWED)
    assert not left, f"the end-of-hand page wrote outside the catalog: {left!r}"
    shot(page, "pseudo-hand")
    # a seated player's own phone (issue 27): photograph the rack, send it
    seats = call_with(pseudo_server, f"/api/games/{game['id']}/seats", game["edit_token"])
    own = new_page(**PHONE_CONTEXT)
    own.goto(seats[1]["link"] + f"?lang={PSEUDO}")
    own.goto(pseudo_server + f"/g/{game['id']}?lang={PSEUDO}")
    rack = own.locator("#my-rack")
    own.wait_for_load_state("load")
    with own.expect_response(lambda r: r.url.endswith("/api/recognise")):
        rack.locator(".photo-file").set_input_files(str(photo))
    expect(rack.locator(".chip[data-piece]")).to_have_count(3)
    rack.locator(".confirm-all").click()
    own.click("#send-rack")
    expect(own.locator("#rack-sent")).not_to_be_empty()
    left = catalogs.outside_catalog(own.evaluate(SHOWN), ALLOWED)
    shot(own, "pseudo-seat")
    assert not left, f"a seated phone's page wrote outside the catalog: {left!r}"
