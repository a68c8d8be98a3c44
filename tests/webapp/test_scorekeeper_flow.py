"""The scorekeeper's flow II (issue 71), in Debian's real chromium through Playwright on a 390 px
touch phone: nothing lost on a reload or a dropped network, photos that can be taken back, the
host asked before a seat's rack replaces what was entered, "who went out?" chosen, the gin texts
without "undefined" or raw codes in every language, and axe-core on every page in light and
dark mode.

The app is the suite's ``app`` fixture (``tests/webapp/conftest.py``) served in a thread; its
recogniser is a stand-in whose answer a test sets (``Reader.labels``). Screenshots go to
``test-output/webapp/flow-*.png``.
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

PLAYERS = ["Ana", "Ben"]
CARD_CODE = re.compile(r"\b(?:10|[2-9AJQK])[CDHS]\b")


class Reader:
    """Reads ``labels`` (all sure) from any photo; a test changes them between photos."""

    def __init__(self, kind: str, labels: list[str]) -> None:
        self.kind = kind
        self.labels = labels

    def recognise(
        self,
        image: bytes,
        channels: str = "rgb",
        set_name: str | None = None,
        untold: str | None = None,
    ) -> dict[str, Any]:
        return stand_in_answer(self.kind, [(label, True) for label in self.labels], [])


@pytest.fixture
def reader(recognisers: dict[str, Any]) -> Reader:
    made = Reader("tiles", ["red-5", "red-6", "red-7"])
    recognisers["tiles"] = made
    return made


@pytest.fixture
def server(app: Any, reader: Reader) -> Iterator[str]:
    with serving(app) as address:
        yield address


@pytest.fixture
def new_page(server: str, new_page: Any) -> Any:
    """The suite's ``new_page``, opened after the server starts and closed before it stops (a
    page's event stream cut by the server's end would count as a browser error)."""
    return new_page


@pytest.fixture
def photos(tmp_path: Path) -> dict[int, Path]:
    return plain_photos(tmp_path, [400, 420, 440])


@pytest.fixture
def phone(new_page) -> Any:
    # the save sent while offline (or whose answer is lost) fails in the console, as it should
    return new_page(ignore_console=lambda m: "ERR_INTERNET_DISCONNECTED" in m.text, **PHONE_CONTEXT)


def shot(page: Any, name: str) -> None:
    shoot(page, f"flow-{name}")


def new_game(server: str, game: str = "rummikub", players: list[str] | None = None) -> dict:
    return dict(call(server, "POST", "/api/games", {"game": game, "players": players or PLAYERS}))


def hands_of(server: str, game: dict) -> list[dict]:
    return list(call(server, "GET", f"/api/games/{game['id']}")["hands"])


def open_hand_page(page: Any, game: dict) -> None:
    page.goto(game["links"]["edit"])  # this phone may edit the game
    page.goto(game["links"]["edit"].split("/g/")[0] + f"/g/{game['id']}/hand")
    page.wait_for_load_state("load")


def board_of(page: Any, player: str) -> Any:
    return page.locator(f".player-board[data-player={player}]")


def chips(board: Any) -> list[str]:
    return list(
        board.locator(".melds .chip[data-piece]").evaluate_all(
            "nodes => nodes.map(n => n.dataset.piece)"
        )
    )


def choose_winner(page: Any, name: str) -> None:
    before = page.evaluate("document.body.dataset.judged || null")
    page.select_option("#winner", name)
    judged_after(page, before)


# -- 1. a draft kept on the phone until saved ---------------------------------------------------


def test_a_draft_comes_back_after_a_reload_and_goes_once_saved(
    phone: Any, server: str, photos: dict[int, Path]
) -> None:
    page = phone
    game = new_game(server)
    open_hand_page(page, game)
    expect(page.locator("#draft-note")).to_be_hidden()
    choose_winner(page, "Ana")
    upload(page, board_of(page, "Ben"), photos[400])
    assert chips(board_of(page, "Ben")) == ["red-5", "red-6", "red-7"]
    page.reload()
    page.wait_for_load_state("load")
    expect(page.locator("#draft-note")).to_be_visible()
    expect(page.locator("#winner")).to_have_value("Ana")
    assert chips(board_of(page, "Ben")) == ["red-5", "red-6", "red-7"]
    expect(board_of(page, "Ben").locator(".photo-view img")).to_have_count(1)
    expect(page.locator("#confirm")).to_be_enabled()
    shot(page, "1-draft-restored")
    page.click("#confirm")
    page.wait_for_url(re.compile(rf"/g/{game['id']}$"))
    expect(page.locator("#saved-note")).to_contain_text("Hand 1 saved")
    assert len(hands_of(server, game)) == 1
    kept = page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('meldcam-hand:'))")
    assert kept == []
    open_hand_page(page, game)  # the next hand starts empty
    expect(page.locator("#draft-note")).to_be_hidden()
    expect(page.locator("#winner")).to_have_value("")
    assert chips(board_of(page, "Ben")) == []


def test_start_afresh_drops_the_draft(phone: Any, server: str, photos: dict[int, Path]) -> None:
    page = phone
    game = new_game(server)
    open_hand_page(page, game)
    choose_winner(page, "Ben")
    upload(page, board_of(page, "Ana"), photos[400])
    page.reload()
    expect(page.locator("#draft-note")).to_be_visible()
    page.click("#draft-discard")
    page.wait_for_load_state("load")
    expect(page.locator("#draft-note")).to_be_hidden()
    expect(page.locator("#winner")).to_have_value("")
    assert chips(board_of(page, "Ana")) == []


# -- 2. a failed save is said in the page; Retry stores the hand once ---------------------------


def ready_hand(page: Any, game: dict, photos: dict[int, Path]) -> None:
    open_hand_page(page, game)
    choose_winner(page, "Ana")
    upload(page, board_of(page, "Ben"), photos[400])
    expect(page.locator("#confirm")).to_be_enabled()


def test_an_offline_save_is_said_in_the_page_and_retry_stores_one_hand(
    phone: Any, server: str, photos: dict[int, Path]
) -> None:
    page = phone
    game = new_game(server)
    ready_hand(page, game, photos)
    page.context.set_offline(True)
    page.click("#confirm")
    failed = page.locator("#save-failed")
    expect(failed).to_be_visible()
    expect(failed).to_contain_text("no connection")
    assert page.url.endswith("/hand")  # still the app's page, not the browser's "no internet"
    expect(page.locator("#preview-result")).to_contain_text("Ana")
    shot(page, "2-offline")
    assert hands_of(server, game) == []
    page.context.set_offline(False)
    page.click("#save-retry")
    page.wait_for_url(re.compile(rf"/g/{game['id']}$"))
    assert len(hands_of(server, game)) == 1


def test_a_save_whose_answer_was_lost_is_stored_once_on_retry(
    phone: Any, server: str, photos: dict[int, Path]
) -> None:
    """The server stored the hand but the phone never heard back: Retry sends the same
    idempotency key, and the hand is not stored twice."""
    page = phone
    game = new_game(server)
    ready_hand(page, game, photos)

    def lose_the_answer(route: Any) -> None:
        route.fetch()  # the server saves the hand...
        route.abort("internetdisconnected")  # ...and the answer never arrives

    page.route(re.compile(r"/g/[\w-]+/hands$"), lose_the_answer)
    page.click("#confirm")
    expect(page.locator("#save-failed")).to_be_visible()
    assert len(hands_of(server, game)) == 1
    page.unroute(re.compile(r"/g/[\w-]+/hands$"))
    page.click("#save-retry")
    page.wait_for_url(re.compile(rf"/g/{game['id']}$"))
    assert len(hands_of(server, game)) == 1
    expect(page.locator("#tally tbody tr")).to_have_count(1)


def test_save_edit_and_undo_each_say_so(phone: Any, server: str, photos: dict[int, Path]) -> None:
    page = phone
    game = new_game(server)
    ready_hand(page, game, photos)
    page.click("#confirm")
    page.wait_for_url(re.compile(rf"/g/{game['id']}$"))
    expect(page.locator("#saved-note")).to_have_text("Hand 1 saved.")
    page.click("#tally tbody a.hand-link")
    expect(page.locator("h1")).to_contain_text("Edit hand 1")
    expect(page.locator("#winner")).to_have_value("Ana")
    expect(page.locator("#confirm")).to_be_enabled()
    page.click("#confirm")
    page.wait_for_url(re.compile(rf"/g/{game['id']}$"))
    expect(page.locator("#saved-note")).to_have_text("Hand 1 changed and saved.")
    page.reload()
    expect(page.locator("#saved-note")).to_have_count(0)  # said once
    page.click("#undo")
    expect(page.locator("#undo-yes")).to_be_in_viewport()  # the question opens in view
    page.click("#undo-yes")
    page.wait_for_url(re.compile(rf"/g/{game['id']}$"))
    expect(page.locator("#saved-note")).to_have_text("Hand 1 undone.")


# -- 3. photos: remove, retake, clear; the same picture twice -----------------------------------


def test_a_photo_can_be_removed_retaken_and_the_board_cleared(
    phone: Any, server: str, photos: dict[int, Path], reader: Reader
) -> None:
    page = phone
    game = new_game(server)
    open_hand_page(page, game)
    choose_winner(page, "Ana")
    board = board_of(page, "Ben")
    upload(page, board, photos[400])
    # the same picture again: noticed, its pieces not doubled
    board.locator(".photo-file").set_input_files(str(photos[400]))
    expect(board.locator(".status")).to_contain_text("on the board already")
    expect(board.locator(".photo-view")).to_have_count(1)
    assert chips(board) == ["red-5", "red-6", "red-7"]
    reader.labels = ["blue-9", "blue-10"]
    upload(page, board, photos[420])
    assert chips(board) == ["red-5", "red-6", "red-7", "blue-9", "blue-10"]
    shot(page, "3-two-photos")
    # remove the first photo: its three pieces go with it
    before = page.evaluate("document.body.dataset.judged || null")
    board.get_by_role("button", name="Remove photo 1").click()
    judged_after(page, before)
    assert chips(board) == ["blue-9", "blue-10"]
    expect(board.locator(".photo-view")).to_have_count(1)
    # retake the one left: the new photo's pieces replace its pieces
    reader.labels = ["black-1", "black-2", "black-3", "black-4"]
    before = page.evaluate("document.body.dataset.judged || null")
    with page.expect_file_chooser() as chooser:
        board.get_by_role("button", name="Retake photo 1").click()
    with page.expect_response(lambda r: r.url.endswith("/api/recognise")):
        chooser.value.set_files(str(photos[440]))
    judged_after(page, before)
    expect(board.locator(".photo-view")).to_have_count(1)
    assert chips(board) == ["black-1", "black-2", "black-3", "black-4"]
    # clear: nothing left on the board, the page waits for Ben's pieces again
    before = page.evaluate("document.body.dataset.judged || null")
    board.locator(".clear-board").click()
    judged_after(page, before)
    assert chips(board) == []
    expect(board.locator(".photo-view")).to_have_count(0)
    expect(board.locator(".clear-board")).to_be_hidden()
    expect(page.locator("#confirm")).to_be_disabled()
    expect(page.locator("#preview-waiting")).to_contain_text("Ben")


# -- 4. a seat's rack over the host's entries asks ----------------------------------------------


def send_rack(server: str, game: dict, seat: int, pieces: list[str]) -> None:
    links = call(server, "GET", f"/api/games/{game['id']}/seats", token=game["edit_token"])
    token = links[seat]["link"].rsplit("/", 1)[1]
    hand = call(server, "GET", f"/api/games/{game['id']}/racks", token=game["edit_token"])["hand"]
    request = urllib.request.Request(
        f"{server}/api/games/{game['id']}/racks/{seat}",
        json.dumps({"hand": hand, "pieces": pieces}).encode(),
        {"Content-Type": "application/json", "X-Seat-Token": token},
        method="PUT",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status in (200, 201)


@pytest.mark.parametrize("choice", ["keep", "use"])
def test_a_seats_rack_over_the_hosts_pieces_asks_which_to_keep(
    phone: Any, server: str, photos: dict[int, Path], choice: str
) -> None:
    page = phone
    game = new_game(server)
    open_hand_page(page, game)
    choose_winner(page, "Ana")
    ben = board_of(page, "Ben")
    upload(page, ben, photos[400])  # the host photographs Ben's rack...
    send_rack(server, game, 1, ["blue-9", "blue-10"])  # ...and Ben's phone sends its own
    question = ben.locator(".conflict")
    expect(question).to_be_visible()
    expect(question).to_contain_text("Ben’s phone sent 2 pieces")
    assert chips(ben) == ["red-5", "red-6", "red-7"]  # nothing replaced before the answer
    expect(page.locator("#confirm")).to_be_disabled()  # nor saved
    expect(page.locator("#preview-waiting")).to_contain_text("Choose whose pieces to keep")
    shot(page, f"4-conflict-{choice}")
    before = page.evaluate("document.body.dataset.judged || null")
    if choice == "keep":
        question.get_by_role("button", name="Keep mine").click()
        expect(question).to_have_count(0)
        assert chips(ben) == ["red-5", "red-6", "red-7"]
        expect(ben.locator(".sent-by")).to_contain_text("Kept the pieces entered here")
        expect(page.locator("#confirm")).to_be_enabled()
    else:
        question.get_by_role("button", name="Use Ben’s").click()
        judged_after(page, before)
        expect(question).to_have_count(0)
        assert chips(ben) == ["blue-9", "blue-10"]
        expect(ben.locator(".sent-by")).to_contain_text("Sent from Ben’s phone")


def test_a_seats_rack_onto_an_untouched_board_is_taken_without_asking(
    phone: Any, server: str
) -> None:
    page = phone
    game = new_game(server)
    open_hand_page(page, game)
    send_rack(server, game, 1, ["blue-9", "blue-10"])
    ben = board_of(page, "Ben")
    expect(ben.locator(".sent-by")).to_contain_text("Sent from Ben’s phone")
    assert chips(ben) == ["blue-9", "blue-10"]
    expect(ben.locator(".conflict")).to_have_count(0)


# -- 5. the gin texts: layoffs and deadwood, drawn pieces, in four languages --------------------

DOMINO_GIN = {"Ann": "3-3 3-4 3-5 3-6 0-0 0-1 1-1", "Bob": "2-3 1-3 0-6 5-6 4-4 2-4 2-2"}
GIN = {"Kai": "7H 8H 9H QC QD QS 2S 3S 4S AC", "Olga": "4H 5H 6H 4C 4D 6C 7C 8C 9D 10D"}
LAYS_OFF = {"en": "lays off", "pl": "dokłada", "hr": None, "ro": None}


def gin_hand_page(page: Any, server: str, game: str, hands: dict[str, str], lang: str) -> Any:
    players = list(hands)
    made = new_game(server, game, players)
    hand = {
        "players": players,
        "knocker": players[0],
        "hands": {p: h.split() for p, h in hands.items()},
    }
    call(server, "POST", f"/api/games/{made['id']}/hands", {"hand": hand}, made["edit_token"])
    page.goto(made["links"]["edit"])
    page.goto(f"{server}/g/{made['id']}/hands/1/edit?lang={lang}")
    details = page.locator("#preview-result .details")
    expect(details.first).to_be_visible()
    return page.locator("#preview-result")


@pytest.mark.parametrize("lang", ["en", "pl", "hr", "ro"])
def test_domino_gin_explains_layoffs_and_deadwood_in_every_language(
    phone: Any, server: str, lang: str
) -> None:
    page = phone
    result = gin_hand_page(page, server, "domino-gin", DOMINO_GIN, lang)
    text = result.inner_text()
    assert "undefined" not in text and "{" not in text, text
    layoffs = result.locator(".layoff")
    expect(layoffs).to_have_count(2)
    for i, piece in enumerate(["2-3", "1-3"]):
        line = layoffs.nth(i)
        expect(line).to_contain_text("Bob")
        assert line.locator(".face[data-piece]").first.get_attribute("data-piece") == piece
        # onto Ann's sequence of threes, drawn as dominoes
        onto = line.locator(".face[data-piece]").evaluate_all("ns => ns.map(n => n.dataset.piece)")
        assert onto[1:] == ["3-3", "3-4", "3-5", "3-6"]
    # each player's deadwood is listed, drawn as dominoes
    ann = result.locator(".details").filter(has_text="Ann").first
    faces = ann.locator(".face[data-piece]").evaluate_all("ns => ns.map(n => n.dataset.piece)")
    assert faces[-3:] == ["0-0", "0-1", "1-1"]
    bob = result.locator(".details:not(.layoff)").filter(has_text="Bob").first
    assert bob.locator(".face").count() >= 1
    if LAYS_OFF[lang]:
        expect(layoffs.first).to_contain_text(LAYS_OFF[lang])
    shot(page, f"5-domino-gin-{lang}")


@pytest.mark.parametrize("lang", ["en", "pl", "hr", "ro"])
def test_gin_explanation_draws_cards_not_codes(phone: Any, server: str, lang: str) -> None:
    page = phone
    result = gin_hand_page(page, server, "gin", GIN, lang)
    shown = result.evaluate(
        """node => { const copy = node.cloneNode(true);
        copy.querySelectorAll('.sr-only').forEach(n => n.remove()); return copy.textContent; }"""
    )
    assert "undefined" not in shown
    assert not CARD_CODE.search(shown), shown
    expect(result.locator(".layoff")).to_have_count(1)
    expect(result.locator(".layoff")).to_contain_text("Olga")
    assert "6♥" in shown and "5♥" in shown


# -- 6. who went out starts unset -----------------------------------------------------------------


def test_who_went_out_is_unset_until_chosen(
    phone: Any, server: str, photos: dict[int, Path], reader: Reader
) -> None:
    page = phone
    game = new_game(server)
    open_hand_page(page, game)
    expect(page.locator("#winner")).to_have_value("")
    expect(page.locator("#winner option:checked")).to_have_text(re.compile("choose"))
    upload(page, board_of(page, "Ben"), photos[400])
    reader.labels = ["blue-9", "blue-10"]
    upload(page, board_of(page, "Ana"), photos[420])
    expect(page.locator("#preview-waiting")).to_contain_text("Choose who went out")
    expect(page.locator("#confirm")).to_be_disabled()
    expect(page.locator("#preview-result")).to_be_empty()
    choose_winner(page, "Ben")
    expect(page.locator("#confirm")).to_be_enabled()
    expect(page.locator("#preview-result .outcome")).to_contain_text("Ben")
    choose_winner(page, "-")  # nobody: the stock ran out
    expect(page.locator("#preview-result .outcome")).to_contain_text("stock ran out")


def test_who_knocked_is_unset_until_chosen(phone: Any, server: str) -> None:
    page = phone
    game = new_game(server, "gin", ["Ana", "Ben"])
    open_hand_page(page, game)
    expect(page.locator("#knocker")).to_have_value("")
    expect(page.locator("#preview-waiting")).to_contain_text("Choose who knocked")
    expect(page.locator("#confirm")).to_be_disabled()
    page.select_option("#knocker", "Ben")
    expect(page.locator("#preview-waiting")).not_to_contain_text("Choose who knocked")


# -- the smaller items ---------------------------------------------------------------------------


def test_the_check_page_says_which_verdict_is_which_and_groups_them(
    phone: Any, server: str, photos: dict[int, Path], recognisers: dict[str, Any]
) -> None:
    """Three 13s read as three one-tile melds: the page says "as laid out" ✗ apart from "as
    they could be laid out" ✓, and one tap groups them so."""
    page = phone

    class Apart(Reader):
        def recognise(
            self,
            image: bytes,
            channels: str = "rgb",
            set_name: str | None = None,
            untold: str | None = None,
        ) -> dict[str, Any]:
            answer = super().recognise(image)
            answer["melds"] = [[i] for i in range(len(answer["pieces"]))]  # each on its own
            return answer

    recognisers["tiles"] = Apart("tiles", ["red-13", "blue-13", "black-13"])
    page.goto(server + "/check?game=rummikub")
    upload(page, page.locator("#board"), photos[400])
    expect(page.locator("#laid-verdict")).to_contain_text(
        "As laid out: 3 of the 3 melds are not legal"
    )
    expect(page.locator("#table-verdict")).to_contain_text("As they could be laid out")
    expect(page.locator("#table-verdict")).to_contain_text("All 3 pieces")
    before = page.evaluate("document.body.dataset.judged || null")
    page.click("#lay-out")
    judged_after(page, before)
    expect(page.locator("#laid-verdict")).to_contain_text("✓ As laid out")
    expect(page.locator("#board .meld.valid")).to_have_count(1)
    expect(page.locator("#board svg.boxes g.box")).to_have_count(3)  # the photo's boxes stay
    expect(page.locator("#lay-out")).to_have_count(0)


