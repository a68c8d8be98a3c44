"""End to end in a real browser: Playwright driving Debian's chromium (no browser download).

The app runs in-process (werkzeug ``make_server`` on port 0, in a thread) on the REAL
recognisers: ``vision.api.get_recogniser(kind)`` for tiles, dominoes and cards, the shipped ONNX
models run by onnxruntime. A real photo from ``../shared/realdata/dev`` (tiles), a rendered photo
of dominoes (``datasets.dominoes_synth.render_test_layout``, for a Remino double-nine game) and
rendered card fans (``datasets.cards_synth.render_test_layout``, for a Gin game) are uploaded
through the page's file input. The models may be retrained at any time, so the tests never
assume a reading: they take what ``/api/recognise`` answered, check that the page draws exactly
that, and check every verdict and score on the page against the scorer run directly on the
pieces shown. The correction step fixes a piece the model misread (against the photo's
ground-truth labels) or, when it read every piece right, changes one to another valid piece
chosen so that its meld's verdict flips.

The only stand-in: ``test_photo_reader_missing_leaves_tapping`` needs a kind of piece with no
photo reader, so it runs on its own server whose factory (``no_domino_reader``) declares
dominoes unreadable; every other test uses the real readers.

Screenshots go to ``test-output/webapp/``; look at them. Skipped, with the reason, when chromium,
Playwright, the models of the kind a test reads or the real photos are missing here; in CI
(``CI=true``) nothing is skipped, so a missing install step fails the run instead of hiding.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_pages import (
    BROWSER_MARKS,
    IN_CI,
    ROOT,
    call,
    judged_after,
    playwright_api,
    serving,
    shot,
)
from browser_pages import upload as upload_photo

from scorer import api as scorer_api
from scorer.errors import MeldcamError

REALDATA_PLACES = (ROOT.parent / "shared/realdata/dev", Path("/work/shared/realdata/dev"))
REALDATA = next((p for p in REALDATA_PLACES if p.is_dir()), None)
PHOTO = "rk_rbf_rummy4-13"  # two runs: red 5-7, blue 3-7 (CC BY 4.0, conner-replogle)
FULL_TABLE = "rk_rbf_rummy-2"  # 54 tiles in four rows and two jokers, 1000 x 750
MODELS = [ROOT / "models/tile_detector.onnx", ROOT / "models/tile_classifier.onnx"]
DOMINO_MODELS = [ROOT / "models/domino_detector.onnx", ROOT / "models/domino_reader.onnx"]
CARD_MODELS = [ROOT / "models/card_detector.onnx", ROOT / "models/card_reader.onnx"]
GAME = "rummikub"

pytestmark = [
    *BROWSER_MARKS,
    pytest.mark.skipif(
        not IN_CI and REALDATA is None, reason="real photos (../shared/realdata/dev) missing"
    ),
    pytest.mark.skipif(
        not IN_CI and not all(m.exists() for m in MODELS),
        reason="tile models missing: python -m training.train_tiles --out models",
    ),
]


def needs_models(models: list[Path], kind: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(
        not IN_CI and not all(m.exists() for m in models),
        reason=f"{kind} models missing: python -m training.train_pieces --kind {kind} --out models",
    )


def recogniser_for(kind: str) -> Any:
    """The real recogniser of every kind."""
    from vision.api import get_recogniser

    return get_recogniser(kind)


def no_domino_reader(kind: str) -> Any:
    """The one stand-in (see above): dominoes declared unreadable, for the test of a page whose
    kind of piece has no photo reader; every other kind is read for real."""
    from webapp.photos import RecogniserMissing

    if kind == "dominoes":
        raise RecogniserMissing(f"photos of {kind} cannot be read yet: enter the pieces by tapping")
    return recogniser_for(kind)


def overlap(a: list[float], b: list[float]) -> float:
    """Intersection over union of two boxes."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    if width <= 0 or height <= 0:
        return 0.0
    inter = width * height
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def misreads(read: dict[str, Any], truth: dict[str, Any]) -> dict[int, str]:
    """Index -> the true label, for each read box on a labelled piece that the model misread
    (cards: each corner index the card was read from, against the labelled indices)."""
    scale = read["photo"]["width"] / truth["image_size"][0]
    wrong = {}
    for i, piece in enumerate(read["pieces"]):
        for seen in piece.get("corners") or [piece["bbox"]]:
            for labelled in truth["pieces"]:
                box = [v * scale for v in labelled["bbox"]]
                if overlap(seen, box) >= 0.5 and piece["label"] != labelled["label"]:
                    wrong[i] = labelled["label"]
    return wrong


