"""Issue 70, item 2: the server's memory over big photos, measured on a real ``meldcam serve``
(waitress, a subprocess on a free port, its own instance folder and SQLite database).

    .venv/bin/python -m benchmarks.bench_server_memory [--processes N] [--uploads 20]
        [--flood-s 60] [--settle-s 30]

1. ``--uploads`` uploads, one after the other, of a 7000 x 7000 PNG (~150 KB: flat felt with
   a few hundred tiles drawn on it) to ``/api/recognise``.
2. A photo flood for ``--flood-s`` seconds from 4 addresses (``X-Forwarded-For``, the server
   started with ``--proxy 127.0.0.1``), each within the write limit (one photo every 1.05 s
   against 60 a minute, sent without waiting for the answers), the same PNG, four at once: the
   photo queue fills and the rest are answered 503 (busy).

For each: the server's resident memory (VmRSS, its server processes included with
``--processes``) sampled every 0.1 s: at the start, its peak, at the end, and ``--settle-s``
seconds after (the targets: peak under 1 GB, back under 600 MB within 30 s), with the answers'
status counts. The server reads with the shipped recogniser when it loads (it loads in the
background at start: the benchmark waits for its first reading), else a photo stops at the
reader after being decoded and stored. The machine's load is printed: other work on the same
cores slows the flood (more 503s) but should not change the memory figures much.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import io
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SIDE = 7000
ADDRESSES = ("198.51.100.11", "198.51.100.12", "198.51.100.13", "198.51.100.14")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def big_png(path: Path) -> bytes:
    """7000 x 7000 px, ~150 KB: what issue 70 sent (49 megapixels, 196 MB decoded by Pillow)."""
    if not path.exists():
        from PIL import Image, ImageDraw

        image = Image.new("RGB", (SIDE, SIDE), (40, 110, 60))
        draw = ImageDraw.Draw(image)
        rng = random.Random(70)
        for _ in range(300):
            x, y = rng.randrange(SIDE - 200), rng.randrange(SIDE - 260)
            colour = tuple(rng.randrange(256) for _ in range(3))
            draw.rectangle((x, y, x + 160, y + 220), fill=(240, 235, 220), outline=colour, width=6)
        image.save(path, "PNG", optimize=True)
    return path.read_bytes()


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and its child processes (``--processes``), in MB."""
    total = 0.0
    pids = [pid]
    with contextlib.suppress(OSError):
        pids += [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    for each in pids:
        try:
            for line in Path(f"/proc/{each}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            continue
    return total


class Sampler:
    """The server's RSS every 0.1 s, in a thread: the peak since the last ``reset``."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = 0.0
        self.stopped = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self.stopped.wait(0.1):
            self.peak = max(self.peak, rss_mb(self.pid))

    def reset(self) -> float:
        self.peak = now = rss_mb(self.pid)
        return now


def multipart(photo: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="kind"\r\n\r\ntiles\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="p.png"\r\n'
        "Content-Type: image/png\r\n\r\n"
    )
    return head.encode() + photo + f"\r\n--{boundary}--\r\n".encode(), (
        f"multipart/form-data; boundary={boundary}"
    )


def upload(port: int, photo: bytes, address: str) -> int:
    body, content_type = multipart(photo)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request(
            "POST",
            "/api/recognise",
            body=body,
            headers={"Content-Type": content_type, "X-Forwarded-For": address},
        )
        response = connection.getresponse()
        response.read()
        return response.status
    except OSError:
        return 0
    finally:
        connection.close()


def settle(sampler: Sampler, seconds: float) -> float:
    """RSS ``seconds`` after the last answer."""
    time.sleep(seconds)
    return rss_mb(sampler.pid)


def uploads(port: int, sampler: Sampler, photo: bytes, count: int, wait: float) -> dict[str, Any]:
    start = sampler.reset()
    statuses: Counter[int] = Counter()
    after: list[float] = []
    for _ in range(count):
        statuses[upload(port, photo, "198.51.100.10")] += 1
        after.append(round(rss_mb(sampler.pid)))
    return {
        "uploads": count,
        "statuses": dict(statuses),
        "rss_start_mb": round(start),
        "rss_after_each_mb": after,
        "rss_peak_mb": round(sampler.peak),
        "rss_end_mb": round(rss_mb(sampler.pid)),
        f"rss_{wait:g}s_after_mb": round(settle(sampler, wait)),
    }


def flood(port: int, sampler: Sampler, photo: bytes, seconds: float, wait: float) -> dict[str, Any]:
    start = sampler.reset()
    statuses: Counter[int] = Counter()
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    sent: list[threading.Thread] = []

    def send(address: str) -> None:
        status = upload(port, photo, address)
        with lock:
            statuses[status] += 1

    while time.monotonic() < deadline:  # each address: a photo every 1.05 s, 57 a minute < 60
        for address in ADDRESSES:  # not waiting for the answers: the queue fills
            thread = threading.Thread(target=send, args=(address,))
            thread.start()
            sent.append(thread)
        time.sleep(1.05)
    for thread in sent:
        thread.join()
    return {
        "flood_s": seconds,
        "addresses": len(ADDRESSES),
        "statuses": dict(statuses),
        "rss_start_mb": round(start),
        "rss_peak_mb": round(sampler.peak),
        "rss_end_mb": round(rss_mb(sampler.pid)),
        f"rss_{wait:g}s_after_mb": round(settle(sampler, wait)),
    }


def start_server(instance: Path, processes: int) -> tuple[subprocess.Popen[str], int]:
    port = free_port()
    command = [sys.executable, "-m", "meldcam", "serve", "--port", str(port), "--proxy"]
    command += ["127.0.0.1", "--processes", str(processes)]
    env = {**os.environ, "MELDCAM_INSTANCE_PATH": str(instance), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert re.search(r"serving on", line), line
    threading.Thread(target=process.stdout.read, daemon=True).start()
    return process, port


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--processes", type=int, default=1, help="meldcam serve --processes")
    parser.add_argument("--uploads", type=int, default=20)
    parser.add_argument("--flood-s", type=float, default=60.0)
    parser.add_argument("--settle-s", type=float, default=30.0)
    args = parser.parse_args()
    photo = big_png(Path(tempfile.gettempdir()) / "meldcam-7000px.png")
    print(json.dumps({"load_before": os.getloadavg(), "png_bytes": len(photo)}), flush=True)
    with tempfile.TemporaryDirectory(prefix="meldcam-memory-") as folder:
        process, port = start_server(Path(folder), args.processes)
        try:
            sampler = Sampler(process.pid)
            small = io.BytesIO()
            from PIL import Image

            Image.new("RGB", (64, 48), (40, 110, 60)).save(small, "PNG")
            time.sleep(2)
            first = upload(port, small.getvalue(), "198.51.100.99")  # waits for the reader
            print(
                json.dumps({"first_small_photo": first, "rss_ready_mb": round(sampler.reset())}),
                flush=True,
            )
            found = uploads(port, sampler, photo, args.uploads, args.settle_s)
            print(json.dumps({"sequential_png": found}), flush=True)
            found = flood(port, sampler, photo, args.flood_s, args.settle_s)
            print(json.dumps({"flood_png": found}), flush=True)
            sampler.stopped.set()
        finally:
            process.terminate()
            process.wait(timeout=20)
    print(json.dumps({"load_after": os.getloadavg()}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
