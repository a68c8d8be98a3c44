"""What the browser tests share (``tests/webapp/test_*phone*.py``, ``test_webapp_e2e.py``):
Debian's chromium driven by Playwright, the app served in-process, and the steps every page test
takes (call the API, upload a photo, wait for a verdict, scan with axe-core, take a screenshot).

The fixtures built on these (``chromium_browser``, ``new_page``, ``serve_app``) are in
``tests/webapp/conftest.py``. This folder is on pytest's ``pythonpath`` (pyproject.toml), so a
test module imports this one by name.

In CI (``CI=true``) nothing is skipped: a missing Playwright or chromium fails the run instead of
hiding; elsewhere the browser tests are skipped with the reason.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = ROOT / "test-output" / "webapp"
PHONE = {"width": 390, "height": 844}
# a browser context on a touch phone of that size
PHONE_CONTEXT = {"viewport": PHONE, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}
IN_CI = os.environ.get("CI") == "true"

if IN_CI:
    import playwright.sync_api as playwright_api
else:
    playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")

expect = playwright_api.expect

# every browser test module's marks: slow, and skipped (outside CI) without chromium
BROWSER_MARKS = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not IN_CI and not Path(CHROMIUM).exists(),
        reason="chromium missing: apt-get install chromium",
    ),
]


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """The Flask ``app`` served on a free loopback port, in a thread; yields its address."""
    from werkzeug.serving import make_server

    http = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{http.server_port}"
    finally:
        http.shutdown()


def call(server: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    """The JSON API: ``method path`` with ``body`` as JSON and the game's edit token."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["X-Edit-Token"] = token
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server + path, data, headers, method=method)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def shot(page: Any, name: str) -> None:
    """A full-page screenshot to ``test-output/webapp/<name>.png``, to look at."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def judged_after(page: Any, before: str | None) -> None:
    """Wait until the page has finished judging a newer change than ``before``."""
    page.wait_for_function(
        "b => document.body.dataset.judged && document.body.dataset.judged !== b", arg=before
    )


def upload(page: Any, board: Any, photo: Path) -> dict[str, Any]:
    """Choose ``photo`` on ``board``; return what /api/recognise answered, once the page has
    judged it."""
    page.wait_for_load_state("load")  # the page's first judgement is not taken for this one's
    before = page.evaluate("document.body.dataset.judged || null")
    with page.expect_response(lambda r: r.url.endswith("/api/recognise")) as answer:
        board.locator(".photo-file").set_input_files(str(photo))
    assert answer.value.status == 200, answer.value.text()
    judged_after(page, before)
    return dict(answer.value.json())


def axe_problems(page: Any) -> list[str]:
    """axe-core's serious and critical violations on the page as it stands."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:5]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def plain_photos(folder: Path, widths: list[int], name: str = "photo") -> dict[int, Path]:
    """Plain 300 px high photos, one per width (a stand-in recogniser reads by the width)."""
    from PIL import Image

    made = {}
    for width in widths:
        path = folder / f"{name}-{width}.png"
        Image.new("RGB", (width, 300), (196, 170, 140)).save(path)
        made[width] = path
    return made


def stand_in_answer(kind: str, labels: list[tuple[str, bool]], alternatives: list) -> dict:
    """A recogniser's answer: ``labels`` ((label, sure), ...) in a row, as one meld."""
    pieces = [
        {
            "label": label,
            "bbox": [20 + 70 * i, 40, 80 + 70 * i, 130],
            "confidence": 0.95 if sure else 0.5,
            "alternatives": alternatives,
            "sure": sure,
        }
        for i, (label, sure) in enumerate(labels)
    ]
    return {"kind": kind, "pieces": pieces, "melds": [list(range(len(pieces)))]}