def page_melds(read: dict[str, Any]) -> list[list[int]]:
    """The groups the page shows: the recogniser's melds, then its loose pieces as one more."""
    melds = [list(m) for m in read["melds"] if m]
    placed = {i for meld in melds for i in meld}
    loose = [i for i in range(len(read["pieces"])) if i not in placed]
    return melds + ([loose] if loose else [])


def expect_board_shows(board: Any, labels: list[str], sure: list[bool] | None = None) -> None:
    """The photo board shows one box, one tag and one meld chip per piece read, in order; the
    pieces the recogniser did not flag ``sure`` (and only those) are marked to confirm."""
    expect = playwright_api.expect
    boxes = board.locator("svg.boxes g.box")
    expect(boxes).to_have_count(len(labels))
    for i, label in enumerate(labels):
        expect(boxes.nth(i)).to_have_attribute("data-piece", label)
    expect(board.locator("svg.boxes g.tag")).to_have_count(len(labels))
    expect(board.locator(".meld .chip[data-piece]")).to_have_count(len(labels))
    if sure is not None:
        marked = re.compile(r"(^|\s)unsure(\s|$)")
        for i, flag in enumerate(sure):
            if flag:
                expect(boxes.nth(i)).not_to_have_class(marked)
            else:
                expect(boxes.nth(i)).to_have_class(marked)
        expect(board.locator(".meld .chip.unsure")).to_have_count(sure.count(False))


def judge(
    labels: list[str], groups: list[list[int]], game: str = GAME, options: Any = None
) -> tuple[list[bool | None], str, str]:
    """What the scorer says, run directly: each meld valid or not (None: the scorer refused the
    pieces), and where the page shows the table's verdict or the scorer's error about the pieces,
    with words it must contain."""
    melds = [[labels[i] for i in group] for group in groups]
    try:
        valid: list[bool | None] = [
            v["valid"] for v in scorer_api.check(game, options, melds)["melds"]
        ]
    except MeldcamError as error:  # e.g. a domino read twice in a single-copy set
        return [None] * len(groups), "#verdict-error", str(error)
    try:
        table = scorer_api.table(game, options, labels)
    except MeldcamError as error:  # e.g. the model read a third copy of a tile
        return valid, "#verdict-error", str(error)
    words = f"All {len(labels)} pieces" if table["valid"] else "cannot all be laid out"
    return valid, "#table-verdict", words


def flip_candidate(
    labels: list[str],
    groups: list[list[int]],
    choices: list[str],
    game: str = GAME,
    options: Any = None,
) -> tuple[int, str, bool]:
    """A piece and another valid piece for it, chosen so that its meld's verdict flips if one
    single change can do that (``True``); else the first piece and any other piece."""

    def valid(meld: list[str]) -> bool | None:
        try:
            return bool(scorer_api.check(game, options, [meld])["valid"])
        except MeldcamError:  # a piece twice in a single-copy set: no verdict to flip
            return None

    for group in groups:
        meld = [labels[i] for i in group]
        now = valid(meld)
        for position, index in enumerate(group):
            for name in choices:
                if name == labels[index] or now is None:
                    continue
                changed = [*meld[:position], name, *meld[position + 1 :]]
                if valid(changed) not in (now, None):
                    return index, name, True
    return 0, next(name for name in choices if name != labels[0]), False


@pytest.fixture(scope="module")
def truth() -> dict[str, Any]:
    assert REALDATA is not None
    return dict(json.loads((REALDATA / f"{PHOTO}.json").read_text()))


def serving_with(factory: Any, instance: Path) -> Any:
    """The app with this recogniser factory on an instance folder, served on a free port."""
    from webapp import create_app

    return serving(create_app({"INSTANCE_PATH": str(instance), "RECOGNISER_FACTORY": factory}))


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    recogniser_for("tiles")  # load the models now, not inside the first upload's timeout
    with serving_with(recogniser_for, tmp_path_factory.mktemp("instance")) as address:
        yield address


