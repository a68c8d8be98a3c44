"""Issue 70, item 2: a big photo's memory comes back. A 7000 x 7000 PNG (196 MB decoded) read
on one request thread after another grew the server by ~370 MB per upload, for good (glibc
keeps a freed arena's memory, one arena per thread). Photos are now decoded and read on the
photo thread, the memory they freed handed back (``webapp.photos.on_photo_thread``), and
``meldcam serve`` caps glibc's arenas (``webapp.cli.cap_malloc_arenas``)."""

from __future__ import annotations

import http.client
import io
import itertools
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from PIL import Image, ImageDraw

from webapp import cli, photos

ROOT = Path(__file__).resolve().parents[2]
SIDE = 7000


def small_jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (1, 2, 3)).save(out, "JPEG")
    return out.getvalue()


def test_photos_are_decoded_and_read_on_the_photo_thread(
    app: Flask, monkeypatch: pytest.MonkeyPatch
):
    threads: list[str] = []
    decode = photos.checked_photo

    def checked(data: bytes) -> photos.CheckedPhoto:
        threads.append(threading.current_thread().name)
        return decode(data)

    class Reader:
        def recognise(
            self,
            image: bytes,
            channels: str = "rgb",
            set_name: str | None = None,
            untold: str | None = None,
        ) -> dict[str, Any]:
            threads.append(threading.current_thread().name)
            return {"kind": "tiles", "pieces": [], "melds": [], "ms": 1}

    monkeypatch.setattr(photos, "checked_photo", checked)
    app.config["RECOGNISER_FACTORY"] = lambda kind: Reader()
    answers: list[int] = []

    def send(address: str) -> None:
        answer = app.test_client().post(
            "/api/recognise",
            data={"kind": "tiles", "photo": (io.BytesIO(small_jpeg()), "p.jpg")},
            content_type="multipart/form-data",
            environ_overrides={"REMOTE_ADDR": address},
        )
        answers.append(answer.status_code)

    senders = [threading.Thread(target=send, args=(f"192.0.2.{i}",)) for i in range(3)]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join()
    assert answers == [200, 200, 200]
    assert len(threads) == 6
    assert all(name.startswith("meldcam-photo") for name in threads), threads


def test_a_bad_photo_is_still_a_400_from_the_photo_thread(client: FlaskClient):
    answer = client.post(
        "/api/recognise",
        data={"kind": "tiles", "photo": (io.BytesIO(b"not a photo"), "p.jpg")},
        content_type="multipart/form-data",
    )
    assert answer.status_code == 400 and "not a photo" in answer.json["error"]


@pytest.mark.parametrize("image_format", ["JPEG", "PNG"])
def test_a_big_turned_photo_is_shrunk_then_stood_upright(image_format: str):
    """Shrunk before it is turned (no full-size copy): the same result as the other way."""
    image = Image.new("RGB", (4000, 1500), (200, 200, 200))
    image.paste((10, 10, 10), (0, 0, 400, 300))  # a dark top-left corner
    exif = Image.Exif()
    exif[0x0112] = 6  # shown turned a quarter clockwise
    out = io.BytesIO()
    image.save(out, image_format, exif=exif)
    checked = photos.check_photo(out.getvalue())
    assert (checked.width, checked.height) == (750, 2000)
    with Image.open(io.BytesIO(checked.data)) as kept:
        assert kept.size == (750, 2000)
        assert kept.convert("RGB").getpixel((740, 10))[0] < 80  # the corner, now top right
        assert kept.convert("RGB").getpixel((10, 10))[0] > 150


