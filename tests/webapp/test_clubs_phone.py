"""A club's page on a 390 px phone (issue 68), in Debian's chromium through Playwright: the
leaderboards and each player's charts fit without sideways scrolling, the charts' text stays
readable, and axe-core finds no serious or critical violation. Screenshots go to
``test-output/webapp/`` as ``club-*.png``.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from browser_pages import BROWSER_MARKS, PHONE_CONTEXT, axe_problems, call, expect, serving, shot

pytestmark = BROWSER_MARKS

LONG = ["Alexandra Konstantinopoulou", "Bartholomew Fitzgerald-Smythe", "Dobromiła Wierzbięta"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from webapp import create_app

    app = create_app({"INSTANCE_PATH": str(tmp_path_factory.mktemp("instance"))})
    with serving(app) as address:
        yield address


def club_call(server: str, path: str, body: Any, token: str) -> Any:
    request = urllib.request.Request(
        server + path,
        json.dumps(body).encode(),
        {"Content-Type": "application/json", "X-Club-Token": token},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def played_club(server: str) -> dict[str, Any]:
    """A club of three long names with two Remik matches and a Rummikub match."""
    club = call(server, "POST", "/api/clubs", {"name": "Czwartkowy klub", "players": LONG})
    a, b, c = LONG
    for game, options, players, hands in (
        ("remik", {"hands": 2}, [a, b, c], [(a, {b: ["red-6"], c: ["blue-6"]}),
                                            (b, {a: ["red-2"], c: ["red-4"]})]),
        ("remik", {"hands": 2}, [b, c], [(c, {b: ["red-9"]}), (b, {c: ["blue-3"]})]),
        ("rummikub", {"target": 30}, [c, a, b], [(a, {c: ["red-10"], b: ["blue-13"]})]),
    ):  # fmt: skip
        body = {"club": club["id"], "game": game, "options": options, "players": players}
        match = club_call(server, "/api/games", body, club["edit_token"])
        for winner, racks in hands:
            sent = {"winner": winner, "racks": {p: racks.get(p, []) for p in players}}
            call(server, "POST", f"/api/games/{match['id']}/hands", {"hand": sent},
                 match["edit_token"])  # fmt: skip
    return dict(club)


FITS = """() => {
  const boxes = [...document.querySelectorAll('.leaderboard, .club-chart')]
    .map(n => n.getBoundingClientRect());
  const labels = [...document.querySelectorAll('.club-chart .axis-label')]
    .map(n => n.getBoundingClientRect().height);
  return {scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
          right: Math.max(...boxes.map(b => b.right)), left: Math.min(...boxes.map(b => b.left)),
          narrowest: Math.min(...[...document.querySelectorAll('.club-chart')]
            .map(n => n.getBoundingClientRect().width)),
          smallest_text: Math.min(...labels)};
}"""


def test_the_club_page_fits_a_390_px_phone_and_passes_axe(new_page: Any, server: str) -> None:
    page = new_page(**PHONE_CONTEXT)
    club = played_club(server)
    page.goto(club["links"]["edit"])
    expect(page.locator(".leaderboard")).to_have_count(2)
    expect(page.locator(".average-chart")).to_have_count(3)
    expect(page.locator(".wins-chart")).to_have_count(3)
    fits = page.evaluate(FITS)
    assert fits["scroll"] <= fits["inner"] == 390, f"the page scrolls sideways: {fits}"
    assert fits["left"] >= 0 and fits["right"] <= 390, f"a table or chart sticks out: {fits}"
    assert fits["narrowest"] >= 300, f"a chart is too small to read: {fits}"
    assert fits["smallest_text"] >= 10, f"a chart's text is too small to read: {fits}"
    label = page.locator(".average-chart").first.get_attribute("aria-label") or ""
    assert label.startswith(f"{LONG[0]}: average points per hand after each match: ")
    shot(page, "club-390px-editor")
    found = {"club (editor)": axe_problems(page)}
    page.context.clear_cookies()
    page.goto(club["links"]["read"])
    expect(page.locator("#club-match")).to_have_count(0)
    found["club (viewer)"] = axe_problems(page)
    page.goto(club["links"]["read"] + "?lang=pl&since=2026-01-01")
    found["club (pl, a period)"] = axe_problems(page)
    shot(page, "club-390px-viewer-pl")
    page.goto(server + "/clubs")
    found["new club"] = axe_problems(page)
    assert not any(found.values()), {k: v for k, v in found.items() if v}