def test_the_picker_stays_open_for_several_pieces_and_says_each_place(
    phone: Any, server: str, photos: dict[int, Path]
) -> None:
    page = phone
    game = new_game(server)
    open_hand_page(page, game)
    choose_winner(page, "Ana")
    ben = board_of(page, "Ben")
    ben.locator(".chip.add").click()
    for piece in ("red-1", "red-2", "red-3"):
        page.click(f"#picker-pieces [data-piece='{piece}']")
        expect(page.locator("#picker")).to_be_visible()
    expect(page.locator("#picker-added .face")).to_have_count(3)
    page.click("#picker-close")
    assert chips(ben) == ["red-1", "red-2", "red-3"]
    expect(page.locator("#preview-result")).to_contain_text("rack 6")  # judged with all three
    # the picker names a piece by its place among the chips, apart from its number
    ben.locator(".chip[data-piece='red-3']").click()
    expect(page.locator("#picker-title")).to_have_text(
        "Read as red 3. Which piece is it? (Place 3 of 3 on this board.)"
    )


def test_domino_gin_offers_only_two_players(phone: Any, server: str) -> None:
    page = phone
    page.goto(server + "/")
    expect(page.locator("#intro")).to_be_visible()  # a first visit says what the app does
    page.check("input[name=game][value=domino-gin]")
    expect(page.locator(".player-field[data-seat='2']")).to_be_hidden()
    expect(page.locator(".player-field[data-seat='3']")).to_be_hidden()
    expect(page.locator("#player-count")).to_contain_text("2 players")
    page.fill("[name=player-0]", "Ann")
    page.fill("[name=player-1]", "Bob")
    page.click("#new-game button[type=submit]")
    page.wait_for_url(re.compile(r"/g/[\w-]+$"))
    expect(page.locator("h1")).to_have_text("Domino Gin")
    page.goto(server + "/")
    page.check("input[name=game][value=rummikub]")
    expect(page.locator(".player-field[data-seat='3']")).to_be_visible()