def test_serve_caps_the_malloc_arenas(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert cli.cap_malloc_arenas() is False  # the environment's setting wins
    monkeypatch.delenv("MALLOC_ARENA_MAX")
    try:
        glibc = os.confstr("CS_GNU_LIBC_VERSION") is not None
    except (ValueError, OSError):
        glibc = False
    assert cli.cap_malloc_arenas() is glibc


@pytest.fixture(scope="module")
def big_png(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """7000 x 7000 px in ~150 KB, as issue 70 sent."""
    image = Image.new("RGB", (SIDE, SIDE), (40, 110, 60))
    draw = ImageDraw.Draw(image)
    for i in range(40):
        x, y = (i * 173) % (SIDE - 300), (i * 911) % (SIDE - 300)
        draw.rectangle((x, y, x + 160, y + 220), fill=(240, 235, 220), outline=(200, 30, 30))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


READER = """
class _Reader:
    def recognise(self, image, channels="rgb", set_name=None, untold=None):
        return {"kind": "tiles", "pieces": [], "melds": [], "ms": 0}


RECOGNISER_FACTORY = lambda kind: _Reader()  # noqa: E731
"""


TIMED_READER = """
import os, time


class _Reader:
    def recognise(self, image, channels="rgb", set_name=None, untold=None):
        started = time.time()
        time.sleep(0.4)
        with open(os.path.join(os.path.dirname(__file__), "readings.txt"), "a") as log:
            log.write(f"{os.getpid()} {started} {time.time()}\\n")
        return {"kind": "tiles", "pieces": [], "melds": [], "ms": 400}


RECOGNISER_FACTORY = lambda kind: _Reader()  # noqa: E731
RATELIMIT_ENABLED = False
"""


def start_server(folder: Path, config: str, *arguments: str) -> tuple[subprocess.Popen[str], int]:
    """``meldcam serve`` on a free port, the instance folder's ``config.py`` being ``config``."""
    (folder / "config.py").write_text(config)
    env = {**os.environ, "MELDCAM_INSTANCE_PATH": str(folder), "PYTHONUNBUFFERED": "1"}
    env.pop("MALLOC_ARENA_MAX", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "meldcam", "serve", "--port", "0", *arguments],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert server.stdout is not None
    line = server.stdout.readline()
    match = re.search(r"serving on http://127\.0\.0\.1:(\d+)/", line)
    if not match:
        server.kill()
        pytest.fail(f"meldcam serve did not start: {line}")
    threading.Thread(target=server.stdout.read, daemon=True).start()
    return server, int(match.group(1))


def upload(port: int, photo: bytes) -> int:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="kind"\r\n\r\ntiles\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="p.png"'
            "\r\nContent-Type: image/png\r\n\r\n"
        ).encode()
        + photo
        + f"\r\n--{boundary}--\r\n".encode()
    )
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
        connection.request("POST", "/api/recognise", body, headers)
        answer = connection.getresponse()
        answer.read()
        return answer.status
    finally:
        connection.close()


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux /proc")
def test_server_processes_take_turns_at_photos(tmp_path: Path):
    """``--processes 2``: photos sent six at a time are read by both processes, never two at
    the same moment (each reading holds its own few hundred MB; the cores are shared anyway)."""
    server, port = start_server(tmp_path, TIMED_READER, "--processes", "2")
    try:
        readings: list[tuple[float, float, str]] = []
        for _ in range(8):  # until both processes took some (whichever is free accepts)
            statuses: list[int] = []
            senders = [
                threading.Thread(
                    target=lambda sent=statuses: sent.append(upload(port, small_jpeg()))
                )
                for _ in range(6)
            ]
            for sender in senders:
                sender.start()
            for sender in senders:
                sender.join()
            assert statuses.count(200) >= 4, statuses
            readings = sorted(
                (float(start), float(end), pid)
                for pid, start, end in (
                    line.split() for line in (tmp_path / "readings.txt").read_text().splitlines()
                )
            )
            if len({pid for _, _, pid in readings}) == 2:
                break
        assert len({pid for _, _, pid in readings}) == 2, readings  # both processes read
        for (_, end, _), (start, _, _) in itertools.pairwise(readings):
            assert start >= end - 0.01, readings  # one after the other
    finally:
        server.terminate()
        server.wait(timeout=20)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux /proc")
def test_big_pngs_on_many_threads_give_their_memory_back(tmp_path: Path, big_png: bytes):
    """``meldcam serve`` (its 104 threads) reads four 7000 x 7000 PNGs, one after the other
    (each on whichever thread waitress gives it): its memory comes back to where it was."""
    server, port = start_server(tmp_path, READER)
    try:
        time.sleep(0.5)
        before = rss_mb(server.pid)
        after = []
        for _ in range(4):
            assert upload(port, big_png) == 200
            after.append(round(rss_mb(server.pid) - before))
        assert max(after) < 150, after  # MB more than before the first; was +370 per photo
    finally:
        server.terminate()
        server.wait(timeout=20)