@pytest.fixture
def server_without_domino_reader(tmp_path: Path) -> Iterator[str]:
    with serving_with(no_domino_reader, tmp_path / "instance") as address:
        yield address


@pytest.fixture
def tab(new_page) -> Any:
    # a 4xx answer (a hand not yet complete) is logged as a failed load; that is expected
    return new_page(
        ignore_console=lambda m: m.text.startswith("Failed to load resource"),
        timeout_ms=20_000,  # the recogniser shares 2 cores with the test run
        viewport={"width": 412, "height": 915},
        accept_downloads=True,
    )


def upload(page: Any, board: Any, photo: Path) -> dict[str, Any]:
    """Choose the photo on ``board``; return what /api/recognise answered, once judged."""
    read = upload_photo(page, board, photo)
    assert read["pieces"], f"the model found no piece on {photo.name}"
    return read


def correct(page: Any, board: Any, index: int, name: str) -> None:
    """Tap box ``index`` on ``board`` and pick ``name``; wait for the new verdict."""
    # the tag: boxes of tiles seen at an angle overlap, tags are drawn above every box
    board.locator(f"svg.boxes g.tag[data-index='{index}']").click()
    playwright_api.expect(page.locator("#picker")).to_be_visible()
    before = page.evaluate("document.body.dataset.judged")
    page.click(f"#picker-pieces [data-piece='{name}']")
    judged_after(page, before)


def confirm_unsure(page: Any, board: Any) -> None:
    """One tap confirms the pieces the reader was not sure of (a hand is saved only then)."""
    button = board.locator(".to-confirm .confirm-all")
    if button.is_visible():
        before = page.evaluate("document.body.dataset.judged")
        button.click()
        judged_after(page, before)
    playwright_api.expect(board.locator(".chip.unsure")).to_have_count(0)


def expect_verdicts(page: Any, valid: list[bool | None], where: str, words: str) -> None:
    expect = playwright_api.expect
    melds = page.locator("#board .meld")
    expect(melds).to_have_count(len(valid))
    for m, ok in enumerate(valid):
        if ok is None:  # the scorer refused the pieces: no meld is marked either way
            expect(melds.nth(m)).to_have_class(re.compile(rf"^meld m{m % 6}\s*$"))
        else:
            expect(melds.nth(m)).to_have_class(f"meld m{m % 6} {'valid' if ok else 'invalid'}")
    expect_plain_text(page, where, words)


# the page's text with each piece shown as its chip (a coloured "5", "K♠") read back as the piece
# name the scorer uses, so the scorer's own messages can be looked for in it
PLAIN_TEXT = """([where, words]) => {
  const node = document.querySelector(where);
  if (!node) return false;
  const copy = node.cloneNode(true);
  copy.querySelectorAll(".face").forEach((face) => face.replaceWith(face.dataset.piece));
  return copy.textContent.includes(words);
}"""


def expect_plain_text(page: Any, where: str, words: str) -> None:
    playwright_api.expect(page.locator(where)).to_be_visible()
    page.wait_for_function(PLAIN_TEXT, arg=[where, words])