def test_undercut_is_translated_and_whole_in_the_tally(phone: Any, server: str) -> None:
    page = phone
    made = new_game(server, "gin", ["Małgorzata", "Krzysztof"])
    # a gin undercut: the knocker's 8 against the opponent's 2
    hand = {
        "players": ["Małgorzata", "Krzysztof"],
        "knocker": "Małgorzata",
        "hands": {
            "Małgorzata": ["7H", "8H", "9H", "QC", "QD", "QS", "2S", "3S", "4S", "8C"],
            "Krzysztof": ["4H", "5H", "6H", "5C", "5D", "5S", "AC", "AD", "AS", "2C"],
        },
    }
    call(server, "POST", f"/api/games/{made['id']}/hands", {"hand": hand}, made["edit_token"])
    assert hands_of(server, made)[0]["result"]["outcome"] == "undercut"
    for lang, word in (
        ("en", "undercut"),
        ("pl", "podcięcie"),
        ("hr", "podrezivanje"),
        ("ro", "subtăiere"),
    ):
        page.goto(f"{made['links']['edit']}")
        page.goto(f"{server}/g/{made['id']}?lang={lang}")
        outcome = page.locator("#tally tbody .outcome").first
        expect(outcome).to_have_text(word)
        # one line: the word is not broken inside ("underc/ut")
        height = outcome.evaluate("n => n.getBoundingClientRect().height")
        size = outcome.evaluate("n => parseFloat(getComputedStyle(n).fontSize)")
        assert height < 2 * size, (lang, height, size)
        # the names in the header are whole, not cut with an ellipsis
        for name in ("Małgorzata", "Krzysztof"):
            th = page.locator("#tally thead .names th", has_text=name)
            cut = th.evaluate("n => n.scrollWidth > n.clientWidth + 1")
            assert not cut, (lang, name)


