"""The live camera view's figures (issue 67): verdicts per second for one phone and for four
phones at once, per kind of piece, on the real readers, through HTTP.

Each "phone" does what ``webapp/static/livecam.js`` does: one frame in flight (a rendered
scene of that kind, 640 px long side, JPEG 80), the next sent when the answer has come; a 503
waits ``Retry-After`` seconds (the page slows down). Printed per kind and number of phones:
verdicts per second (all phones, and the slowest and fastest phone), the latency from frame
sent to answer (median, p95), the server's own time per frame (``frame.server_ms``), and the
503s and errors.

    .venv/bin/python -m benchmarks.bench_live_frames [--seconds 10] [--phones 1 4]
        [--kinds tiles tiles-photo dominoes cards]
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import cv2
import numpy as np

LONG_SIDE = 640


DEV_PHOTO = Path(__file__).resolve().parents[2] / "shared/realdata/dev/rk_rbf_rummy4-13.jpg"


def scene(kind: str) -> bytes:
    """A frame of ``kind`` as the phone sends it; ``tiles-photo``: a real photo of two runs
    (``../shared/realdata/dev``), the others rendered."""
    image: np.ndarray
    if kind == "tiles-photo":
        photo = cv2.imread(str(DEV_PHOTO))
        assert photo is not None, f"{DEV_PHOTO} missing"
        image = np.asarray(photo)
    elif kind == "tiles":
        from datasets.tiles_synth import render_test_layout as tiles

        image, _ = tiles([["red-5", "red-6", "red-7"], ["blue-3", "blue-4", "blue-5", "blue-6"]])
    elif kind == "dominoes":
        from datasets.dominoes_synth import render_test_layout as dominoes

        image, _ = dominoes([["3-4", "4-5", "5-6", "6-6"]])
    else:
        from datasets.cards_synth import render_test_layout as cards

        image = cards(["5H", "6H", "7H", "8H", "KS"]).image
    h, w = image.shape[:2]
    scale = min(1.0, LONG_SIDE / max(h, w))
    image = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return bytes(buffer.tobytes())


def multipart(kind: str, frame: bytes) -> tuple[bytes, str]:
    kind = kind.removesuffix("-photo")
    boundary = "meldcam-live-bench"
    out = io.BytesIO()
    out.write(
        f'--{boundary}\r\nContent-Disposition: form-data; name="kind"\r\n\r\n{kind}\r\n'.encode()
    )
    out.write(
        f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="f.jpg"\r\n'
        "Content-Type: image/jpeg\r\n\r\n".encode()
    )
    out.write(frame + f"\r\n--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


def phone(server: str, kind: str, frame: bytes, until: float, record: dict[str, list[Any]]) -> None:
    body, content_type = multipart(kind, frame)
    while time.perf_counter() < until:
        request = urllib.request.Request(
            server + "/api/frames", body, {"Content-Type": content_type}, method="POST"
        )
        sent = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                answer = json.loads(response.read())
            record["latency"].append(time.perf_counter() - sent)
            record["server"].append(float(answer["frame"]["server_ms"]))
            record["total"].append(float(answer["frame"]["total_ms"]))
            record["pieces"].append(len(answer["pieces"]))
        except urllib.error.HTTPError as error:
            if error.code == 503:
                record["busy"].append(1)
                time.sleep(float(error.headers.get("Retry-After") or 2))
            else:
                record["errors"].append(error.code)
                time.sleep(1)
        except OSError as error:
            record["errors"].append(str(error))
            time.sleep(1)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(fraction * len(ordered)) - 1)] if ordered else float("nan")


def run(server: str, kind: str, phones: int, seconds: float) -> dict[str, Any]:
    frame = scene(kind)
    phone(server, kind, frame, time.perf_counter() + 0.01, _record())  # warm the reader
    records = [_record() for _ in range(phones)]
    until = time.perf_counter() + seconds
    threads = [
        threading.Thread(target=phone, args=(server, kind, frame, until, r)) for r in records
    ]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    per_phone = [len(r["latency"]) / elapsed for r in records]
    latency = [x * 1000 for r in records for x in r["latency"]]
    server_ms = [x for r in records for x in r["server"]]
    total_ms = [x for r in records for x in r["total"]]
    return {
        "kind": kind,
        "phones": phones,
        "verdicts_per_s": sum(per_phone),
        "slowest_phone": min(per_phone),
        "fastest_phone": max(per_phone),
        "latency_median_ms": statistics.median(latency) if latency else float("nan"),
        "latency_p95_ms": percentile(latency, 0.95),
        "server_median_ms": statistics.median(server_ms) if server_ms else float("nan"),
        "server_total_median_ms": statistics.median(total_ms) if total_ms else float("nan"),
        "busy_503": sum(len(r["busy"]) for r in records),
        "errors": sum(len(r["errors"]) for r in records),
        "pieces": statistics.median([p for r in records for p in r["pieces"]] or [0]),
    }


def _record() -> dict[str, list[Any]]:
    return {"latency": [], "server": [], "total": [], "pieces": [], "busy": [], "errors": []}


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--phones", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--kinds", nargs="+", default=["tiles", "tiles-photo", "dominoes", "cards"])
    args = parser.parse_args(argv)

    from werkzeug.serving import make_server

    from vision.api import get_recogniser
    from webapp import create_app

    with tempfile.TemporaryDirectory() as instance:
        app = create_app({"INSTANCE_PATH": instance, "RECOGNISER_FACTORY": get_recogniser})
        http = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=http.serve_forever, daemon=True).start()
        server = f"http://127.0.0.1:{http.server_port}"
        results = []
        try:
            for kind in args.kinds:
                for phones in args.phones:
                    r = run(server, kind, phones, args.seconds)
                    results.append(r)
                    print(
                        f"{kind:9} {phones} phone(s): {r['verdicts_per_s']:.2f} verdicts/s "
                        f"(per phone {r['slowest_phone']:.2f}-{r['fastest_phone']:.2f}); "
                        f"frame sent to answer median {r['latency_median_ms']:.0f} ms, "
                        f"p95 {r['latency_p95_ms']:.0f} ms; server reads a frame in "
                        f"{r['server_median_ms']:.0f} ms ({r['server_total_median_ms']:.0f} ms "
                        f"with its wait); {r['pieces']:.0f} pieces; 503s {r['busy_503']}, "
                        f"errors {r['errors']}",
                        flush=True,
                    )
        finally:
            http.shutdown()
    return results


if __name__ == "__main__":
    main()
