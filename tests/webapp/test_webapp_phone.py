"""The scorekeeper's phone (issue 22), in Debian's real chromium through Playwright: a 390 x 844
touch screen, one test (or more) per numbered item of the issue, and an axe-core scan of every
page (no serious or critical violation).

These tests are about the pages, not the reader: the recogniser is a stand-in whose answer
depends on the photo's width (so a test chooses what is read, sure flags included); the real
readers are driven by ``test_webapp_e2e.py``. Screenshots go to ``test-output/webapp/`` as
``phone-*.png``.
"""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_pages import (
    BROWSER_MARKS,
    PHONE_CONTEXT,
    axe_problems,
    call,
    expect,
    judged_after,
    plain_photos,
    serving,
    stand_in_answer,
    upload,
)
from browser_pages import shot as shoot

pytestmark = BROWSER_MARKS

# what the stand-in reads, by the photo's width: (label, sure) in a row, one meld
READINGS: dict[tuple[str, int], list[tuple[str, bool]]] = {
    ("tiles", 400): [("red-5", True), ("red-6", True), ("red-7", False)],
    ("tiles", 420): [("blue-9", True), ("blue-10", True)],
    ("tiles", 440): [("red-5", True), ("red-6", True), ("red-7", True)],
    ("cards", 400): [("5H", True), ("6H", True), ("7H", True)],
    ("dominoes", 400): [("3-8", True), ("4-8", True), ("10-8", True)],
}