def test_the_seat_page_after_the_match_names_no_next_hand(new_page, server: str) -> None:
    made = call(
        server,
        "POST",
        "/api/games",
        {"game": "rummikub", "players": PLAYERS, "options": {"target": 10}},
    )
    links = call(server, "GET", f"/api/games/{made['id']}/seats", token=made["edit_token"])
    hand = {"winner": "Ana", "racks": {"Ana": [], "Ben": ["red-13"]}}
    call(server, "POST", f"/api/games/{made['id']}/hands", {"hand": hand}, made["edit_token"])
    page = new_page(**PHONE_CONTEXT)
    page.goto(links[1]["link"])
    expect(page.locator("#my-rack-title")).to_have_text("Your seat, Ben: the match has ended")


def test_the_read_link_is_shared_through_the_phones_share_sheet(phone: Any, server: str) -> None:
    page = phone
    page.add_init_script(
        "navigator.share = (data) => { window.shared = data; return Promise.resolve(); };"
    )
    game = new_game(server)
    page.goto(game["links"]["edit"])
    page.click("#share-read")
    shared = page.evaluate("window.shared")
    assert shared["url"] == game["links"]["read"]


def test_a_newcomer_can_try_a_sample_photo(phone: Any, server: str, reader: Reader) -> None:
    """The start page's "Try it on a sample photo" opens the check page, which reads the
    sample photo (a real photo of tiles, credited) as it reads one the player chose."""
    page = phone
    sent: list[bytes] = []
    own = reader.recognise

    def recording(image: bytes, **options: Any) -> dict[str, Any]:
        sent.append(image)
        return own(image, **options)

    reader.recognise = recording  # type: ignore[method-assign]  # the stand-in records its input
    page.goto(server + "/")
    page.locator("#try-sample").click()
    expect(page.locator("#sample-credit")).to_contain_text("CC BY 4.0")
    board = page.locator("#board")
    expect(board.locator(".melds .chip[data-piece]")).to_have_count(3)
    expect(page.locator("#table-verdict")).to_contain_text("3")
    # the reader got the sample's picture (as the page sends any photo: decoded the same)
    import cv2
    import numpy as np

    sample = cv2.imread(str(Path(__file__).parents[2] / "webapp/static/sample/tiles.jpg"))
    assert sent
    got = cv2.imdecode(np.frombuffer(sent[0], np.uint8), cv2.IMREAD_COLOR)
    got = cv2.resize(got, (sample.shape[1], sample.shape[0]), interpolation=cv2.INTER_AREA)
    assert float(np.abs(got.astype(float) - sample.astype(float)).mean()) < 8.0