def test_game_photo_correct_save_tally_undo_export(tab: Any, server: str, truth) -> None:
    page = tab
    expect = playwright_api.expect
    photo = REALDATA / f"{PHOTO}.jpg"  # type: ignore[operator]

    # 1. new game
    page.goto(server + "/")
    page.check(f"input[name=game][value={GAME}]")
    page.fill("input[name=player-0]", "Ana")
    page.fill("input[name=player-1]", "Ben")
    shot(page, "01-new-game")
    page.click("button[type=submit].primary")
    expect(page.locator("#share")).to_be_visible()
    expect(page.locator("#next")).to_contain_text("Ana deals")
    shot(page, "02-game-created")
    game_url = page.url

    # 2. check a meld from the photo: the boxes the model read, each meld judged as the scorer does
    page.click("#check-meld")
    board = page.locator("#board")
    read = upload(page, board, photo)
    labels = [p["label"] for p in read["pieces"]]
    groups = page_melds(read)
    expect_board_shows(board, labels, [p["sure"] for p in read["pieces"]])
    expect_verdicts(page, *judge(labels, groups))
    shot(page, "03-check-photo-read")

    # correct a piece: a misread one to its true label, else one that flips its meld's verdict
    wrong = misreads(read, truth)
    board.locator("svg.boxes g.tag[data-index='0']").click()
    expect(page.locator("#picker")).to_be_visible()
    choices = page.locator("#picker-pieces [data-piece]").evaluate_all(
        "nodes => nodes.map(n => n.dataset.piece)"
    )
    assert len(choices) == 4 * 13 + 1, "rummikub picker: 52 tiles and the joker"
    shot(page, "04-picker")
    page.click("#picker-close")
    expect(page.locator("#picker")).to_be_hidden()  # closed before the next tag is tapped
    if wrong:
        index, name = next(iter(wrong.items()))
        flips = False
    else:
        index, name, flips = flip_candidate(labels, groups, choices)
    before = judge(labels, groups)[0]
    labels[index] = name
    correct(page, board, index, name)
    expect(board.locator("svg.boxes g.box.corrected")).to_have_count(1)
    expect(board.locator("svg.boxes g.box.corrected")).to_have_attribute("data-piece", name)
    expect(board.locator(f"svg.boxes g.tag.corrected[data-index='{index}']")).to_have_count(1)
    after = judge(labels, groups)
    expect_verdicts(page, *after)
    if flips:  # the changed meld's verdict flipped, and the page (checked above) shows it
        assert after[0] != before
    shot(page, "05-check-corrected")

    # 3. end of hand: Ana went out; Ben's rack from the same photo, misreads corrected
    page.goto(game_url)
    page.click("#end-hand")
    page.select_option("#winner", "Ana")
    ben = page.locator(".player-board[data-player=Ben]")
    read = upload(page, ben, photo)
    expect(ben.locator("svg.boxes g.box")).to_have_count(len(read["pieces"]))
    for index, name in misreads(read, truth).items():
        correct(page, ben, index, name)
    confirm_unsure(page, ben)
    rack = ben.locator(".chip[data-piece]").evaluate_all("nodes => nodes.map(n => n.dataset.piece)")
    assert len(rack) == len(read["pieces"])
    hand = {"players": ["Ana", "Ben"], "winner": "Ana", "racks": {"Ana": [], "Ben": rack}}
    scored = scorer_api.score(GAME, {}, hand)
    gain = scored["deltas"]["Ana"]
    assert gain > 0 and scored["deltas"]["Ben"] == -gain
    expect(page.locator("#preview-result")).to_contain_text(f"+{gain}")
    expect(page.locator("#confirm")).to_be_enabled()
    shot(page, "06-end-of-hand")
    page.click("#confirm")

    # 4. tally
    page.wait_for_url(game_url)
    expect(page.locator("#tally tbody tr")).to_have_count(1)
    expect(page.locator("#tally .totals")).to_contain_text(str(gain))
    expect(page.locator("#tally .totals")).to_contain_text(str(-gain))
    expect(page.locator("#chart polyline")).to_have_count(2)
    expect(page.locator("#next")).to_contain_text("Ben deals")
    shot(page, "07-tally")

    # 5. export CSV
    with page.expect_download() as download_info:
        page.click("#export-csv")
    rows = list(csv.reader(io.StringIO(Path(download_info.value.path()).read_text())))
    assert rows[0][:5] == ["hand", "outcome", "winner", "Ana", "Ben"]
    assert rows[1][:5] == ["1", "out", "Ana", str(gain), str(-gain)]

    # 6. undo (it asks first)
    page.click("#undo")
    page.click("#undo-yes")
    page.wait_for_url(game_url)
    expect(page.locator("#tally tbody")).to_contain_text("No hands yet")
    shot(page, "08-after-undo")