class StandIn:
    """Reads what READINGS says for the photo's width; alternatives: red-1 (tiles)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def recognise(
        self,
        image: bytes,
        channels: str = "rgb",
        set_name: str | None = None,
        untold: str | None = None,
    ) -> dict[str, Any]:
        from PIL import Image

        width = Image.open(io.BytesIO(image)).width
        labels = READINGS.get((self.kind, width)) or READINGS[(self.kind, 400)]
        alternatives = [["red-1", 0.1]] if self.kind == "tiles" else []
        return stand_in_answer(self.kind, labels, alternatives)


APPS: list[Any] = []  # the app behind ``server``, for games the API cannot make


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    from webapp import create_app

    instance = tmp_path_factory.mktemp("instance")
    app = create_app({"INSTANCE_PATH": str(instance), "RECOGNISER_FACTORY": StandIn})
    APPS.append(app)
    with serving(app) as address:
        yield address


@pytest.fixture(scope="module")
def photos(tmp_path_factory) -> dict[int, Path]:
    return plain_photos(tmp_path_factory.mktemp("photos"), [400, 420, 440])


@pytest.fixture
def phone(new_page) -> Any:
    """A page on a 390 x 844 touch phone; fails the test on any script error."""
    # the not-found page's own 404 is the answer under test, not a failed load
    return new_page(
        ignore_console=lambda m: "/g/nothing-here" in m.location.get("url", ""), **PHONE_CONTEXT
    )


def shot(page: Any, name: str) -> None:
    shoot(page, f"phone-{name}")


def game_with_hands(server: str, players: list[str], hands: list[dict[str, Any]]) -> dict:
    game = call(server, "POST", "/api/games", {"game": "rummikub", "players": players})
    for hand in hands:
        call(server, "POST", f"/api/games/{game['id']}/hands", {"hand": hand}, game["edit_token"])
    return dict(game)


def chips(board: Any) -> list[str]:
    return list(
        board.locator(".meld .chip[data-piece]").evaluate_all(
            "nodes => nodes.map(n => n.dataset.piece)"
        )
    )


LONG = ["Alexandra Konstantinopoulou", "Bartholomew Fitzgerald-Smythe", "Chidinma Okonkwo-Adeyemi",
        "Dobromiła Wierzbięta-Szczęsna"]  # fmt: skip


def four_long_names(server: str) -> dict:
    players = LONG
    racks = {p: [] for p in players}
    hands = [
        {"winner": players[0], "racks": {**racks, players[1]: ["red-13", "blue-12"],
                                         players[2]: ["joker"], players[3]: ["black-1"]}},
        {"winner": None, "racks": {players[0]: ["red-3"], players[1]: ["red-4"],
                                   players[2]: ["red-5"], players[3]: ["red-6"]}},
        {"winner": players[3], "racks": {**racks, players[0]: ["orange-11", "orange-12"],
                                         players[1]: ["red-1"], players[2]: ["blue-2"]}},
    ]  # fmt: skip
    return game_with_hands(server, players, hands)


# -- 1. the tally fits a phone ------------------------------------------------------------------


@pytest.mark.parametrize("width", [390, 360])
def test_1_tally_of_four_long_names_fits_without_sideways_scroll(
    phone: Any, server: str, width: int
) -> None:
    page = phone
    page.set_viewport_size({"width": width, "height": 844})
    game = four_long_names(server)
    page.goto(game["links"]["edit"])
    tally = page.locator("#tally")
    expect(tally.locator("tbody tr")).to_have_count(3)
    fits = page.evaluate(
        "() => [document.documentElement.scrollWidth, window.innerWidth,"
        " document.getElementById('tally').getBoundingClientRect().right]"
    )
    assert fits[0] <= fits[1], f"the page scrolls sideways: {fits}"
    assert fits[2] <= width, f"the tally sticks out: {fits}"
    # totals first, outcomes as short words, each hand's dealer marked
    expect(tally.locator("thead tr").nth(1)).to_have_class("totals")
    expect(tally.locator("tbody")).not_to_contain_text("stock-exhausted")
    expect(tally.locator("tbody tr").nth(1).locator("th")).to_contain_text("stock")
    dealers = tally.locator("tbody td.dealer")
    expect(dealers).to_have_count(3)
    expect(tally.locator("tbody tr").nth(1).locator("td").nth(1)).to_have_class("dealer")
    # the names stay on top while the hands scroll (sticky)
    assert page.evaluate("getComputedStyle(document.querySelector('#tally thead')).position") == (
        "sticky"
    )
    shot(page, f"1-tally-4-players-{width}px")


def test_1_tally_of_eight_players_fits_360_px(phone: Any, server: str) -> None:
    """The games take at most 4 players today; the tally is made for 8 (issue 22), so an
    8-player match is written straight into the database and shown to a viewer."""
    from webapp.db import Game, Hand, Player, transaction

    names = [f"Player number {i + 1} with a long name" for i in range(8)]
    with APPS[0].app_context(), transaction() as db:
        record = Game(
            id="eight-players-x", game="rummikub", options={"target": 1000}, edit_token_hash="0"
        )
        record.players = [Player(seat=i, name=name) for i, name in enumerate(names)]
        for number in range(1, 4):
            deltas = {name: (-25 if i else 175) for i, name in enumerate(names)}
            result = {"outcome": "stock-exhausted", "winner": names[0], "deltas": deltas}
            record.hands.append(Hand(number=number, hand={}, result=result, deltas=deltas))
        db.add(record)
    page = phone
    page.set_viewport_size({"width": 360, "height": 800})
    page.goto(server + "/g/eight-players-x")
    expect(page.locator("#tally thead .names th")).to_have_count(9)
    sizes = page.evaluate(
        "() => [document.documentElement.scrollWidth, window.innerWidth,"
        " document.getElementById('tally').getBoundingClientRect().right,"
        " Math.max(...[...document.querySelectorAll('#tally td')].map("
        "   td => td.scrollWidth - td.clientWidth))]"
    )
    assert sizes[0] <= sizes[1] and sizes[2] <= 360, sizes
    assert sizes[3] <= 0, f"a number does not fit its cell: {sizes}"
    shot(page, "1-tally-8-players-360px")


# -- 2. keyboard: Enter / Space open the picker, Escape changes nothing; names say the piece ----


def test_2_enter_and_space_open_the_picker_and_escape_leaves_the_piece(
    phone: Any, server: str, photos: dict[int, Path]
) -> None:
    page = phone
    page.goto(server + "/check?game=rummikub")
    board = page.locator("#board")
    upload(page, board, photos[440])
    assert chips(board) == ["red-5", "red-6", "red-7"]
    picker = page.locator("#picker")
    targets = [
        board.locator("svg.boxes g.box[data-index='0']"),
        board.locator(".meld .chip[data-index='0']"),
    ]
    for target in targets:
        for key in ("Enter", " "):
            target.focus()
            page.keyboard.press(key)
            expect(picker).to_be_visible()
            page.keyboard.press("Escape")
            expect(picker).to_be_hidden()
            assert chips(board) == ["red-5", "red-6", "red-7"], f"{key} changed a piece"
            assert page.evaluate("document.activeElement.dataset.index") == "0"
    # the names say the piece
    expect(page.get_by_role("button", name="red 5", exact=True)).to_have_count(1)
    expect(board.locator("svg.boxes g.box[data-index='1']")).to_have_attribute(
        "aria-label", "piece 2: red 6"
    )
    board.locator(".meld .chip[data-index='0']").click()
    expect(page.locator("#picker-pieces").get_by_role("button", name="black 13")).to_be_visible()
    shot(page, "2-picker-rows")
    # one row per colour: never two colours in a row
    rows = page.locator("#picker-pieces .piece-row").evaluate_all(
        "rows => rows.map(r => [...new Set([...r.querySelectorAll('[data-piece]')]"
        ".map(c => c.dataset.piece.split('-')[0]))])"
    )
    assert rows == [["red"], ["orange"], ["blue"], ["black"], ["joker"]]
    page.keyboard.press("Escape")

    page.goto(server + "/check?game=gin")
    page.click("#board .chip.add")
    page.get_by_role("button", name="queen of hearts").click()
    meld = page.locator("#board .meld")
    expect(meld.get_by_role("button", name="queen of hearts")).to_be_visible()
    page.goto(server + "/check?game=remino")
    page.click("#board .chip.add")
    page.locator("#picker-pieces").get_by_role("button", name="3-8", exact=True).click()
    expect(page.locator("#board .meld").get_by_role("button", name="3-8")).to_be_visible()


# -- 3. the game choice applies at once, with the game's house rules ----------------------------


def test_3_changing_the_game_reads_the_photo_again_as_that_games_pieces(
    phone: Any, server: str, photos: dict[int, Path]
) -> None:
    page = phone
    page.goto(server + "/check")
    board = page.locator("#board")
    upload(page, board, photos[440])
    assert chips(board) == ["red-5", "red-6", "red-7"]
    with page.expect_response(lambda r: r.url.endswith("/api/recognise")):
        page.select_option("#game-select", "gin")
    expect(board.locator(".meld .chip[data-piece='5H']")).to_be_visible()
    assert chips(board) == ["5H", "6H", "7H"]
    expect(page.locator("#game-title")).to_have_text("Gin Rummy")
    expect(page.locator("#table-verdict")).to_contain_text("✓ All 3 pieces")
    assert "game=gin" in page.url
    expect(page.get_by_role("button", name="Switch")).to_have_count(0)
    # Remino: a 10-8 is not in the double-nine set; the house rules offer double-twelve
    with page.expect_response(lambda r: r.url.endswith("/api/recognise")):
        page.select_option("#game-select", "remino")
    expect(board.locator(".meld .chip[data-piece='10-8']")).to_be_visible()
    expect(page.locator("#table-verdict")).to_contain_text("not in this game's set")
    expect(page.locator("#verdict .error:visible")).to_have_count(0)
    page.click("#house-options summary")
    shot(page, "3-remino-house-rules")
    before = page.evaluate("document.body.dataset.judged")
    page.select_option("#house-fields select[data-option=set]", "double-twelve")
    judged_after(page, before)
    expect(page.locator("#table-verdict")).not_to_contain_text("not in this game's set")
    assert "set=double-twelve" in page.url
    shot(page, "3-remino-double-twelve")


# -- 4. verdicts: as the melds stand, by their pieces, every piece that fits nowhere ------------


def tap_in(page: Any, pieces: list[str], meld: int = 0) -> None:
    for piece in pieces:
        before = page.evaluate("document.body.dataset.judged || null")
        page.locator(f"#board .meld[data-meld='{meld}'] .chip.add").click()
        page.click(f"#picker-pieces [data-piece='{piece}']")
        page.click("#picker-close")  # the picker stays open for more pieces (issue 71)
        judged_after(page, before)


def test_4_verdicts_describe_melds_as_they_stand(phone: Any, server: str) -> None:
    page = phone
    page.goto(server + "/check?game=gin")
    spades = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "KS"]
    tap_in(page, spades)
    expect(page.locator("#board .meld-verdict")).to_contain_text("gap")
    tap_in(page, ["QS"])  # the missing queen, added last: judged by its pieces, not their order
    expect(page.locator("#board .meld.valid .meld-verdict")).to_contain_text("legal run")
    expect(page.locator("#board")).not_to_contain_text("ace is low")
    expect(page.locator("#table-verdict")).to_contain_text("✓ All 13 pieces")
    expect(page.locator("#table-verdict .face[data-piece='QS']")).to_have_text(re.compile("Q♠"))
    shot(page, "4-gin-ace-to-king")

    page.goto(server + "/check?game=rummikub")
    tap_in(page, ["red-1", "red-2", "red-3", "blue-9", "black-5"])
    verdict = page.locator("#table-verdict")
    expect(verdict).to_contain_text("fit in no run or group")
    for piece in ("blue-9", "black-5"):  # every piece that fits nowhere, as its chip shows it
        expect(verdict.locator(f".face[data-piece='{piece}']")).to_have_count(1)
    expect(verdict.locator(".face[data-piece='blue-9']")).to_have_class(re.compile("c-blue"))
    shot(page, "4-every-lonely-tile")


# -- 5. nothing lost: undo asks, edits keep photos, a second photo adds -------------------------


def test_5_undo_can_be_cancelled(phone: Any, server: str) -> None:
    page = phone
    game = game_with_hands(
        server, ["Ana", "Ben"], [{"winner": "Ana", "racks": {"Ana": [], "Ben": ["red-9"]}}]
    )
    page.goto(game["links"]["edit"])
    page.click("#undo")
    expect(page.locator("#undo-yes")).to_be_visible()
    shot(page, "5-undo-asks")
    page.click("#undo-cancel")
    expect(page.locator("#undo-yes")).to_be_hidden()
    expect(page.locator("#tally tbody tr")).to_have_count(1)
    page.reload()
    expect(page.locator("#tally tbody tr")).to_have_count(1)
    page.click("#undo")
    page.click("#undo-yes")
    expect(page.locator("#tally tbody")).to_contain_text("No hands yet")


def test_5_second_photo_appends_and_the_edit_page_shows_the_photos(
    phone: Any, server: str, photos: dict[int, Path]
) -> None:
    page = phone
    game = game_with_hands(server, ["Ana", "Ben"], [])
    page.goto(game["links"]["edit"])
    page.click("#end-hand")
    page.select_option("#winner", "Ana")  # "who went out?" starts unset (issue 71)
    ben = page.locator(".player-board[data-player=Ben]")
    upload(page, ben, photos[440])
    upload(page, ben, photos[420])  # the rest of the rack
    assert chips(ben) == ["red-5", "red-6", "red-7", "blue-9", "blue-10"]
    expect(ben.locator(".photo-view")).to_have_count(2)
    expect(ben.locator(".status")).to_contain_text("added to the 3 already here")
    expect(page.locator("#preview-result")).to_contain_text("rack 37")  # 18 + 19
    shot(page, "5-second-photo-appends")
    page.click("#confirm")
    page.wait_for_url(re.compile(r"/g/[^/]+$"))
    page.click("#tally tbody a")
    expect(page.locator("h1")).to_contain_text("Edit hand 1")
    expect(ben.locator(".photo-view img")).to_have_count(2)
    for i in range(2):
        expect(ben.locator(".photo-view img").nth(i)).to_have_attribute(
            "src", re.compile(r"^/api/photos/[0-9a-f]+$")
        )
    expect(ben.locator("svg.boxes g.box")).to_have_count(5)
    assert chips(ben) == ["red-5", "red-6", "red-7", "blue-9", "blue-10"]
    expect(page.locator("#confirm")).to_be_enabled()
    shot(page, "5-edit-keeps-photos")


# -- 6. no error before any input; incomplete hands judged here ---------------------------------


def test_6_a_fresh_end_of_hand_page_shows_no_error(phone: Any, server: str) -> None:
    page = phone
    game = game_with_hands(server, ["Ann", "Bob", "Cy"], [])
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/score" in r.url else None)
    page.goto(game["links"]["edit"])
    page.click("#end-hand")
    expect(page.locator("#preview-waiting")).to_contain_text("Choose who went out")
    page.select_option("#winner", "Ann")  # it starts unset (issue 71)
    expect(page.locator("#preview-waiting")).to_contain_text("Waiting for Bob’s and Cy’s pieces")
    expect(page.locator(".error:visible")).to_have_count(0)
    expect(page.locator("#confirm")).to_be_disabled()
    shot(page, "6-fresh-end-of-hand")
    tap = page.locator(".player-board[data-player=Bob] .chip.add")
    tap.click()
    page.click("#picker-pieces [data-piece='red-4']")
    page.click("#picker-close")
    expect(page.locator("#preview-waiting")).to_contain_text("Waiting for Cy’s pieces")
    assert not asked, f"incomplete hands were sent: {asked}"
    page.locator(".player-board[data-player=Cy] .chip.add").click()
    page.click("#picker-pieces [data-piece='joker']")
    page.click("#picker-close")
    expect(page.locator("#confirm")).to_be_enabled()
    expect(page.locator("#preview-result")).to_contain_text("rack 30")


# -- 7. smaller: counts, tap targets, chart, picker rows (above), legend ------------------------

TAP_TARGETS = """() => {
  const seen = [];
  const visible = (n) => { const r = n.getBoundingClientRect(); const s = getComputedStyle(n);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && !n.closest('[hidden]'); };
  for (const n of document.querySelectorAll(
      'a[href], button, select, summary, input:not([type=hidden]), [role=button]')) {
    const target = (n.type === 'checkbox' || n.type === 'radio' || n.type === 'file')
      ? n.closest('label') || n : n;
    if (!visible(n) && !(target !== n && visible(target))) continue;
    const r = target.getBoundingClientRect();
    seen.push({what: (n.id || n.textContent || n.name || n.type).trim().slice(0, 30),
               w: Math.round(r.width), h: Math.round(r.height)});
  }
  return seen;
}"""


def small_targets(page: Any) -> list[dict[str, Any]]:
    return [t for t in page.evaluate(TAP_TARGETS) if t["w"] < 32 or t["h"] < 32]


def test_7_tap_targets_on_the_game_and_hand_pages_are_at_least_32_px(
    phone: Any, server: str
) -> None:
    page = phone
    game = four_long_names(server)
    page.goto(game["links"]["edit"])
    expect(page.locator("#chart")).to_be_visible()
    assert not small_targets(page), small_targets(page)
    page.click("#undo")
    assert not small_targets(page), small_targets(page)
    page.click("#tally tbody a >> nth=0")
    expect(page.locator("h1")).to_contain_text("Edit hand 1")
    # A click's navigation settles before the stylesheet applies; sizes are read once it has.
    page.wait_for_load_state("load")
    assert not small_targets(page), small_targets(page)
    page.goto(server + f"/g/{game['id']}/hand")
    assert not small_targets(page), small_targets(page)
    shot(page, "7-end-of-hand-4-players")


def test_7_chart_labels_apart_and_hands_on_the_axis(phone: Any, server: str) -> None:
    page = phone
    hands = [
        {"winner": "Ana", "racks": {"Ana": [], "Ben": ["red-1"], "Cy": ["red-2"]}},
        {"winner": "Ben", "racks": {"Ana": ["red-1"], "Ben": [], "Cy": ["blue-1"]}},
    ]
    game = game_with_hands(server, ["Ana", "Ben", "Cy"], hands)
    page.goto(game["links"]["edit"])
    labels = page.locator("#chart .series-label").evaluate_all(
        "ns => ns.map(n => { const r = n.getBoundingClientRect(); return [r.top, r.bottom]; })"
    )
    spans = sorted(labels)
    assert all(a[1] <= b[0] + 0.5 for a, b in itertools.pairwise(spans)), spans
    expect(page.locator("#chart .tick")).to_have_text(["1", "2"])
    shot(page, "7-chart")


def test_7_the_count_follows_the_pieces(phone: Any, server: str, photos: dict[int, Path]) -> None:
    page = phone
    page.goto(server + "/check?game=rummikub")
    board = page.locator("#board")
    upload(page, board, photos[440])
    expect(board.locator(".status")).to_contain_text("Read 3 pieces")
    board.locator(".meld .chip[data-index='2']").click()
    page.click("#picker-remove")
    expect(board.locator(".status")).to_contain_text("2 pieces in all")
    expect(board.locator(".board-legend")).to_contain_text("dashed with ?")


# -- 8. rack totals, dealer, rematch, moving a piece between melds -----------------------------


def test_8_rematch_and_moving_a_piece(phone: Any, server: str) -> None:
    page = phone
    game = game_with_hands(server, ["Ana", "Ben"], [])
    page.goto(game["links"]["edit"])
    page.click("#rematch")
    expect(page.locator("#share")).to_be_visible()
    assert game["id"] not in page.url
    expect(page.locator("p.muted").first).to_contain_text("Ana, Ben")
    expect(page.locator("#end-hand")).to_be_visible()

    page.goto(server + "/check?game=rummikub")
    tap_in(page, ["red-1", "red-2", "red-3", "blue-9"])
    page.click("#board .meld .chip[data-piece='blue-9']")
    page.click("#picker-melds button:text('new meld')")
    expect(page.locator("#board .meld")).to_have_count(2)
    expect(page.locator("#board .meld").nth(1).locator(".chip[data-piece]")).to_have_count(1)
    expect(page.locator("#board .meld").nth(0)).to_have_class(re.compile("valid"))


# -- 9. unsure pieces: marked plainly, confirmed with one tap ----------------------------------


def test_9_unsure_pieces_are_confirmed_with_one_tap(
    phone: Any, server: str, photos: dict[int, Path]
) -> None:
    page = phone
    game = game_with_hands(server, ["Ana", "Ben"], [])
    page.goto(game["links"]["edit"])
    page.click("#end-hand")
    page.select_option("#winner", "Ana")  # "who went out?" starts unset (issue 71)
    ben = page.locator(".player-board[data-player=Ben]")
    upload(page, ben, photos[400])  # red-7 is not sure
    unsure = ben.locator(".meld .chip.unsure")
    expect(unsure).to_have_count(1)
    expect(unsure).to_have_attribute("aria-label", re.compile("red 7, not sure"))
    expect(ben.locator("svg.boxes g.box.unsure")).to_have_count(1)
    expect(ben.locator(".to-confirm")).to_be_visible()
    expect(page.locator("#confirm")).to_be_disabled()
    expect(page.locator("#preview-waiting")).to_contain_text("marked ?")
    shot(page, "9-unsure-marked")
    ben.locator(".confirm-all").click()  # the one tap
    expect(unsure).to_have_count(0)
    expect(page.locator("#confirm")).to_be_enabled()
    assert chips(ben) == ["red-5", "red-6", "red-7"]
    shot(page, "9-unsure-confirmed")


def test_9_a_hand_of_sure_pieces_needs_no_tap(
    phone: Any, server: str, photos: dict[int, Path]
) -> None:
    page = phone
    game = game_with_hands(server, ["Ana", "Ben"], [])
    page.goto(game["links"]["edit"])
    page.click("#end-hand")
    page.select_option("#winner", "Ana")  # "who went out?" starts unset (issue 71)
    ben = page.locator(".player-board[data-player=Ben]")
    upload(page, ben, photos[440])
    expect(ben.locator(".to-confirm")).to_be_hidden()
    expect(page.locator("#confirm")).to_be_enabled()


def test_9_the_picker_says_yes_for_an_unsure_piece(
    phone: Any, server: str, photos: dict[int, Path]
) -> None:
    page = phone
    page.goto(server + "/check?game=rummikub")
    board = page.locator("#board")
    upload(page, board, photos[400])
    board.locator(".meld .chip.unsure").click()
    expect(page.locator("#picker-confirm")).to_have_text("✓ Yes, it is red 7")
    page.click("#picker-confirm")
    expect(board.locator(".chip.unsure")).to_have_count(0)
    assert chips(board) == ["red-5", "red-6", "red-7"]


# -- accessibility: axe-core on every page -----------------------------------------------------


def test_every_page_passes_axe(phone: Any, server: str, photos: dict[int, Path]) -> None:
    page = phone
    game = four_long_names(server)
    found: dict[str, list[str]] = {}

    def scan(name: str) -> None:
        found[name] = axe_problems(page)

    page.goto(server + "/")
    scan("start")
    page.goto(game["links"]["edit"])
    scan("game (editor)")
    page.click("#undo")
    scan("game, undo asked")
    page.goto(server + f"/g/{game['id']}/hand")
    scan("end of hand")
    page.goto(server + f"/g/{game['id']}/hands/1/edit")
    scan("edit hand")
    page.goto(server + f"/g/{game['id']}/check")
    upload(page, page.locator("#board"), photos[400])
    scan("check (game)")
    page.locator("#board .meld .chip[data-index='0']").click()
    scan("picker")
    page.keyboard.press("Escape")
    page.goto(server + "/check?game=remino")
    page.click("#house-options summary")
    scan("check (free)")
    page.context.clear_cookies()
    page.goto(server + f"/g/{game['id']}")
    scan("game (viewer)")
    page.goto(server + "/g/nothing-here")
    scan("not found")
    assert not any(found.values()), {k: v for k, v in found.items() if v}