def test_the_app_has_a_manifest(phone: Any, server: str) -> None:
    page = phone
    page.goto(server + "/")
    href = page.locator("link[rel=manifest]").get_attribute("href")
    manifest = page.request.get(server + href).json()
    assert manifest["short_name"] == "meldcam" and manifest["display"] == "standalone"
    assert manifest["icons"] and manifest["start_url"] == "/"


# -- axe-core: every page, light and dark -------------------------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_axe_violation_on_any_page(
    new_page, server: str, photos: dict[int, Path], scheme: str
) -> None:
    page = new_page(
        ignore_console=lambda m: (
            "/g/nothing-here" in m.location.get("url", "") or "ERR_INTERNET_DISCONNECTED" in m.text
        ),
        **PHONE_CONTEXT,
    )
    page.emulate_media(color_scheme=scheme)
    problems: dict[str, list[str]] = {}

    def scan(name: str) -> None:
        page.wait_for_load_state("load")
        shot(page, f"axe-{scheme}-" + re.sub(r"\W+", "-", name).strip("-"))
        found = axe_problems(page)
        if found:
            problems[name] = found

    page.goto(server + "/")
    scan("start, first visit")
    game = new_game(server)
    page.goto(game["links"]["edit"])
    scan("game, no hands")
    page.goto(f"{server}/g/{game['id']}/hand")
    choose_winner(page, "Ana")
    upload(page, board_of(page, "Ben"), photos[400])
    send_rack(server, game, 1, ["blue-9", "blue-10"])
    expect(page.locator(".conflict")).to_be_visible()
    scan("end of hand, photo and a seat's rack asked about")
    page.get_by_role("button", name="Keep mine").click()
    expect(page.locator("#confirm")).to_be_enabled()
    page.context.set_offline(True)
    page.click("#confirm")
    expect(page.locator("#save-failed")).to_be_visible()
    scan("end of hand, save failed")
    page.context.set_offline(False)
    page.click("#save-retry")
    page.wait_for_url(re.compile(rf"/g/{game['id']}$"))
    scan("game, one hand saved")
    page.click("#undo")
    scan("game, undo asked")
    page.goto(server + "/")
    scan("start, with a game")
    page.goto(f"{server}/g/{game['id']}/check")
    upload(page, page.locator("#board"), photos[400])
    scan("check a meld")
    page.goto(server + "/check?game=gin")
    scan("check a meld, free")
    for lang in ("en", "pl"):
        gin_hand_page(page, server, "domino-gin", DOMINO_GIN, lang)
        scan(f"domino gin hand, {lang}")
    gin_hand_page(page, server, "gin", GIN, "hr")
    scan("gin hand, hr")
    reader = new_page(**PHONE_CONTEXT)
    reader.emulate_media(color_scheme=scheme)
    reader.goto(game["links"]["read"])
    found = axe_problems(reader)
    if found:
        problems["game, read only"] = found
    links = call(server, "GET", f"/api/games/{game['id']}/seats", token=game["edit_token"])
    seat = new_page(**PHONE_CONTEXT)
    seat.emulate_media(color_scheme=scheme)
    seat.goto(links[0]["link"])
    with seat.expect_response(lambda r: r.url.endswith("/api/recognise")):
        seat.locator("#my-rack .photo-file").set_input_files(str(photos[420]))
    expect(seat.locator("#my-rack .photo-view")).to_have_count(1)
    found = axe_problems(seat)
    if found:
        problems["seat"] = found
    page.goto(server + "/g/nothing-here")
    scan("not found")
    assert not problems, problems
