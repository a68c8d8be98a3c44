"""Round trip photo -> verdict through the web app, on the real tile recogniser.

Two measurements per real Rummikub photo (all ``rk_*`` table photos of ``--photos`` by default):

- on the page: Debian's chromium (Playwright) on the check page; from choosing the file (the
  page downscales it, uploads it, draws the boxes and asks for the verdicts) until the verdict
  is on screen. This is the figure the issue asks for (target: median <= 1 s on 2 cores).
- API: ``POST /api/recognise`` (upload checked, stored, read by the shared recogniser), then
  ``POST /api/check`` (the recognised melds) and ``POST /api/table`` (all pieces), through
  Flask's test client in one process: the server's part of the same round trip.

    .venv/bin/python -m benchmarks.bench_webapp [--photos DIR] [--limit N] [--no-browser]

The recogniser is ``vision.api.get_recogniser("tiles")`` (the shipped ONNX models); without it
the benchmark stops, unless ``--stand-in`` asks for a stand-in that answers the photo's labels
(the web layer's own cost). The machine's load (``os.getloadavg``) is printed before and after:
other work on the same cores slows every figure.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from webapp import create_app

ROOT = Path(__file__).resolve().parents[1]

PLACES = (ROOT.parent / "shared/realdata/dev", Path("/work/shared/realdata/dev"))
DEFAULT_PHOTOS = next((p for p in PLACES if p.is_dir()), PLACES[0])


class LabelsRecogniser:
    """Stand-in: answers the labels of the photo being uploaded (set in ``upcoming``)."""

    def __init__(self) -> None:
        self.upcoming: dict[str, Any] = {"pieces": []}

    def recognise(
        self,
        image: bytes,
        channels: str = "rgb",
        set_name: str | None = None,
        untold: str | None = None,
    ) -> dict[str, Any]:
        labels = self.upcoming
        pieces = [
            {"label": p["label"], "bbox": p["bbox"], "confidence": 1.0, "alternatives": []}
            for p in labels["pieces"] or []
            if p.get("bbox")
        ]
        return {"kind": "tiles", "pieces": pieces, "melds": [list(range(len(pieces)))], "ms": 0}


def real_recogniser_available() -> str | None:
    """None when vision can read tiles here, else why not."""
    try:
        from vision import api as vision_api

        vision_api.get_recogniser("tiles")
    except Exception as error:  # any failure means: measure the web layer alone
        return f"{type(error).__name__}: {error}"
    return None


def photos(folder: Path, limit: int | None) -> list[tuple[Path, dict[str, Any]]]:
    found = []
    for label_file in sorted(folder.glob("rk_*.json")):
        labels = json.loads(label_file.read_text())
        photo = label_file.with_suffix(".jpg")
        if photo.exists() and labels.get("scene") == "table":
            found.append((photo, labels))
    return found[:limit]


def round_trip(client: Any, photo: bytes) -> tuple[float, int]:
    started = time.perf_counter()
    answer = client.post(
        "/api/recognise",
        data={"kind": "tiles", "photo": (io.BytesIO(photo), "photo.jpg")},
        content_type="multipart/form-data",
    )
    assert answer.status_code == 200, answer.json
    result = answer.json
    names = [p["label"] for p in result["pieces"]]
    melds = [[names[i] for i in meld] for meld in result["melds"] if meld]
    if melds:
        client.post("/api/check", json={"game": "rummikub", "melds": melds})
    if names:
        client.post("/api/table", json={"game": "rummikub", "pieces": names})
    return time.perf_counter() - started, len(names)


def browser_times(
    app: Any, chosen: list[tuple[Path, dict[str, Any]]], stand_in: LabelsRecogniser | None
) -> list[float]:
    from playwright.sync_api import sync_playwright
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    http = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    times = []
    try:
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path="/usr/bin/chromium")
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{http.server_port}/check?game=rummikub")
            # the first photo once more as a warm-up (page scripts, the first upload), not timed
            for n, (photo, labels) in enumerate([chosen[0], *chosen]):
                if stand_in:
                    stand_in.upcoming = labels
                before = page.evaluate("document.body.dataset.judged || ''")
                started = time.perf_counter()
                page.set_input_files("#board .photo-file", str(photo))
                page.wait_for_function(
                    "b => (document.body.dataset.judged || '') !== b", arg=before, timeout=60_000
                )
                if n:
                    times.append(time.perf_counter() - started)
            browser.close()
    finally:
        http.shutdown()
    return times


def summary(name: str, seconds: list[float]) -> str:
    ordered = sorted(seconds)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return (
        f"{name}: median {statistics.median(ordered) * 1000:.0f} ms, "
        f"p90 {p90 * 1000:.0f} ms, max {ordered[-1] * 1000:.0f} ms over {len(ordered)} photos"
    )


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--photos", type=Path, default=DEFAULT_PHOTOS)
    parser.add_argument("--limit", type=int, default=None, help="at most N photos (default: all)")
    parser.add_argument("--no-browser", action="store_true", help="skip the chromium timing")
    parser.add_argument(
        "--stand-in", action="store_true", help="time the web layer with a labels stand-in"
    )
    args = parser.parse_args()
    chosen = photos(args.photos, args.limit)
    if not chosen:
        print(f"no rummikub photos under {args.photos}", file=sys.stderr)
        return 2
    config: dict[str, Any] = {"INSTANCE_PATH": tempfile.mkdtemp(prefix="meldcam-bench-")}
    stand_in = LabelsRecogniser() if args.stand_in else None
    if stand_in:
        config["RECOGNISER_FACTORY"] = lambda kind: stand_in
        print("recogniser: a stand-in answering the photo's labels (the web layer alone)")
    else:
        why_not = real_recogniser_available()
        if why_not:
            print(f"the tile recogniser cannot run here: {why_not}", file=sys.stderr)
            return 2
        print("recogniser: vision.api tiles, the shipped ONNX models (loaded before timing)")
    print(f"before: {load()}")
    app = create_app(config)
    client = app.test_client()
    round_trip(client, chosen[0][0].read_bytes())  # warm-up: first request, imports
    times, pieces = [], []
    for photo, labels in chosen:
        if stand_in:
            stand_in.upcoming = labels
        seconds, count = round_trip(client, photo.read_bytes())
        times.append(seconds)
        pieces.append(count)
    print(
        f"photos: {len(chosen)} from {args.photos}; pieces read per photo: "
        f"median {statistics.median(pieces):.0f}, max {max(pieces)}"
    )
    print(summary("API round trip (recognise + check + table)", times))
    if not args.no_browser:
        on_page = browser_times(app, chosen, stand_in)
        print(summary("on the page (chromium: downscale, upload, boxes, verdict)", on_page))
    print(f"after: {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