def test_a_full_table_stays_readable(tab: Any, server: str) -> None:
    """A photo of a whole table (about 50 small tiles): every piece gets a box and a tag, the
    tags stay at least 11 screen pixels high and hardly cover one another."""
    page = tab
    expect = playwright_api.expect
    page.goto(server + "/check?game=rummikub")
    board = page.locator("#board")
    read = upload(page, board, REALDATA / f"{FULL_TABLE}.jpg")  # type: ignore[operator]
    expect(board.locator("svg.boxes g.box")).to_have_count(len(read["pieces"]))
    tags = board.locator("svg.boxes g.tag rect").evaluate_all(
        "nodes => nodes.map(n => { const r = n.getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; })"
    )
    assert len(tags) == len(read["pieces"])
    assert min(bottom - top for _, top, _, bottom in tags) >= 11 * 1.25 - 0.5
    covered = [
        (i, j) for i, a in enumerate(tags) for j, b in enumerate(tags[:i]) if overlap(a, b) > 0.25
    ]
    assert len(covered) <= len(tags) // 20, f"tags covering each other: {covered}"
    shot(page, "13-full-table")


def test_pieces_tapped_in_without_a_photo(tab: Any, server: str) -> None:
    page = tab
    expect = playwright_api.expect
    page.goto(server + "/check?game=rummikub")
    for piece in ("red-1", "red-2", "red-4"):
        before = page.evaluate("document.body.dataset.judged || null")
        page.click("#board .meld .chip.add")
        page.click(f"#picker-pieces [data-piece='{piece}']")
        page.click("#picker-close")  # the picker stays open for more pieces (issue 71)
        judged_after(page, before)
    expect(page.locator("#board .meld.invalid .meld-verdict")).to_contain_text("✗")
    before = page.evaluate("document.body.dataset.judged")
    page.click("#board .meld .chip[data-piece='red-4']")
    page.click("#picker-pieces [data-piece='red-3']")
    judged_after(page, before)
    expect(page.locator("#board .meld.valid .meld-verdict")).to_contain_text("legal run")
    page.check("#opening")
    expect(page.locator("#opening-verdict")).to_contain_text("not an opening")
    shot(page, "09-tapped-in")


def test_read_only_visitor_sees_no_edit_controls(
    chromium_browser: Any, tab: Any, server: str
) -> None:
    page = tab
    expect = playwright_api.expect
    page.goto(server + "/")
    page.fill("input[name=player-0]", "Ana")
    page.fill("input[name=player-1]", "Ben")
    page.click("button[type=submit].primary")
    read_link = page.locator("#read-link").get_attribute("href")
    other = chromium_browser.new_context().new_page()
    other.goto(read_link)
    expect(other.locator("h1")).to_contain_text("Rummikub")
    expect(other.locator("#end-hand")).to_have_count(0)
    expect(other.locator("#edit-link")).to_have_count(0)
    other.context.close()


GIN_A = ["AH", "2H", "3H", "4S", "5S", "6S", "7D", "8D", "9D", "KC"]
GIN_B = ["AC", "2C", "3C", "4C", "5D", "6D", "7H", "8H", "9H", "QS"]


def test_gin_hand_edited_through_the_edit_link(tab: Any, server: str) -> None:
    """A game made through the API, claimed in the browser by its edit link; hand 1 edited."""
    expect = playwright_api.expect
    page = tab
    game = call(server, "POST", "/api/games", {"game": "gin", "players": ["Ana", "Ben"]})
    hand = {"knocker": "Ana", "hands": {"Ana": GIN_A, "Ben": GIN_B}}
    call(server, "POST", f"/api/games/{game['id']}/hands", {"hand": hand}, game["edit_token"])
    page.goto(game["links"]["edit"])
    expect(page.locator("#end-hand")).to_be_visible()
    page.click("#tally tbody a")  # edit hand 1
    expect(page.locator("h1")).to_contain_text("Edit hand 1")
    expect(page.locator(".player-board[data-player=Ana] .chip[data-piece]")).to_have_count(10)
    expect(page.locator("#confirm")).to_be_enabled()
    page.select_option("#knocker", "Ben")  # Ben holds 21 deadwood: he cannot knock
    expect(page.locator("#preview-error")).to_be_visible()
    expect(page.locator("#confirm")).to_be_disabled()
    shot(page, "10-gin-cannot-knock")
    page.select_option("#knocker", "Ana")
    expect(page.locator("#preview-error")).to_be_hidden()
    expect(page.locator("#confirm")).to_be_enabled()
    shot(page, "11-gin-edit-hand")
    page.click("#confirm")
    page.wait_for_url(server + f"/g/{game['id']}")
    expect(page.locator("#tally tbody tr")).to_have_count(1)
    state = call(server, "GET", f"/api/games/{game['id']}")
    assert state["hands"][0]["hand"]["knocker"] == "Ana"
    assert state["hands"][0]["updated_at"] is not None


