"""Every phone at the table (issue 27), in Debian's real chromium through Playwright: a host and
two seated players, each in a browser context of their own on a 390 x 844 touch phone.

The host's page shows a QR code per seat; the test renders it (chromium takes a picture of the
SVG) and decodes it with OpenCV's QR reader, and each player's phone opens the link it holds.
Each player photographs their rack (the reader is a stand-in that reads by the photo's width, as
in ``test_webapp_phone.py``), corrects nothing, sends it; the host's end-of-hand page shows both
racks as they arrive, without reloading, and saves; all three pages show the new tally within a
second. The server side (rights, the event stream) is ``test_live_game.py``.
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_pages import (
    BROWSER_MARKS,
    PHONE_CONTEXT,
    SHOTS,
    axe_problems,
    call,
    expect,
    plain_photos,
    playwright_api,
    serving,
    stand_in_answer,
)

pytestmark = BROWSER_MARKS

# what the stand-in reads, by the photo's width (every piece sure)
READINGS = {440: ["red-5", "red-6", "red-7"], 420: ["blue-9", "blue-10"]}
QR_READ_SECONDS = 20  # how long decode_qr keeps taking pictures of a seat's QR code


class StandIn:
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

        labels = READINGS.get(Image.open(io.BytesIO(image)).width, READINGS[440])
        return stand_in_answer(self.kind, [(label, True) for label in labels], [])


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    from webapp import create_app

    instance = tmp_path_factory.mktemp("live-instance")
    app = create_app({"INSTANCE_PATH": str(instance), "RECOGNISER_FACTORY": StandIn})
    with serving(app) as address:
        yield address


@pytest.fixture(scope="module")
def photos(tmp_path_factory) -> dict[int, Path]:
    return plain_photos(tmp_path_factory.mktemp("rack-photos"), list(READINGS), "rack")


@pytest.fixture
def phones(new_page) -> Any:
    """``phones()`` opens one more phone (a browser context of its own: its own cookies);
    the test fails on any script error on any of them (``phones.errors``)."""
    SHOTS.mkdir(parents=True, exist_ok=True)

    def open_phone() -> Any:
        return new_page(**PHONE_CONTEXT)

    open_phone.errors = new_page.errors  # type: ignore[attr-defined]
    return open_phone


def read_qr(image: Any) -> str:
    """The text of the QR code in a grey picture, or "". Each of OpenCV's two QR readers fails
    on a few codes in a hundred at a given size, whatever the picture (a seat's code is the
    same on every try): each reader is tried at 1, 2 and 3 times the size (none failed on
    1,200 rendered seat links this way)."""
    import cv2

    for scale in (1, 2, 3):
        big = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
        framed = cv2.copyMakeBorder(big, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
        for reader in (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco()):
            text, _points, _straight = reader.detectAndDecode(framed)
            if text:
                return str(text)
    return ""


def decode_qr(page: Any, seat: int) -> str:
    """The link the seat's QR code holds, read from a picture of it (OpenCV's QR reader)."""
    import cv2
    import numpy as np

    page.locator(f"#phone-{seat} summary").click()
    code = page.locator(f"#phone-{seat} svg.qr")
    # A picture taken while the panel still opens may not read, and a change the page hears of
    # live (the host's own revoke) may redraw it closed: open it again before each picture,
    # until a deadline rather than a number of tries (a loaded CI machine draws slowly).
    deadline = time.monotonic() + QR_READ_SECONDS
    while time.monotonic() < deadline:
        try:
            page.locator(f"#phone-{seat}").evaluate("panel => { panel.open = true; }")
            expect(code).to_be_visible()
            picture = code.screenshot(animations="disabled")
        except playwright_api.Error:  # the page was reloading: try again once it is back
            page.wait_for_timeout(200)
            continue
        text = read_qr(cv2.imdecode(np.frombuffer(picture, np.uint8), cv2.IMREAD_GRAYSCALE))
        if text:
            return text
        page.wait_for_timeout(200)
    raise AssertionError(f"no QR code read for seat {seat}")


def totals(page: Any) -> list[str]:
    return list(page.locator("#tally thead .totals td").all_inner_texts())


def send_rack(page: Any, photo: Path, pieces: list[str]) -> None:
    card = page.locator("#my-rack")
    with page.expect_response(lambda r: r.url.endswith("/api/recognise")) as answer:
        card.locator(".photo-file").set_input_files(str(photo))
    assert answer.value.status == 200, answer.value.text()
    expect(card.locator(".meld .chip[data-piece]")).to_have_count(len(pieces))
    with page.expect_response(lambda r: "/racks/" in r.url) as sent:
        page.click("#send-rack")
    assert sent.value.status == 200, sent.value.text()
    expect(page.locator("#rack-sent")).to_contain_text(f"({len(pieces)})")


def test_host_and_two_players_each_send_their_own_rack_and_see_the_tally_live(
    phones: Any, server: str, photos: dict[int, Path]
) -> None:
    game = call(server, "POST", "/api/games", {"game": "rummikub", "players": ["Ana", "Ben", "Cy"]})
    host = phones()
    host.goto(game["links"]["edit"])
    expect(host.locator("#phones")).to_be_visible()
    links = [decode_qr(host, 0), decode_qr(host, 1)]
    assert all(f"/g/{game['id']}/join/" in link for link in links), links
    assert links == host.locator(".seat-link").all_inner_texts()[:2]  # the link beside it
    host.screenshot(path=str(SHOTS / "live-host-qr.png"), full_page=True)

    ana, ben = phones(), phones()
    for page, link, name in ((ana, links[0], "Ana"), (ben, links[1], "Ben")):
        page.goto(link)
        expect(page.locator("#my-rack-title")).to_contain_text(f"Your rack, {name}: hand 1")
        expect(page.locator("#edit-link")).to_have_count(0)
    # the host sees both phones join, live
    expect(host.locator("#phone-0 .phone-state")).to_have_text("joined ✓")
    expect(host.locator("#phone-1 .phone-state")).to_have_text("joined ✓")

    host.click("#end-hand")
    host.select_option("#winner", "Cy")
    waiting = host.locator("#preview-waiting")
    expect(waiting).to_have_text(re.compile(r"^(?!.*Cy).*Ana.*Ben"))
    url = host.url

    send_rack(ana, photos[440], READINGS[440])
    ana_board = host.locator(".player-board[data-player='Ana']")
    expect(ana_board.locator(".meld .chip[data-piece]")).to_have_count(3)
    expect(ana_board.locator(".sent-by")).to_contain_text("Sent from Ana’s phone")
    expect(waiting).to_have_text(re.compile(r"^(?!.*Ana).*Ben"))
    send_rack(ben, photos[420], READINGS[420])
    ben_board = host.locator(".player-board[data-player='Ben']")
    expect(ben_board.locator(".meld .chip[data-piece]")).to_have_count(2)
    expect(ben_board.locator(".sent-by")).to_contain_text("Sent from Ben’s phone")
    assert host.url == url  # no reload: the racks came in while the page stayed
    assert (
        ana_board.locator(".meld .chip[data-piece]").evaluate_all(
            "nodes => nodes.map(n => n.dataset.piece)"
        )
        == READINGS[440]
    )
    expect(ana_board.locator("svg.boxes g.box")).to_have_count(3)  # with the photo and its boxes
    expect(host.locator("#confirm")).to_be_enabled()
    host.screenshot(path=str(SHOTS / "live-host-racks.png"), full_page=True)

    expected = ["-18", "-19", "37"]
    with host.expect_navigation():
        host.click("#confirm")
    saved = time.monotonic()
    waits = {}
    for name, page in (("host", host), ("Ana", ana), ("Ben", ben)):
        page.wait_for_function(
            "want => [...document.querySelectorAll('#tally thead .totals td')]"
            ".map(td => td.textContent.trim()).join(' ') === want",
            arg=" ".join(expected),
            timeout=5_000,
            polling=20,
        )
        waits[name] = time.monotonic() - saved
    assert all(took < 1.0 for took in waits.values()), waits
    for page in (host, ana, ben):
        assert totals(page) == expected
    # the players' cards moved on to the next hand, empty
    for page in (ana, ben):
        expect(page.locator("#my-rack-title")).to_contain_text("hand 2")
        expect(page.locator("#my-rack .meld .chip[data-piece]")).to_have_count(0)
    ana.screenshot(path=str(SHOTS / "live-player-after-save.png"), full_page=True)
    print(f"tally on the three phones after the save: {waits}")
    problems = {"host": axe_problems(host), "player": axe_problems(ana)}
    host.locator("#phone-0 summary").click()
    problems["host, QR open"] = axe_problems(host)
    assert not any(problems.values()), problems


def test_a_revoked_phone_loses_its_rack_card_live(phones: Any, server: str) -> None:
    game = call(server, "POST", "/api/games", {"game": "rummikub", "players": ["Ana", "Ben"]})
    host = phones()
    host.goto(game["links"]["edit"])
    link = decode_qr(host, 1)
    ben = phones()
    ben.goto(link)
    expect(ben.locator("#my-rack")).to_be_visible()
    with host.expect_navigation():
        host.locator("#phone-1 .revoke").click()
    expect(ben.locator("#seat-revoked")).to_be_visible()  # live, without a reload
    expect(ben.locator("#my-rack")).to_have_count(0)
    assert decode_qr(host, 1) != link
    answer = ben.goto(link)
    assert answer is not None and answer.status == 403
    assert "new one" in ben.locator("main").inner_text()
    phones.errors.remove(  # the refusal under test, not a failed load
        "Failed to load resource: the server responded with a status of 403 (FORBIDDEN)"
    )