def test_photo_reader_missing_leaves_tapping(tab: Any, server_without_domino_reader: str) -> None:
    """A kind with no photo reader (dominoes, declared so by this test's own factory): the page
    says so, shows the photo, and tapping still works."""
    expect = playwright_api.expect
    page = tab
    page.goto(server_without_domino_reader + "/check?game=remino")
    photo = REALDATA / f"{PHOTO}.jpg"  # type: ignore[operator]
    page.set_input_files("#board .photo-file", str(photo))
    expect(page.locator("#board .status")).to_contain_text("tapping")
    expect(page.locator("#board .photo-view")).to_be_visible()
    expect(page.locator("#board svg.boxes g.box")).to_have_count(0)
    for piece in ("3-8", "4-8", "5-8"):
        before = page.evaluate("document.body.dataset.judged || null")
        page.click("#board .meld .chip.add")
        page.click(f"#picker-pieces [data-piece='{piece}']")
        page.click("#picker-close")  # the picker stays open for more pieces (issue 71)
        judged_after(page, before)
    expect(page.locator("#board .meld.valid")).to_have_count(1)
    shot(page, "12-remino-tapped")


REMINO_ROWS = [["3-8", "8-8", "8-9"], ["0-5", "5-9", "9-9"]]


def write_jpeg(image_bgr: Any, path: Path) -> Path:
    """A rendered scene (BGR, as the generators give it) as the JPEG a phone would send."""
    import cv2

    assert cv2.imwrite(str(path), image_bgr, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path


def start_game(page: Any, server: str, game: str, options: dict[str, str]) -> str:
    """A new game made through the new-game page (Ana and Ben); returns the game's address."""
    page.goto(server + "/")
    page.check(f"input[name=game][value={game}]")
    for name, value in options.items():
        page.select_option(f"[name=opt-{game}-{name}]", value)
    page.fill("input[name=player-0]", "Ana")
    page.fill("input[name=player-1]", "Ben")
    page.click("button[type=submit].primary")
    playwright_api.expect(page.locator("#share")).to_be_visible()
    return str(page.url)


def page_options(page: Any) -> dict[str, Any]:
    """The game options the page sends to the scorer (the game's, as stored); waits for the
    hand page, which a click before this call may still be loading."""
    page.wait_for_selector("#setup", state="attached")
    return dict(page.evaluate("JSON.parse(document.getElementById('setup').textContent).options"))


def picker_choices(page: Any, board: Any) -> list[str]:
    board.locator("svg.boxes g.tag[data-index='0']").click()
    playwright_api.expect(page.locator("#picker")).to_be_visible()
    choices = page.locator("#picker-pieces [data-piece]").evaluate_all(
        "nodes => nodes.map(n => n.dataset.piece)"
    )
    page.click("#picker-close")
    return list(choices)


@needs_models(DOMINO_MODELS, "dominoes")
def test_remino_dominoes_read_from_a_photo(tab: Any, server: str, tmp_path: Path) -> None:
    """A Remino double-nine game: a rendered photo of two chains read by the real domino reader,
    for the game's set; the page draws what was answered and judges as the scorer does."""
    from datasets.dominoes_synth import render_test_layout

    page = tab
    expect = playwright_api.expect
    recogniser_for("dominoes")  # load the models now, not inside the upload's timeout
    image, labelled = render_test_layout(REMINO_ROWS)
    photo = write_jpeg(image, tmp_path / "remino-dominoes.jpg")
    truth = {
        "image_size": [image.shape[1], image.shape[0]],
        "pieces": [{"label": label, "bbox": box} for label, box in labelled],
    }

    start_game(page, server, "remino", {"set": "double-nine"})
    page.click("#check-meld")
    options = page_options(page)
    assert options["set"] == "double-nine"
    board = page.locator("#board")
    read = upload(page, board, photo)
    assert read["kind"] == "dominoes"
    labels = [p["label"] for p in read["pieces"]]
    # the reader was given the game's set: nothing above 9 pips, whatever it read
    assert all(max(int(half) for half in label.split("-")) <= 9 for label in labels), labels
    groups = page_melds(read)
    expect_board_shows(board, labels, [p["sure"] for p in read["pieces"]])
    expect_verdicts(page, *judge(labels, groups, "remino", options))
    shot(page, "14-remino-dominoes-read")

    choices = picker_choices(page, board)
    assert len(choices) == 55, "a double-nine picker: 55 dominoes"
    wrong = misreads(read, truth)
    if wrong:
        index, name = next(iter(wrong.items()))
        flips = False
    else:
        index, name, flips = flip_candidate(labels, groups, choices, "remino", options)
    before = judge(labels, groups, "remino", options)[0]
    labels[index] = name
    correct(page, board, index, name)
    expect(board.locator("svg.boxes g.box.corrected")).to_have_attribute("data-piece", name)
    after = judge(labels, groups, "remino", options)
    expect_verdicts(page, *after)
    if flips:
        assert after[0] != before
    shot(page, "15-remino-dominoes-corrected")


@needs_models(CARD_MODELS, "cards")
def test_gin_hands_read_from_card_fans(tab: Any, server: str, tmp_path: Path) -> None:
    """A Gin game's end of hand: each player's ten cards photographed as a fan (rendered) and
    read by the real card reader; misreads corrected against the rendered labels; the page's
    scores are the scorer's on the cards shown, and the hand is saved."""
    from datasets.cards_synth import render_test_layout

    page = tab
    expect = playwright_api.expect
    recogniser_for("cards")  # load the models now, not inside the upload's timeout
    game_url = start_game(page, server, "gin", {})
    page.click("#end-hand")
    options = page_options(page)
    page.select_option("#knocker", "Ana")
    hands: dict[str, list[str]] = {}
    for player, cards in (("Ana", GIN_A), ("Ben", GIN_B)):
        scene = render_test_layout(cards, layout="fan")  # one deck at the table: one style
        photo = write_jpeg(scene.image, tmp_path / f"gin-{player}.jpg")
        truth = {
            "image_size": [scene.image.shape[1], scene.image.shape[0]],
            "pieces": [
                {"label": card.label, "bbox": list(corner.box)}
                for card in scene.cards
                for corner in card.corners
            ],
        }
        board = page.locator(f".player-board[data-player={player}]")
        read = upload(page, board, photo)
        assert read["kind"] == "cards"
        labels = [p["label"] for p in read["pieces"]]
        boxes = board.locator("svg.boxes g.box")
        expect(boxes).to_have_count(len(labels))
        for i, label in enumerate(labels):
            expect(boxes.nth(i)).to_have_attribute("data-piece", label)
        shot(page, f"16-gin-{player.lower()}-read")
        for index, name in misreads(read, truth).items():
            correct(page, board, index, name)
            labels[index] = name
        confirm_unsure(page, board)
        chips = board.locator(".chip[data-piece]").evaluate_all(
            "nodes => nodes.map(n => n.dataset.piece)"
        )
        assert sorted(chips) == sorted(labels)
        hands[player] = chips

    hand = {"players": ["Ana", "Ben"], "knocker": "Ana", "hands": hands}
    try:
        scored = scorer_api.score("gin", options, hand)
    except MeldcamError as error:  # e.g. a card the reader missed: the page must say so too
        expect_plain_text(page, "#preview-error", str(error))
        expect(page.locator("#confirm")).to_be_disabled()
        shot(page, "17-gin-cards-scored")
        return
    expect(page.locator("#preview-error")).to_be_hidden()
    for player, delta in scored["deltas"].items():
        shown = f"+{delta}" if delta > 0 else str(delta)
        row = page.locator("#preview-result tr", has=page.locator(f"th:text-is('{player}')"))
        expect(row.locator("td.delta")).to_have_text(shown)
    expect(page.locator("#confirm")).to_be_enabled()
    shot(page, "17-gin-cards-scored")
    page.click("#confirm")
    page.wait_for_url(game_url)
    expect(page.locator("#tally tbody tr")).to_have_count(1)
    for delta in scored["deltas"].values():
        expect(page.locator("#tally .totals")).to_contain_text(str(delta))
